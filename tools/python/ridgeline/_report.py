"""Report, Sweep, WhatIf and Serving: results of ridgeline.analyze /
sweep / what_if / serve."""

import html


def _pandas():
    try:
        import pandas
    except ImportError as e:  # optional dependency
        raise ImportError("to_pandas() needs pandas (Debian: apt-get install "
                          "python3-pandas)") from e
    return pandas


def _ms(seconds):
    return f"{seconds * 1e3:.4g} ms"


class Report:
    """One model analyzed on one device (the analyze CLI's report).

    Headline figures (from the library's summary, SI units):
      latency_s, throughput_per_s (batch / latency), bound ("compute" or
      "memory": the regime holding the largest share of time), mfu
      ((FLOPs / latency) / peak), batch, macs, flops, bytes, params.
    Records with every field of the JSON report (engine/report/
    JSON_SCHEMA.md): summary, layers (one dict per layer, topological
    order), assumptions, hardware_info; to_dict() is the whole document.
    Output: to_json(), to_html() (the self-contained HTML report),
    _repr_html_() (Jupyter), to_pandas() (layers as a DataFrame; needs
    pandas), str(report) (the CLI's table).
    """

    def __init__(self, session):
        self._session = session
        self._summary = session.summary
        self._document = None

    # Headline figures ------------------------------------------------------
    latency_s = property(lambda self: self._summary["latency_s"])
    throughput_per_s = property(lambda self: self._summary["throughput_per_s"])
    bound = property(lambda self: self._summary["bound"])
    mfu = property(lambda self: self._summary["mfu"])
    batch = property(lambda self: self._summary["batch"])
    macs = property(lambda self: self._summary["macs"])
    flops = property(lambda self: self._summary["flops"])
    bytes = property(lambda self: self._summary["bytes"])
    params = property(lambda self: self._summary["params"])
    model = property(lambda self: self._session.model,
                     doc="The model's name: its path, 'zoo:NAME' or the "
                     "name given to from_torch / analyze(bytes).")
    hardware = property(lambda self: self._session.hardware,
                        doc="The device's key, e.g. 'a100-sxm'.")
    runtime = property(lambda self: self._session.runtime,
                       doc="The runtime profile's key, e.g. 'compiled'.")
    warnings = property(lambda self: list(self._session.warnings),
                        doc="The CLI's warnings (also issued with "
                        "warnings.warn).")

    # JSON records ----------------------------------------------------------
    def to_dict(self):
        """The whole JSON report as Python objects (a fresh copy)."""
        return self._session.document()

    def _doc(self):
        if self._document is None:
            self._document = self._session.document()
        return self._document

    summary = property(lambda self: self._doc()["summary"])
    layers = property(lambda self: self._doc()["layers"])
    assumptions = property(lambda self: self._doc()["assumptions"])
    hardware_info = property(lambda self: self._doc()["hardware"])
    parallel = property(
        lambda self: self._doc()["summary"].get("parallel"),
        doc="With tp/pp/ep: the summary's \"parallel\" section (widths, "
        "weights and fit per GPU, collectives, pipeline); else None.")
    gpus = property(lambda self: self._doc()["summary"].get("gpus", 1),
                    doc="GPUs of the run: tp x pp x ep (1 unsharded).")

    # Output ----------------------------------------------------------------
    def to_json(self, indent=2):
        """The CLI's `--format json` document, as text."""
        return self._session.to_json(indent)

    def to_html(self):
        """The CLI's `--format html` page: self-contained HTML."""
        return self._session.to_html()

    def _repr_html_(self):
        # The page has its own styles and scripts: isolated in an iframe.
        page = html.escape(self.to_html(), quote=True)
        return (f'<iframe srcdoc="{page}" style="width:100%;height:720px;'
                f'border:0"></iframe>')

    def to_pandas(self):
        """The layers as a pandas DataFrame, one row per layer."""
        return _pandas().DataFrame(self.layers)

    def whole_model(self):
        """Whole-model (one roofline per model) estimates: [lumped] or,
        with mlsysim=True, [lumped, mlsysim]; dicts as the JSON report's
        "whole_model" (method, flops, bytes, intensity, t_compute_s,
        t_memory_s, t_overhead_s, latency_s, throughput_per_s, mfu,
        bound)."""
        return self._session.whole_model()

    def sweep(self, batches=None, hw=None, tp=None, pp=None, ep=None):
        """This model re-priced per batch (batches=[1, 2, 4] or a CLI LIST
        such as "1,2,4,...,256" or "1:64") or per device (hw=["a100",
        "h100"]), or sharded per tensor-, pipeline- or expert-parallel
        width (tp=[1, 2, 4, 8], pp=..., ep=...), with this report's
        options. Returns a Sweep."""
        return Sweep(
            self._session.sweep(sweep_spec(batches, hw, tp, pp, ep)))

    def __str__(self):
        return self._session.table()

    def __repr__(self):
        return (f"<ridgeline.Report {self.model} on {self.hardware} "
                f"({self.runtime}), batch {self.batch}: "
                f"{_ms(self.latency_s)}, {self.throughput_per_s:.4g} /s, "
                f"{self.bound}-bound, MFU {self.mfu:.1%}>")


def _list(name, values):
    """A sweep LIST: the CLI's syntax as given, or a list of integers."""
    if isinstance(values, str):
        return values
    try:
        return ",".join(str(v) for v in list(values))
    except TypeError:
        raise TypeError(f"{name}: expected a list of integers or a string "
                        "such as '1,2,4,...,256'") from None


