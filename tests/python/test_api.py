"""ridgeline's Python API against the analyze CLI and hand counts."""

import json
import os
import warnings

import pytest

import ridgeline
from conftest import ROOT, fixture

# tests/fixtures/make_cli_fixtures.py, by hand: Conv 1*8*16*16*3*3*3 =
# 55,296 MACs + Gemm 1*512*10 = 5,120 MACs; 5,386 parameters.
TINY_CNN_MACS = 60416
TINY_CNN_PARAMS = 5386
# torchvision ResNet-50: 4.09 GMACs (torchvision's published "GFLOPS",
# counted as multiply-adds); the zoo graph counts 4,089,184,256 (README).
RESNET50_MACS = 4089184256


def cli_message(cli, *args):
    """The CLI's error message, without "analyze: [error: ]" and usage."""
    rc, _, err = cli(*args)
    assert rc in (1, 2), err
    line = err.splitlines()[0]
    prefix = "analyze: error: " if rc == 2 else "analyze: "
    assert line.startswith(prefix)
    return line[len(prefix):]


def test_listings():
    keys = {h["key"]: h for h in ridgeline.hardware()}
    assert "a100" in keys["a100-80gb-sxm"]["aliases"]
    assert keys["a100-80gb-sxm"]["peak_flops_per_s"]["fp16"] == 312e12
    models = {m["name"]: m for m in ridgeline.zoo_models()}
    assert "resnet50" in models
    # Llama-3.1-8B's config.json: torch_dtype bfloat16; ResNet-50 keeps its
    # fp32 graph.
    assert models["llama-3.1-8b-decode"]["native_precision"] == "bf16"
    assert models["resnet50"]["native_precision"] is None
    assert {"compiled", "eager", "mlsysim"} <= {
        r["key"] for r in ridgeline.runtimes()}
    assert ridgeline.zoo("ResNet50") == ridgeline.zoo("resnet50")


def test_zoo_records_are_the_cli_listing(cli_json):
    # One writer (zoo::ModelEntryJson): --list-zoo --format json.
    assert ridgeline.zoo_models() == cli_json("--list-zoo")


def test_runtime_records_are_the_cli_listing(cli_json):
    # One writer (engine::report::RuntimeJson): --list-runtimes --format json.
    records = ridgeline.runtimes()
    assert records == cli_json("--list-runtimes")
    compiled = {r["key"]: r for r in records}["compiled"]
    assert compiled["device"] == "gpu"
    assert compiled["summary"]


def test_hardware_records_are_the_cli_listing(cli_json):
    # One writer (engine::report::HardwareJson): the records are the entries
    # of --list-hw --format json, field for field and in the same order.
    listing = cli_json("--list-hw")
    records = ridgeline.hardware()
    assert records == listing
    assert [list(r) for r in records] == [list(e) for e in listing]
    # The hardware file's fields, beyond the table's columns.
    h100 = {r["key"]: r for r in records}["h100-sxm"]
    assert h100["kernel_model"]["compute_units"] == 132  # H100 SXM: 132 SMs


def test_five_lines_equal_the_cli(cli_json):
    r = ridgeline.analyze(ridgeline.zoo("resnet50"), hw="a100", batch=1,
                          precision="fp16")
    doc = cli_json("--zoo", "resnet50", "--hw", "a100", "--batch", "1",
                   "--precision", "fp16")
    # Every field and number of the JSON report, exactly.
    assert r.to_dict() == doc
    assert json.loads(r.to_json()) == doc
    s = doc["summary"]
    assert r.latency_s == s["latency_s"]
    assert r.throughput_per_s == s["throughput_per_s"]
    assert r.mfu == s["mfu"]
    assert r.bound == s["bound"]
    assert r.macs == s["macs"] == RESNET50_MACS
    assert r.layers == doc["layers"] and r.assumptions == doc["assumptions"]
    assert r.hardware == "a100-80gb-sxm" and r.runtime == "compiled"
    assert r.model == "zoo:resnet50"


