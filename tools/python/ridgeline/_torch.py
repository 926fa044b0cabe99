"""PyTorch modules: exported with torch.onnx into memory, then analyzed."""

import io


def _torch():
    try:
        import torch
    except ImportError as e:  # optional dependency
        raise ImportError("from_torch needs PyTorch (Debian: apt-get install "
                          "python3-torch)") from e
    return torch


def _dynamic_axes(dynamic_dims, input_names):
    """torch.onnx's dynamic_axes from {DIM_NAME: AXIS} (that axis of every
    input) or {INPUT_NAME: {AXIS: DIM_NAME}} (torch's own form)."""
    if dynamic_dims is None:
        return None
    if not isinstance(dynamic_dims, dict):
        raise TypeError("dynamic_dims: expected a dict {DIM_NAME: AXIS} or "
                        "{INPUT_NAME: {AXIS: DIM_NAME}}, got "
                        f"{type(dynamic_dims).__name__}")
    axes = {name: {} for name in input_names}
    for key, value in dynamic_dims.items():
        if isinstance(value, int) and not isinstance(value, bool):
            if not isinstance(key, str) or not key:
                raise ValueError(f"dynamic_dims: dim names must be non-empty "
                                 f"strings, got {key!r}")
            for name in input_names:
                axes[name][value] = key
        elif isinstance(value, dict):
            if key not in axes:
                raise ValueError(f"dynamic_dims: unknown input {key!r} "
                                 f"(inputs: {', '.join(input_names)})")
            for axis, dim in value.items():
                if not isinstance(axis, int) or not isinstance(dim, str):
                    raise ValueError(f"dynamic_dims[{key!r}]: expected "
                                     f"{{AXIS: DIM_NAME}}, got {value!r}")
                axes[key][axis] = dim
        else:
            raise ValueError(f"dynamic_dims[{key!r}]: expected an axis (int) "
                             f"or {{AXIS: DIM_NAME}}, got {value!r}")
    return {name: a for name, a in axes.items() if a}


def export_torch(module, example_inputs, dynamic_dims=None, *,
                 input_names=None, opset=14):
    """Serializes `module` to ONNX bytes with torch.onnx.export (in memory,
    eval mode, constants folded: BatchNorm folds into conv biases).

    example_inputs: a tensor or a tuple of tensors (the traced shapes).
    dynamic_dims: names symbolic dims so that analyze(batch=..., dims=...)
      can rebind them: {"batch": 0} names axis 0 of every input "batch";
      {"input0": {0: "batch", 1: "sequence"}} names axes per input.
    input_names: the graph's input names (default "input0", "input1", ...).
    """
    torch = _torch()
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"module: expected a torch.nn.Module, got "
                        f"{type(module).__name__}")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    elif isinstance(example_inputs, list):
        example_inputs = tuple(example_inputs)
    if not isinstance(example_inputs, tuple) or not example_inputs:
        raise TypeError("example_inputs: expected a tensor or a non-empty "
                        "tuple of tensors")
    if input_names is None:
        input_names = [f"input{i}" for i in range(len(example_inputs))]
    input_names = list(input_names)
    axes = _dynamic_axes(dynamic_dims, input_names)
    was_training = module.training
    module.eval()
    buffer = io.BytesIO()
    try:
        # Not under torch.no_grad(): torch 1.13's nn.MultiheadAttention
        # takes a fused path without an ONNX export there
        # (tools/export_torchvision.py).
        torch.onnx.export(module, example_inputs, buffer,
                          opset_version=opset, input_names=input_names,
                          dynamic_axes=axes, do_constant_folding=True)
    finally:
        module.train(was_training)
    return buffer.getvalue()


def from_torch(module, example_inputs, dynamic_dims=None, hw="h100", *,
               input_names=None, opset=14, name=None, **options):
    """Analyzes a torch.nn.Module: export_torch() into memory, then
    analyze() (hw, batch, dims, precision, runtime, ... as there). `name`
    names the model in messages (default "torch:CLASSNAME")."""
    from . import analyze  # the package's, after it is initialized

    data = export_torch(module, example_inputs, dynamic_dims,
                        input_names=input_names, opset=opset)
    return analyze(data, hw, name=name or f"torch:{type(module).__name__}",
                   **options)
