"""Keyword arguments -> the analyze CLI's flags.

The extension validates the flags with the CLI's own parser
(tools/analyze/options.cc), so a bad value raises ValueError with exactly
the message `analyze` prints. Only this table knows the keywords.
"""

import os

from . import _core

# keyword -> flag taking a value (str(value) is passed)
_VALUE_FLAGS = {
    "batch": "--batch",
    "precision": "--precision",
    "runtime": "--runtime",
    "flops_per_mac": "--flops-per-mac",
    "efficiency": "--efficiency",
    "memory_efficiency": "--memory-efficiency",
    "layer_tax_us": "--layer-tax-us",
    "dispatch_tax_us": "--dispatch-tax-us",
    "top": "--top",
    # what-ifs (ridgeline.what_if)
    "fuse": "--fuse",
    "weights": "--weights",
    "activations": "--activations",
    "kv_cache": "--kv-cache",
    "int4_group": "--int4-group",
    # multi-GPU
    "tp": "--tp",
    "pp": "--pp",
    "ep": "--ep",
    "microbatches": "--microbatches",
    # serving (ridgeline.serve)
    "prompt": "--prompt",
    "generate": "--generate",
    "concurrency": "--concurrency",
    "kv_dim": "--kv-dim",
    "usd_per_gpu_hour": "--usd-per-gpu-hour",
    "ttft_max": "--ttft-max",
    "tpot_max": "--tpot-max",
}
# keyword -> switch (passed when the value is true)
_SWITCHES = {
    "mlsysim": "--mlsysim",
    "whole_model": "--whole-model",
    "all_layers": "--all-layers",
    "what_if": "--what-if",
    "serve": "--serve",
    "search": "--search",
}

KEYWORDS = tuple(_VALUE_FLAGS) + tuple(_SWITCHES)


class ZooModel:
    """A built-in model (see zoo_models()); pass it to analyze()."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"ridgeline.zoo({self.name!r})"

    def __eq__(self, other):
        return isinstance(other, ZooModel) and other.name == self.name

    def __hash__(self):
        return hash(("ridgeline.zoo", self.name))


def _model_args(model, name):
    """(args, bytes or None) for a zoo entry, a path or serialized ONNX."""
    if isinstance(model, ZooModel):
        return ["--zoo", model.name], None
    if isinstance(model, (bytes, bytearray, memoryview)):
        if not model:
            raise ValueError("model: empty bytes (expected a serialized "
                             "ONNX model)")
        display = name or "<bytes>"
        if display.startswith("-"):
            raise ValueError(f"name: must not start with '-': {display!r}")
        return [display], bytes(model)
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not path:
            raise ValueError("model: empty path")
        if path.startswith("-"):  # not a flag
            path = os.path.join(os.curdir, path)
        return [path], None
    raise TypeError(
        "model: expected a path, bytes (a serialized ONNX model) or "
        f"ridgeline.zoo(NAME), got {type(model).__name__}")


def _hw_arg(hw):
    if isinstance(hw, str):
        return hw
    try:
        names = list(hw)
    except TypeError:
        raise TypeError(
            f"hw: expected a device name or a list of names, got "
            f"{type(hw).__name__}") from None
    if not names or not all(isinstance(n, str) for n in names):
        raise ValueError(f"hw: expected device names, got {hw!r}")
    return ",".join(names)


def open_session(model, hw, dims=None, name=None, **options):
    """Opens a _core.Session: imports and analyzes (the CLI's steps)."""
    args, data = _model_args(model, name)
    args += ["--hw", _hw_arg(hw)]
    if dims is not None:
        if not isinstance(dims, dict):
            raise TypeError(f"dims: expected a dict NAME -> int, got "
                            f"{type(dims).__name__}")
        for key, value in dims.items():
            if not isinstance(key, str) or not key:
                raise ValueError(f"dims: dim names must be non-empty "
                                 f"strings, got {key!r}")
            args += ["--dim", f"{key}={value}"]
    for key, value in options.items():
        if key in _VALUE_FLAGS:
            if value is not None:
                args += [_VALUE_FLAGS[key], str(value)]
        elif key in _SWITCHES:
            if value:
                args.append(_SWITCHES[key])
        else:
            raise TypeError(f"unexpected keyword argument {key!r} (known: "
                            f"{', '.join(KEYWORDS)})")
    return _core.Session.open(args, data)