def test_table_and_html_are_the_clis(cli):
    r = ridgeline.analyze(ridgeline.zoo("resnet50"), hw="h100", top=5)
    rc, table, _ = cli("--zoo", "resnet50", "--hw", "h100", "--top", "5")
    assert rc == 0 and str(r) == table
    page = r.to_html()
    assert page.lstrip().lower().startswith("<!doctype html")
    assert r._repr_html_().startswith("<iframe srcdoc=")
    assert "zoo:resnet50" in repr(r)


def test_batch_sweep_equals_the_clis(cli, cli_json):
    r = ridgeline.analyze(ridgeline.zoo("resnet50"), hw="a100",
                          precision="fp16")
    sweep = r.sweep(batches=[1, 8, 32, 128, 256])
    args = ["--zoo", "resnet50", "--hw", "a100", "--precision", "fp16",
            "--sweep", "batch=1,8,32,128,256"]
    assert sweep.data == cli_json(*args)["sweep"]
    assert [p["batch"] for p in sweep] == [1, 8, 32, 128, 256]
    _, text, _ = cli(*args)
    assert str(sweep) in text
    # The module-level call takes the CLI's LIST syntax; a sweep point
    # equals a full analysis at that batch.
    again = ridgeline.sweep(ridgeline.zoo("resnet50"), hw="a100",
                            batches="1,2,4,...,32", precision="fp16")
    assert [p["batch"] for p in again] == [1, 2, 4, 8, 16, 32]
    full = ridgeline.analyze(ridgeline.zoo("resnet50"), hw="a100", batch=32,
                             precision="fp16")
    assert again[5]["latency_s"] == pytest.approx(full.latency_s, rel=1e-9)
    assert sweep[2]["latency_s"] == pytest.approx(full.latency_s, rel=1e-9)


def test_parallel_sweeps_equal_the_clis(cli_json):
    # --sweep ep=LIST on a mixture of experts (each point an --ep analysis),
    # tp=LIST on Llama-3.1-8B, from the module-level call and the report's.
    s = ridgeline.sweep(ridgeline.zoo("mixtral-8x7b-decode"), hw="h100",
                        ep=[1, 2, 8], precision="bf16")
    assert s.data == cli_json("--zoo", "mixtral-8x7b-decode", "--hw", "h100",
                              "--precision", "bf16", "--sweep",
                              "ep=1,2,8")["sweep"]
    assert s.axis == "ep"
    assert [p["ep"] for p in s] == [1, 2, 8]
    assert [p["gpus"] for p in s] == [1, 2, 8]
    r = ridgeline.analyze(ridgeline.zoo("llama-3.1-8b-decode"), hw="h100")
    t = r.sweep(tp="1,2,4,...,8")
    assert t.data == cli_json("--zoo", "llama-3.1-8b-decode", "--hw", "h100",
                              "--sweep", "tp=1,2,4,...,8")["sweep"]
    assert [p["tp"] for p in t] == [1, 2, 4, 8]
    with pytest.raises(ValueError, match="exactly one"):
        r.sweep(tp=[2], ep=[2])
    with pytest.raises(ValueError, match="ep=2"):
        r.sweep(ep=[2])  # no mixture-of-experts layer


def test_hardware_sweep_and_mlsysim(cli_json):
    s = ridgeline.sweep(ridgeline.zoo("resnet50"), hw="a100",
                        devices=["a100", "h100"], precision="fp16")
    assert s.data == cli_json("--zoo", "resnet50", "--hw", "a100",
                              "--precision", "fp16", "--sweep",
                              "hw=a100,h100")["sweep"]
    assert [p["hardware"] for p in s] == ["a100-80gb-sxm", "h100-sxm"]
    # mlsysim's published ResNet-50 A100 fp16 batch 1: 0.543 ms, 1843 /s
    # (README, "Reproducing mlsysim's published numbers").
    r = ridgeline.analyze(ridgeline.zoo("resnet50"), hw="a100",
                          precision="fp16", mlsysim=True)
    lumped, mlsysim = r.whole_model()
    assert mlsysim["method"] == "mlsysim" and lumped["method"] == "lumped"
    assert mlsysim["latency_s"] == pytest.approx(0.543e-3, rel=0.01)
    assert mlsysim["throughput_per_s"] == pytest.approx(1843, rel=0.01)
    assert mlsysim == cli_json("--zoo", "resnet50", "--hw", "a100",
                               "--precision", "fp16",
                               "--mlsysim")["whole_model"]