def sweep_spec(batches, hw, tp=None, pp=None, ep=None):
    """The CLI's --sweep value for batches=..., hw=..., tp=..., pp=... or
    ep=... (exactly one)."""
    given = {"batch": batches, "hw": hw, "tp": tp, "pp": pp, "ep": ep}
    given = {k: v for k, v in given.items() if v is not None}
    if len(given) != 1:
        raise ValueError("sweep: give exactly one of batches=..., hw=..., "
                         "tp=..., pp=... or ep=...")
    (axis, values), = given.items()
    if axis == "hw":
        names = [values] if isinstance(values, str) else list(values)
        return "hw=" + ",".join(str(n) for n in names)
    return f"{axis}=" + _list("batches" if axis == "batch" else axis, values)


class Sweep:
    """Rows of a batch, device or parallel-width sweep (the CLI's --sweep;
    fields as its JSON "sweep" section).

    points: dicts with batch (or hardware), latency_s, throughput_per_s,
    bound, mfu, flops, bytes and, with whole_model=True, whole_model; tp,
    pp and ep sweeps add the width (under "tp", "pp" or "ep"), gpus,
    speedup, weight_bytes_per_gpu, fits_in_memory_per_gpu, collective_s.
    bound_flip: where the layer-level bound flips ({"index", "from", "to",
    ...}) or None; whole_model_bound_flip likewise. interpolated: batch
    sweeps priced from a few analyses (every layer affine in the batch).
    str(sweep): the CLI's table.
    """

    def __init__(self, result):
        data, self._text = result
        self.data = data
        self.axis = data.get("axis")
        self.points = data.get("points", [])
        self.bound_flip = data.get("bound_flip")
        self.whole_model_bound_flip = data.get("whole_model_bound_flip")
        self.interpolated = data.get("interpolated")

    def __iter__(self):
        return iter(self.points)

    def __len__(self):
        return len(self.points)

    def __getitem__(self, i):
        return self.points[i]

    def __str__(self):
        return self._text

    def __repr__(self):
        return f"<ridgeline.Sweep over {self.axis}, {len(self.points)} points>"

    def to_pandas(self):
        """The points as a pandas DataFrame."""
        return _pandas().DataFrame(self.points)


class WhatIf:
    """Fusion and quantization what-ifs (the CLI's --fuse, --weights,
    --activations, --kv-cache, --what-if): `data` holds the JSON report's
    what-if sections as dicts, str(what_if) the CLI's tables; `report` is
    the analysis as stored."""

    def __init__(self, report, data, text):
        self.report = report
        self.data = data
        self._text = text

    def __str__(self):
        return self._text

    def __repr__(self):
        return f"<ridgeline.WhatIf sections {sorted(self.data)}>"


class Serving:
    """LLM serving of a decoder (the CLI's --serve; fields as its JSON
    "serve" section, engine/report/JSON_SCHEMA.md).

    Headline figures (SI units): ttft_s (prefill of the prompt at the
    concurrency, the runtime's per-request cost included), tpot_s (mean
    time per output token over the generation), request_latency_s (TTFT +
    every decode step), output_tokens_per_s (per request),
    aggregate_output_tokens_per_s, kv_bytes_per_token, max_concurrency (the
    most requests whose weights, KV cache, activations and reserve fit),
    joules_per_token. tpot_by_context: [{"context", "tpot_s"}] for every
    analyzed decode step; memory: the memory stack (per GPU when sharded).
    search: the --search section (Pareto set, cheapest configuration) when
    opened with search=True, else None. report: the analysis of the first
    decode step (its layers, its "parallel" section with tp/pp/ep).
    data: the whole "serve" section. str(serving): the CLI's text.
    """

    def __init__(self, report, session, document):
        self.report = report
        self.data = document["serve"]
        self.search = document.get("search")
        self._session = session
        self._text = None  # the CLI's text, made on demand

    def __getattr__(self, name):
        # The "serve" section's fields as attributes (ttft_s, tpot_s, ...).
        data = self.__dict__.get("data")
        if data is not None and name in data:
            return data[name]
        raise AttributeError(f"'Serving' object has no attribute {name!r}")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.data))

    def to_dict(self):
        """The "serve" section as Python objects."""
        return dict(self.data)

    def to_pandas(self):
        """tpot_by_context as a pandas DataFrame (context, tpot_s)."""
        return _pandas().DataFrame(self.data["tpot_by_context"])

    def sweep(self, concurrency):
        """This serving run at each concurrency (a list, or the CLI's LIST
        such as "1,8,32" or "1,2,4,...,64"): the CLI's --sweep
        concurrency=LIST with this run's options. Returns a Sweep whose
        points are "serve" sections (concurrency, ttft_s, tpot_s,
        aggregate_output_tokens_per_s, memory, ...)."""
        return Sweep(self._session.serve_sweep(
            _list("concurrency", concurrency)))

    def __str__(self):
        if self._text is None:
            self._text = self._session.mode_text()
        return self._text

    def __repr__(self):
        d = self.data
        return (f"<ridgeline.Serving {self.report.model} on "
                f"{self.report.hardware}: prompt {d['prompt_tokens']}, "
                f"generate {d['generate_tokens']}, concurrency "
                f"{d['concurrency']}: TTFT {_ms(d['ttft_s'])}, TPOT "
                f"{_ms(d['tpot_s'])}, {d['aggregate_output_tokens_per_s']:.4g}"
                f" tokens/s>")
