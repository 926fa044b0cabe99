"""ridgeline: layer-level roofline analysis of ML models, from Python.

The same C++ library as the `analyze` CLI (a pybind11 extension,
ridgeline._core): every number equals the CLI's for the same arguments.

    import ridgeline
    r = ridgeline.analyze(ridgeline.zoo("resnet50"), hw="a100", batch=1,
                          precision="fp16")
    print(r.latency_s, r.throughput_per_s, r.bound, r.mfu)
    for p in r.sweep(batches=[1, 8, 32, 128, 256]):
        print(p["batch"], p["throughput_per_s"], p["bound"])

Errors: ValueError for bad arguments (unknown device, precision, runtime,
out-of-range values; the message is the CLI's), TypeError for arguments of
the wrong type, ridgeline.ModelError (a ValueError) for models that cannot
be imported.
"""

import warnings as _warnings

from . import _core
from ._core import ModelError
from ._options import ZooModel, open_session
from ._report import Report, Serving, Sweep, WhatIf, sweep_spec
from ._torch import export_torch, from_torch

__all__ = [
    "ModelError", "Report", "Serving", "Sweep", "WhatIf", "ZooModel",
    "analyze", "export_torch", "from_torch", "hardware", "runtimes", "serve",
    "sweep", "what_if", "zoo", "zoo_models",
]


def _warn(report):
    for line in report.warnings:
        _warnings.warn(line, RuntimeWarning, stacklevel=3)
    return report


def analyze(model, hw="h100", batch=None, dims=None, precision=None,
            runtime=None, *, name=None, **options):
    """Analyzes a model on a device; returns a Report.

    model: a path to an ONNX file, bytes (a serialized ONNX model; `name`
      is its name in messages), or ridgeline.zoo(NAME).
    hw: a device of hardware() (key, name or alias, any case); a list draws
      every device's roof in to_html(), the figures use the first.
    batch: binds the symbolic first dim of every input (zoo: the "batch"
      dim); throughput = batch / latency.
    dims: {NAME: VALUE} binds symbolic input dims (wins over batch).
    precision: re-prices every floating tensor at fp32|tf32|fp16|bf16|fp8|
      int8|int4 and uses its peak (default: the model's dtypes).
    runtime: a runtimes() key or a profile .json (default: "compiled" on a
      GPU, "ort-cpu" on a CPU; "mlsysim" with mlsysim=True).
    options: flops_per_mac (1|2), efficiency, memory_efficiency,
      layer_tax_us, dispatch_tax_us, mlsysim, whole_model, top, all_layers,
      and tp, pp, ep, microbatches (sharded over tp x pp x ep GPUs:
      latency_s is one inference of the whole sharded model; see
      Report.parallel): the CLI's flags of the same names (analyze --help).
    """
    session = open_session(model, hw, dims=dims, name=name, batch=batch,
                           precision=precision, runtime=runtime, **options)
    return _warn(Report(session))


def sweep(model, hw="h100", batches=None, devices=None, tp=None, pp=None,
          ep=None, **options):
    """Sweeps a model over batch sizes (batches=[1, 2, 4] or "1,2,...,256"),
    devices (devices=["a100", "h100"]) or tensor-, pipeline- or
    expert-parallel widths (tp=[1, 2, 4, 8], pp=..., ep=...); other
    arguments as analyze(). Returns a Sweep (the CLI's --sweep)."""
    spec = sweep_spec(batches, devices, tp, pp, ep)
    session = open_session(model, hw, **options)
    _warn(Report(session))
    return Sweep(session.sweep(spec))


def what_if(model, hw="h100", fuse=None, weights=None, activations=None,
            kv_cache=None, int4_group=None, **options):
    """Fusion and quantization what-ifs. fuse: none|epilogue|elementwise|
    attention|all (or "a,b"); weights: int8|int4|fp8|fp16; activations:
    int8|fp8|fp16; kv_cache: int8|fp8|fp16; int4_group: elements per int4
    scale. With none of them, every fusion level and quantization and the
    best combination (the CLI's --what-if). Other arguments as analyze().
    Returns a WhatIf."""
    asked = (fuse, weights, activations, kv_cache)
    session = open_session(
        model, hw, fuse=fuse, weights=weights, activations=activations,
        kv_cache=kv_cache, int4_group=int4_group,
        what_if=all(a is None for a in asked), **options)
    data, text = session.what_if()
    return WhatIf(_warn(Report(session)), data, text)


def serve(model, hw="h100", prompt=None, generate=None, concurrency=None,
          **options):
    """LLM serving of a decoder (the CLI's --serve): time to first token,
    time per output token as the KV cache grows, request latency, tokens/s,
    memory and the largest concurrency that fits. Returns a Serving.

    model: a decoder zoo entry (e.g. ridgeline.zoo("llama-3.1-8b-decode"))
      or an ONNX decoder with past-KV inputs (path or bytes).
    prompt, generate: tokens per request (required); concurrency: requests
      decoded together (default 1).
    options: as analyze() (precision, runtime, tp, pp, ep, microbatches,
      ...), and kv_dim (the past-length dim), usd_per_gpu_hour (adds the
      cost per million tokens), search=True with ttft_max / tpot_max
      (seconds) for the CLI's --search (Serving.search).
    """
    if prompt is None or generate is None:
        raise ValueError("serve: prompt= and generate= (tokens per request) "
                         "are required")
    session = open_session(model, hw, serve=True, prompt=prompt,
                           generate=generate, concurrency=concurrency,
                           **options)
    report = _warn(Report(session))
    document = session.document()
    report._document = document  # the decode step's layers, already priced
    return Serving(report, session, document)


def zoo(name):
    """A built-in model by name (case-insensitive; see zoo_models())."""
    if not isinstance(name, str):
        raise TypeError(f"zoo: expected a name, got {type(name).__name__}")
    return ZooModel(_core.zoo_name(name))


def zoo_models():
    """The built-in models: dicts with name, description, params,
    native_precision (the published checkpoint's dtype an analysis uses
    without precision=; None: the graph's own dtypes) and
    native_precision_source, default_dims, source: the entries of the CLI's
    --list-zoo --format json."""
    return _core.zoo_models()


def hardware():
    """The built-in devices: dicts with key, name, aliases,
    peak_flops_per_s (per precision), memory_bandwidth_bytes_per_s,
    memory_capacity_bytes, tdp_w, dispatch_tax_s, source (--list-hw)."""
    return _core.hardware()


def runtimes():
    """The built-in runtime profiles: dicts with key, name, aliases, device,
    summary, fusion, fuse_sibling_gemms, kv_append_in_place,
    attention_prologue_fused, host_shape_ops, efficiency_model, launch_model, custom_all_reduce (when set), sources:
    the entries of the CLI's --list-runtimes --format json."""
    return _core.runtimes()
