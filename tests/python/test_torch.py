"""ridgeline.from_torch: PyTorch modules exported in memory and analyzed."""

import pytest

import ridgeline

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

from test_api import RESNET50_MACS  # noqa: E402


class TwoInputs(torch.nn.Module):
    """x[batch, 64] -> Linear(64, 32); y[batch, seq, 16] -> Linear(16, 8)."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(64, 32)
        self.b = torch.nn.Linear(16, 8)

    def forward(self, x, y):
        return self.a(x), self.b(y)


@pytest.fixture(scope="module")
def resnet50():
    torch.manual_seed(0)
    return torchvision.models.resnet50(weights=None)


def test_resnet50_module_matches_the_cli_and_torchvision(resnet50, cli_json,
                                                         tmp_path):
    x = torch.randn(1, 3, 224, 224)
    r = ridgeline.from_torch(resnet50, x, dynamic_dims={"batch": 0},
                             hw="a100", precision="fp16", batch=2)
    assert r.model == "torch:ResNet"
    # torchvision's published 4.09 GMACs per image (the zoo's exact count).
    assert r.macs == 2 * RESNET50_MACS
    assert r.batch == 2
    # The CLI on the same export: every number of the report.
    path = tmp_path / "resnet50.onnx"
    path.write_bytes(ridgeline.export_torch(resnet50, x,
                                            dynamic_dims={"batch": 0}))
    doc = cli_json(str(path), "--hw", "a100", "--precision", "fp16",
                   "--batch", "2")
    assert r.summary == doc["summary"]
    assert r.layers == doc["layers"]
    assert resnet50.training  # the module's mode is restored


def test_dynamic_dims_per_input_rebind():
    m = TwoInputs()
    x, y = torch.randn(1, 64), torch.randn(1, 5, 16)
    dyn = {"input0": {0: "batch"}, "input1": {0: "batch", 1: "seq"}}
    r = ridgeline.from_torch(m, (x, y), dyn, hw="h100",
                             dims={"batch": 4, "seq": 10})
    # By hand: 4*64*32 + 4*10*16*8 multiply-accumulates.
    assert r.macs == 4 * 64 * 32 + 4 * 10 * 16 * 8
    static = ridgeline.from_torch(m, (x, y), hw="h100")
    assert static.macs == 64 * 32 + 5 * 16 * 8


def test_bad_torch_arguments():
    m = TwoInputs()
    x, y = torch.randn(1, 64), torch.randn(1, 5, 16)
    with pytest.raises(ValueError, match="unknown input"):
        ridgeline.from_torch(m, (x, y), {"nope": {0: "batch"}})
    with pytest.raises(ValueError):
        ridgeline.from_torch(m, (x, y), {"batch": "zero"})
    with pytest.raises(TypeError):
        ridgeline.from_torch("not a module", x)
    with pytest.raises(TypeError):
        ridgeline.from_torch(m, ())
    with pytest.raises(ValueError, match="precision"):
        ridgeline.from_torch(m, (x, y), precision="fp17")
