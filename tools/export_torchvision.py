#!/usr/bin/python3
"""Exports torchvision classification models to ONNX with torch.onnx.export.

Uses Debian's python3-torch and python3-torchvision; weights are random
(weights=None), which does not change any shape, FLOP or parameter count.

  /usr/bin/python3 tools/export_torchvision.py OUT_DIR [model ...]
  /usr/bin/python3 tools/export_torchvision.py OUT_DIR --dynamic-batch resnet50
"""
import argparse
import os
import sys

import torch
import torchvision

DEFAULT_MODELS = ["resnet50", "mobilenet_v2", "vit_b_16", "swin_t",
                  "shufflenet_v2_x1_0", "convnext_tiny", "efficientnet_b0"]


def export(name, out_dir, opset, dynamic_batch):
    model = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    path = os.path.join(out_dir, f"{name}.onnx")
    dynamic_axes = {"input": {0: "batch"}, "logits": {0: "batch"}} \
        if dynamic_batch else None
    # Not under torch.no_grad(): with gradients enabled, torch 1.13's
    # nn.MultiheadAttention skips its fused fast path
    # (aten::_native_multi_head_attention), which has no ONNX export.
    torch.onnx.export(model, x, path, opset_version=opset,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes=dynamic_axes, do_constant_folding=True)
    print(f"wrote {path}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("models", nargs="*", default=DEFAULT_MODELS)
    parser.add_argument("--opset", type=int, default=14)
    parser.add_argument("--dynamic-batch", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    torch.manual_seed(0)
    for name in args.models:
        export(name, args.out_dir, args.opset, args.dynamic_batch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