def test_what_if_equals_the_clis(cli_json):
    w = ridgeline.what_if(ridgeline.zoo("resnet50"), hw="a100",
                          weights="int8", precision="fp16")
    doc = cli_json("--zoo", "resnet50", "--hw", "a100", "--weights", "int8",
                   "--precision", "fp16")
    for key, value in w.data.items():
        assert doc[key] == value, key
    assert w.data and str(w)
    full = ridgeline.what_if(ridgeline.zoo("resnet50"), hw="a100")
    assert str(full) and full.report.hardware == "a100-80gb-sxm"


def test_file_bytes_and_hand_count():
    path = fixture("tiny_cnn_dyn.onnx")
    by_path = ridgeline.analyze(path, hw="h100", batch=4)
    with open(path, "rb") as f:
        by_bytes = ridgeline.analyze(f.read(), hw="h100", batch=4,
                                     name="tiny.onnx")
    assert by_path.macs == by_bytes.macs == 4 * TINY_CNN_MACS
    assert by_path.params == TINY_CNN_PARAMS
    assert by_path.latency_s == by_bytes.latency_s
    assert by_bytes.model == "tiny.onnx"
    dims = ridgeline.analyze(path, hw="h100", dims={"batch": 3})
    assert dims.macs == 3 * TINY_CNN_MACS and dims.batch == 3
    # Bytes re-import at each sweep point.
    sweep = by_bytes.sweep(batches=[1, 2, 16])
    assert [p["flops"] for p in sweep] == [
        pytest.approx(b * by_path.flops / 4) for b in (1, 2, 16)]


def test_pandas():
    pandas = pytest.importorskip("pandas")
    r = ridgeline.analyze(fixture("tiny_cnn.onnx"), hw="a100")
    df = r.to_pandas()
    assert isinstance(df, pandas.DataFrame)
    assert len(df) == len(r.layers) and "macs" in df.columns
    assert df["macs"].sum() == TINY_CNN_MACS


def test_warnings_are_the_clis(cli):
    path = fixture("tiny_custom_op.onnx")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = ridgeline.analyze(path, hw="h100")
    _, _, err = cli(path, "--hw", "h100")
    expected = [line[len("analyze: warning: "):] for line in err.splitlines()
                if line.startswith("analyze: warning: ")]
    assert expected and r.warnings == expected
    assert [str(w.message) for w in caught] == expected
    assert r.to_dict()["warnings"] == json.loads(
        cli(path, "--hw", "h100", "--format", "json")[1])["warnings"]


@pytest.mark.parametrize("kwargs, flags", [
    ({"hw": "h900"}, ["--hw", "h900"]),
    ({"precision": "fp17"}, ["--precision", "fp17"]),
    ({"batch": 0}, ["--batch", "0"]),
    ({"efficiency": 1.5}, ["--efficiency", "1.5"]),
    ({"flops_per_mac": 3}, ["--flops-per-mac", "3"]),
    ({"runtime": "warp-drive"}, ["--runtime", "warp-drive"]),
    ({"dims": {"batch": -1}}, ["--dim", "batch=-1"]),
])
def test_bad_arguments_raise_the_clis_message(cli, kwargs, flags):
    args = {"hw": "h100", **kwargs}
    with pytest.raises(ValueError) as e:
        ridgeline.analyze(fixture("tiny_cnn.onnx"), **args)
    if "hw" not in kwargs:
        flags = ["--hw", "h100", *flags]
    assert str(e.value) == cli_message(cli, fixture("tiny_cnn.onnx"), *flags)
    assert not isinstance(e.value, ridgeline.ModelError)


