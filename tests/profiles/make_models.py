#!/usr/bin/python3
"""Writes the small models that tests/profiles/profile_models.js profiles,
and a PyTorch profiler trace of one of them.

Uses Debian's python3-torch (run with /usr/bin/python3). Weights are seeded
random values; only shapes matter to ridgeline.

  /usr/bin/python3 tests/profiles/make_models.py   # from the repository root

Writes:
  tests/fixtures/profile_models/small_cnn.onnx          Conv/BN/Relu/Pool/Gemm
  tests/fixtures/profile_models/small_transformer.onnx  one pre-norm encoder
                                                        block (opset 14:
                                                        LayerNorm and Gelu
                                                        decomposed)
  tests/fixtures/profiles/small_cnn_pytorch.json        torch.profiler trace of
                                                        small_cnn (CPU, 3 steps)
"""
import math
import os

import torch
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, "tests", "fixtures", "profile_models")
PROFILES = os.path.join(ROOT, "tests", "fixtures", "profiles")
OPSET = 14


class SmallCnn(nn.Module):
    """Two conv stages with a residual add, then a classifier (1x3x32x32)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1)
        self.conv3 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = torch.relu(x + self.conv2(x))
        x = torch.relu(self.conv3(x))
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


class SmallTransformerBlock(nn.Module):
    """Pre-norm self-attention + MLP block, width 32, 2 heads (1x16x32)."""

    def __init__(self, d=32, heads=2, ffn=128):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ffn)
        self.fc2 = nn.Linear(ffn, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        q = q.reshape(b, t, h, d // h).transpose(1, 2)
        k = k.reshape(b, t, h, d // h).transpose(1, 2)
        v = v.reshape(b, t, h, d // h).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // h), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(nn.functional.gelu(self.fc1(self.norm2(x))))


def export(model, example, name):
    path = os.path.join(MODELS, name + ".onnx")
    torch.onnx.export(model, example, path, opset_version=OPSET,
                      input_names=["input"], output_names=["output"],
                      do_constant_folding=True)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def pytorch_trace(model, example, name):
    path = os.path.join(PROFILES, name + "_pytorch.json")
    from torch.profiler import ProfilerActivity, profile, schedule

    def ready(prof):
        prof.export_chrome_trace(path)

    torch.set_num_threads(1)
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU],
                                  schedule=schedule(wait=0, warmup=1, active=3),
                                  on_trace_ready=ready) as prof:
        for _ in range(4):
            model(example)
            prof.step()
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def main():
    torch.manual_seed(0)
    os.makedirs(MODELS, exist_ok=True)
    os.makedirs(PROFILES, exist_ok=True)
    cnn = SmallCnn().eval()
    cnn_input = torch.randn(1, 3, 32, 32)
    export(cnn, cnn_input, "small_cnn")
    export(SmallTransformerBlock().eval(), torch.randn(1, 16, 32),
           "small_transformer")
    pytorch_trace(cnn, cnn_input, "small_cnn")


if __name__ == "__main__":
    main()