def test_bad_models_raise_model_error(cli, tmp_path):
    missing = str(tmp_path / "missing.onnx")
    with pytest.raises(ridgeline.ModelError) as e:
        ridgeline.analyze(missing, hw="h100")
    assert str(e.value) == cli_message(cli, missing, "--hw", "h100")
    with pytest.raises(ridgeline.ModelError, match="junk"):
        ridgeline.analyze(b"\x08\x07 not an onnx model", hw="h100",
                          name="junk")
    with pytest.raises(ridgeline.ModelError, match="nosuch"):
        ridgeline.analyze(ridgeline.zoo("resnet50"), dims={"nosuch": 3})
    assert issubclass(ridgeline.ModelError, ValueError)
    broken = fixture(os.path.join("importer", "cycle.onnx"))
    with pytest.raises(ridgeline.ModelError) as e:
        ridgeline.analyze(broken, hw="h100")
    assert str(e.value) == cli_message(cli, broken, "--hw", "h100")


def test_names_that_are_not_utf8():
    # Node and tensor "relu" renamed to 4 bytes that are not UTF-8.
    with open(fixture("tiny_cnn.onnx"), "rb") as f:
        data = f.read().replace(b"relu", b"r\xffl\xfe")
    r = ridgeline.analyze(data, hw="h100")
    assert r.macs == TINY_CNN_MACS
    assert "r\ufffdl\ufffd" in [layer["name"] for layer in r.layers]
    assert json.loads(r.to_json())["summary"] == r.summary
    assert str(r) and r.to_html()


def test_bad_calls():
    with pytest.raises(TypeError):
        ridgeline.analyze(42)
    with pytest.raises(ValueError, match="empty bytes"):
        ridgeline.analyze(b"")
    with pytest.raises(TypeError, match="unexpected keyword"):
        ridgeline.analyze(ridgeline.zoo("resnet50"), bogus=1)
    with pytest.raises(TypeError):
        ridgeline.analyze(ridgeline.zoo("resnet50"), dims=[1])
    with pytest.raises(ValueError, match="resnet50"):  # lists the names
        ridgeline.zoo("resnet5000")
    r = ridgeline.analyze(ridgeline.zoo("resnet50"), hw="a100")
    with pytest.raises(ValueError, match="exactly one"):
        r.sweep()
    with pytest.raises(ValueError, match="sweep"):
        r.sweep(batches=[0])
    with pytest.raises(ValueError, match="sweep"):
        r.sweep(hw=["h900"])
    with pytest.raises(ValueError):
        ridgeline.analyze(ridgeline.zoo("resnet50"), hw=[])
    with pytest.raises(ValueError):
        ridgeline.what_if(ridgeline.zoo("resnet50"), weights="int3")


LLAMA2_7B_SERVE = ["--zoo", "llama-2-7b-decode", "--hw", "a100", "--serve",
                   "--prompt", "128", "--generate", "16", "--concurrency",
                   "4", "--tp", "2"]


def test_serve_equals_the_clis(cli, cli_json):
    s = ridgeline.serve(ridgeline.zoo("llama-2-7b-decode"), hw="a100",
                        prompt=128, generate=16, concurrency=4, tp=2)
    doc = cli_json(*LLAMA2_7B_SERVE)
    # The "serve" section and the whole document, exactly.
    assert s.data == doc["serve"]
    assert s.report.to_dict() == doc
    assert s.ttft_s == doc["serve"]["ttft_s"]
    assert s.tpot_s == doc["serve"]["tpot_s"]
    assert s.max_concurrency == doc["serve"]["max_concurrency"]
    assert s.search is None
    # KV cache per token by hand: K and V x 32 layers x 32 KV heads x 128
    # head dim x 2 bytes (fp16, Llama-2-7B's checkpoint dtype) = 512 KiB.
    assert s.kv_bytes_per_token == 2 * 32 * 32 * 128 * 2
    # Request latency = TTFT + the 15 decode steps after the first token.
    assert s.request_latency_s == pytest.approx(s.ttft_s + 15 * s.tpot_s,
                                                rel=1e-9)
    assert s.tpot_by_context[0]["context"] == 128
    assert list(s.to_dict()) == list(doc["serve"])
    assert s.report.gpus == 2 and s.report.parallel["tp"] == 2
    rc, text, _ = cli(*LLAMA2_7B_SERVE)
    assert rc == 0 and str(s) in text and str(s).lstrip().startswith(
        "Serving: prompt 128 tokens")
    assert "TTFT" in repr(s)
    with pytest.raises(AttributeError):
        s.no_such_field  # noqa: B018
    # --sweep concurrency=LIST with the same run's other options (the CLI's
    # sweep replaces --concurrency).
    sweep = s.sweep(concurrency=[1, 4])
    flags = [*LLAMA2_7B_SERVE[:-4], *LLAMA2_7B_SERVE[-2:], "--sweep",
             "concurrency=1,4"]
    assert "--concurrency" not in flags and "--tp" in flags
    assert sweep.data == cli_json(*flags)["sweep"]
    assert [p["concurrency"] for p in sweep] == [1, 4]
    assert sweep[1]["ttft_s"] == s.ttft_s  # concurrency 4 is the run's own
    rc, text, _ = cli(*flags)
    assert rc == 0 and str(sweep) in text
    assert [p["concurrency"] for p in s.sweep("1,2,4,...,8")] == [1, 2, 4, 8]
    with pytest.raises(ValueError, match="concurrency=0"):
        s.sweep([0])


def test_serve_file_search_and_errors(cli, cli_json):
    # An ONNX decoder file with past-KV inputs (the zoo's own export), the
    # past-length dim found from the graph; Llama-3.1-8B's KV cache per
    # token at bf16: 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 128 KiB.
    path = os.path.join(ROOT, "zoo", "models", "llama-3.1-8b-decode.onnx")
    s = ridgeline.serve(path, hw="h100", prompt=64, generate=4,
                        precision="bf16")
    assert s.kv_bytes_per_token == 2 * 32 * 8 * 128 * 2
    assert s.data == cli_json(path, "--hw", "h100", "--serve", "--prompt",
                              "64", "--generate", "4", "--precision",
                              "bf16")["serve"]
    # --search: the same Pareto set and cheapest configuration as the CLI.
    flags = ["--zoo", "llama-2-7b-decode", "--hw", "h100", "--serve",
             "--prompt", "128", "--generate", "8", "--search", "--ttft-max",
             "0.1", "--tpot-max", "0.02"]
    found = ridgeline.serve(ridgeline.zoo("llama-2-7b-decode"), hw="h100",
                            prompt=128, generate=8, search=True,
                            ttft_max=0.1, tpot_max=0.02)
    assert found.search == cli_json(*flags)["search"]
    assert found.search["best"] is not None
    with pytest.raises(ValueError, match="prompt= and generate="):
        ridgeline.serve(ridgeline.zoo("llama-2-7b-decode"), prompt=128)
    with pytest.raises(ValueError) as e:
        ridgeline.serve(ridgeline.zoo("resnet50"), hw="h100", prompt=8,
                        generate=2)
    assert str(e.value) == cli_message(cli, "--zoo", "resnet50", "--hw",
                                       "h100", "--serve", "--prompt", "8",
                                       "--generate", "2")


def test_tensor_parallel_analysis_equals_the_clis(cli_json):
    r = ridgeline.analyze(ridgeline.zoo("llama-3.1-70b-decode"), hw="h100",
                          tp=8)
    doc = cli_json("--zoo", "llama-3.1-70b-decode", "--hw", "h100", "--tp",
                   "8")
    assert r.to_dict() == doc
    assert r.gpus == 8 and r.parallel == doc["summary"]["parallel"]
    assert r.latency_s == doc["summary"]["latency_s"]
    assert ridgeline.analyze(ridgeline.zoo("resnet50")).parallel is None
    with pytest.raises(ValueError, match="--tp"):
        ridgeline.analyze(ridgeline.zoo("llama-3.1-8b-decode"), tp=3)
