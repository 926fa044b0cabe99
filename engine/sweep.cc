#include "engine/sweep.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "engine/l2.h"
#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"

namespace ridgeline::engine {
namespace {

constexpr size_t kMaxPoints = 100000;

// One layer's device-independent cost as an affine function of the batch:
// value(b) = value0 + (b - batch0) * slope (the whole-model totals).
struct LayerLine {
  double macs0 = 0, macs_slope = 0;
  double other0 = 0, other_slope = 0;
  double bytes0 = 0, bytes_slope = 0;
  bool view = false;
};

// One kernel's work as an affine function of the batch; timed by the one
// timing function (engine/timing.h) at every point.
struct KernelLine {
  KernelWork work0;
  KernelWork slope;  // per unit of batch: FLOPs, bytes, GEMM m and batch
};

KernelWork At(const KernelLine& l, double db) {
  KernelWork w = l.work0;
  w.matrix_flops += db * l.slope.matrix_flops;
  w.other_flops += db * l.slope.other_flops;
  w.bytes += db * l.slope.bytes;
  w.weight_bytes += db * l.slope.weight_bytes;
  w.gemm.batch += db * l.slope.gemm.batch;
  w.gemm.m += db * l.slope.gemm.m;
  w.gemm.n += db * l.slope.gemm.n;
  w.gemm.k += db * l.slope.gemm.k;
  return w;
}

KernelWork Slope(const KernelWork& x, const KernelWork& y, double db) {
  KernelWork s;
  s.matrix_flops = (y.matrix_flops - x.matrix_flops) / db;
  s.other_flops = (y.other_flops - x.other_flops) / db;
  s.bytes = (y.bytes - x.bytes) / db;
  s.weight_bytes = (y.weight_bytes - x.weight_bytes) / db;
  s.gemm.batch = (y.gemm.batch - x.gemm.batch) / db;
  s.gemm.m = (y.gemm.m - x.gemm.m) / db;
  s.gemm.n = (y.gemm.n - x.gemm.n) / db;
  s.gemm.k = (y.gemm.k - x.gemm.k) / db;
  return s;
}

std::vector<LayerLine> LinesOf(const Analysis& a) {
  std::vector<LayerLine> lines;
  lines.reserve(a.layers.size());
  for (const LayerResult& layer : a.layers) {
    if (layer.skipped) continue;
    LayerLine l;
    l.macs0 = layer.cost.macs;
    l.other0 = layer.cost.other_flops;
    l.bytes0 = layer.cost.Bytes();
    l.view = layer.cost.view;
    lines.push_back(l);
  }
  return lines;
}

std::vector<KernelLine> KernelLinesOf(const Analysis& a) {
  std::vector<KernelLine> lines;
  lines.reserve(a.kernels.size());
  for (const KernelResult& k : a.kernels) lines.push_back({k.work, {}});
  return lines;
}

// The analysis' kernels at batch offset `db` (b - batch0), each timed by
// TimeKernel, plus the per-inference cost; bound by the regime holding the
// larger share of time. Also fills the whole-model totals.
SweepPoint Price(const std::vector<LayerLine>& lines,
                 const std::vector<KernelLine>& kernels, double db,
                 const Pricing& p, WholeModelTotals* totals) {
  double flops = 0, bytes = 0, macs = 0;
  int64_t layers = 0, mac_layers = 0;
  for (const LayerLine& l : lines) {
    const double m = l.macs0 + db * l.macs_slope;
    macs += m;
    flops += m * p.flops_per_mac + l.other0 + db * l.other_slope;
    bytes += l.bytes0 + db * l.bytes_slope;
    if (m > 0) ++mac_layers;
    if (!l.view) ++layers;
  }
  double latency = 0, compute_time = 0, memory_time = 0;
  for (const KernelLine& k : kernels) {
    const KernelTime t = TimeKernel(At(k, db), p);
    latency += t.latency_s;
    (t.regime == Regime::kMemory ? memory_time : compute_time) += t.latency_s;
  }
  SweepPoint point;
  point.latency_s = latency + p.per_inference_s;
  point.flops = flops;
  point.bytes = bytes;
  point.mfu =
      point.latency_s > 0 ? (flops / point.latency_s) / p.peak_flops_per_s : 0;
  if (compute_time > 0 || memory_time > 0) {
    point.bound = memory_time > compute_time ? Bound::kMemory : Bound::kCompute;
  }
  if (totals != nullptr) {
    totals->macs = macs;
    totals->flops = flops;
    totals->bytes = bytes;
    totals->layers = layers;
    totals->mac_layers = mac_layers;
  }
  return point;
}

// The pricing of `a` moved to another device (same runtime, overrides
// already folded into the runtime; the device's own kernel constants).
Pricing PricingOn(const Analysis& a, const Hardware& hw, double peak,
                  double per_inference_s) {
  PricingOverrides o;
  o.per_inference_s = per_inference_s;
  Pricing p = MakePricing(hw, a.pricing.runtime, a.assumptions.peak_precision,
                          peak, a.pricing.flops_per_mac, o);
  p.weight_only = a.pricing.weight_only;
  return p;
}

// Fills throughput and the whole-model estimate of a priced point.
absl::Status Finish(SweepPoint* point, int64_t batch, WholeModelTotals totals,
                    const Assumptions& assumptions,
                    const SweepOptions& options) {
  point->batch = batch;
  point->throughput_per_s =
      point->latency_s > 0 ? static_cast<double>(batch) / point->latency_s : 0;
  if (options.whole_model.has_value()) {
    totals.batch = batch;
    absl::StatusOr<WholeModelResult> w =
        WholeModelFromTotals(totals, assumptions, *options.whole_model);
    if (!w.ok()) return w.status();
    point->whole_model = *w;
  }
  return absl::OkStatus();
}

void FindFlips(SweepResult* r) {
  for (size_t i = 1; i < r->points.size(); ++i) {
    if (!r->layer_flip && r->points[i].bound != r->points[i - 1].bound) {
      r->layer_flip = i;
    }
    if (!r->whole_model_flip && r->points[i].whole_model &&
        r->points[i - 1].whole_model &&
        r->points[i].whole_model->bound !=
            r->points[i - 1].whole_model->bound) {
      r->whole_model_flip = i;
    }
  }
}

// True when `a` and `b` list the same layers (same nodes, same view/skip)
// and the same kernels (same member layers, same class, the same L2
// residency: a step in the batch, not a line; engine/l2.h).
bool SameLayers(const Analysis& a, const Analysis& b) {
  if (a.layers.size() != b.layers.size()) return false;
  if (a.kernels.size() != b.kernels.size()) return false;
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    const KernelWork& x = a.kernels[i].work;
    const KernelWork& y = b.kernels[i].work;
    if (a.kernels[i].layers != b.kernels[i].layers || x.kind != y.kind ||
        x.l2_activation_share != y.l2_activation_share ||
        x.l2_weights != y.l2_weights) {
      return false;
    }
  }
  for (size_t i = 0; i < a.layers.size(); ++i) {
    const LayerResult& x = a.layers[i];
    const LayerResult& y = b.layers[i];
    if (x.node != y.node || x.name != y.name || x.skipped != y.skipped ||
        x.cost.view != y.cost.view) {
      return false;
    }
  }
  return true;
}

bool Close(double predicted, double actual, double tolerance) {
  return std::abs(predicted - actual) <=
         tolerance * std::max(1.0, std::abs(actual));
}

absl::StatusOr<int64_t> ParsePositive(std::string_view text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || v < 1) {
    return absl::InvalidArgumentError(
        fmt::format("'{}' is not a positive integer", text));
  }
  return v;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.push_back(Trim(s.substr(start, pos - start)));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> ParseBatchList(std::string_view list) {
  std::vector<int64_t> out;
  std::vector<std::string_view> terms = Split(list, ',');
  auto too_many = [&]() {
    return absl::InvalidArgumentError(
        fmt::format("sweep has more than {} points", kMaxPoints));
  };
  for (size_t i = 0; i < terms.size(); ++i) {
    std::string_view t = terms[i];
    if (t == "...") {
      if (out.size() < 2 || i + 1 >= terms.size() || terms[i + 1] == "...") {
        return absl::InvalidArgumentError(
            "'...' needs two values before it and one after it "
            "(1,2,4,...,256)");
      }
      absl::StatusOr<int64_t> last = ParsePositive(terms[i + 1]);
      if (!last.ok()) return last.status();
      const size_t n = out.size();
      const int64_t a = out[n - 2], b = out[n - 1];
      const bool geometric =
          n >= 3 && out[n - 3] * b == a * a && b > a && b % a == 0;
      if (geometric) {
        const int64_t ratio = b / a;
        for (int64_t v = b; v <= *last / ratio && v * ratio < *last;) {
          v *= ratio;
          out.push_back(v);
          if (out.size() > kMaxPoints) return too_many();
        }
      } else {
        const int64_t step = b - a;
        if (step <= 0) {
          return absl::InvalidArgumentError(
              "'...' needs increasing values before it");
        }
        for (int64_t v = b + step; v < *last; v += step) {
          out.push_back(v);
          if (out.size() > kMaxPoints) return too_many();
        }
      }
      continue;  // the value after "..." is added as the next term
    }
    if (t.find(':') != std::string_view::npos) {
      std::vector<std::string_view> parts = Split(t, ':');
      if (parts.size() > 3) {
        return absl::InvalidArgumentError(
            fmt::format("bad range '{}' (expected A:B or A:B:STEP)", t));
      }
      absl::StatusOr<int64_t> lo = ParsePositive(parts[0]);
      absl::StatusOr<int64_t> hi = ParsePositive(parts[1]);
      absl::StatusOr<int64_t> step = parts.size() == 3
                                         ? ParsePositive(parts[2])
                                         : absl::StatusOr<int64_t>(1);
      if (!lo.ok()) return lo.status();
      if (!hi.ok()) return hi.status();
      if (!step.ok()) return step.status();
      if (*hi < *lo) {
        return absl::InvalidArgumentError(
            fmt::format("bad range '{}': end below start", t));
      }
      if (static_cast<size_t>((*hi - *lo) / *step) + out.size() >= kMaxPoints) {
        return too_many();
      }
      for (int64_t v = *lo; v <= *hi; v += *step) out.push_back(v);
      continue;
    }
    absl::StatusOr<int64_t> v = ParsePositive(t);
    if (!v.ok()) return v.status();
    out.push_back(*v);
    if (out.size() > kMaxPoints) return too_many();
  }
  if (out.empty()) return absl::InvalidArgumentError("empty batch list");
  return out;
}

}  // namespace

absl::StatusOr<SweepSpec> ParseSweepSpec(std::string_view spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string_view::npos) {
    return absl::InvalidArgumentError(fmt::format(
        "bad --sweep '{}' (expected batch=1,2,4,...,256 or hw=a100,h100)",
        spec));
  }
  const std::string_view axis = Trim(spec.substr(0, eq));
  const std::string_view list = spec.substr(eq + 1);
  SweepSpec out;
  if (axis == "batch") {
    out.axis = SweepSpec::Axis::kBatch;
    absl::StatusOr<std::vector<int64_t>> batches = ParseBatchList(list);
    if (!batches.ok()) {
      return absl::InvalidArgumentError(fmt::format(
          "bad --sweep '{}': {}", spec, MessageOf(batches.status())));
    }
    out.batches = std::move(*batches);
    return out;
  }
  if (axis == "concurrency") {
    out.axis = SweepSpec::Axis::kConcurrency;
    absl::StatusOr<std::vector<int64_t>> c = ParseBatchList(list);
    if (!c.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("bad --sweep '{}': {}", spec, MessageOf(c.status())));
    }
    for (int64_t v : *c) {
      if (v > (int64_t{1} << 24)) {
        return absl::InvalidArgumentError(fmt::format(
            "bad --sweep '{}': concurrency {} is more than 16777216", spec, v));
      }
    }
    out.concurrency = std::move(*c);
    return out;
  }
  const std::optional<SweepSpec::Axis> parallel =
      axis == "tp"   ? std::optional(SweepSpec::Axis::kTensorParallel)
      : axis == "pp" ? std::optional(SweepSpec::Axis::kPipelineParallel)
      : axis == "ep" ? std::optional(SweepSpec::Axis::kExpertParallel)
                     : std::nullopt;
  if (parallel) {
    out.axis = *parallel;
    absl::StatusOr<std::vector<int64_t>> widths = ParseBatchList(list);
    if (!widths.ok()) {
      return absl::InvalidArgumentError(fmt::format(
          "bad --sweep '{}': {}", spec, MessageOf(widths.status())));
    }
    for (int64_t w : *widths) {
      if (w > 4096) {
        return absl::InvalidArgumentError(fmt::format(
            "bad --sweep '{}': {} {} is more than 4096 GPUs", spec, axis, w));
      }
    }
    out.widths = std::move(*widths);
    return out;
  }
  if (axis == "hw" || axis == "hardware") {
    out.axis = SweepSpec::Axis::kHardware;
    for (std::string_view name : Split(list, ',')) {
      if (name.empty()) {
        return absl::InvalidArgumentError(
            fmt::format("bad --sweep '{}': empty device name", spec));
      }
      out.hardware.emplace_back(name);
    }
    return out;
  }
  return absl::InvalidArgumentError(fmt::format(
      "bad --sweep '{}': axis must be batch, hw, tp or concurrency (got "
      "'{}')",
      spec, axis));
}

SweepPoint PricePoint(const Analysis& analysis, const Hardware& hardware,
                      double peak_flops_per_s, double dispatch_tax_s) {
  const Pricing p =
      PricingOn(analysis, hardware, peak_flops_per_s, dispatch_tax_s);
  SweepPoint point =
      Price(LinesOf(analysis), KernelLinesOf(analysis), 0, p, nullptr);
  point.batch = analysis.batch;
  point.hardware = hardware.key;
  point.throughput_per_s =
      point.latency_s > 0
          ? static_cast<double>(analysis.batch) / point.latency_s
          : 0;
  return point;
}

absl::StatusOr<SweepResult> SweepBatch(const AnalyzeAtBatch& analyze,
                                       const std::vector<int64_t>& batches,
                                       const SweepOptions& options) {
  if (batches.empty()) return absl::InvalidArgumentError("empty batch sweep");
  for (int64_t b : batches) {
    if (b < 1) {
      return absl::InvalidArgumentError(
          fmt::format("batch must be >= 1 (got {})", b));
    }
  }
  SweepResult result;
  result.axis = SweepSpec::Axis::kBatch;

  // Fallback: analyze every point in full.
  auto analyze_each = [&]() -> absl::Status {
    result.points.clear();
    for (int64_t b : batches) {
      absl::StatusOr<Analysis> a = analyze(b);
      ++result.analyses;
      if (!a.ok()) return a.status();
      SweepPoint point =
          Price(LinesOf(*a), KernelLinesOf(*a), 0, a->pricing, nullptr);
      point.hardware = a->hardware.key;
      WholeModelTotals totals = TotalsOf(*a);
      if (absl::Status s = Finish(&point, b, totals, a->assumptions, options);
          !s.ok()) {
        return s;
      }
      result.points.push_back(std::move(point));
    }
    return absl::OkStatus();
  };

  const int64_t b1 = 1, b2 = 2;
  const int64_t bmax = *std::max_element(batches.begin(), batches.end());
  absl::StatusOr<Analysis> a1 = analyze(b1);
  ++result.analyses;
  if (!a1.ok()) return a1.status();
  absl::StatusOr<Analysis> a2 = analyze(b2);
  ++result.analyses;
  if (!a2.ok()) return a2.status();
  if (!SameLayers(*a1, *a2)) {
    if (absl::Status s = analyze_each(); !s.ok()) return s;
    FindFlips(&result);
    return result;
  }

  // Lines through the two analyses.
  std::vector<LayerLine> lines;
  std::vector<const LayerResult*> kept;
  lines.reserve(a1->layers.size());
  const Hardware& hw = a1->hardware;
  const Assumptions& as = a1->assumptions;
  const double db12 = static_cast<double>(b2 - b1);
  for (size_t i = 0; i < a1->layers.size(); ++i) {
    const LayerResult& x = a1->layers[i];
    const LayerResult& y = a2->layers[i];
    if (x.skipped) continue;
    LayerLine l;
    l.macs0 = x.cost.macs;
    l.macs_slope = (y.cost.macs - x.cost.macs) / db12;
    l.other0 = x.cost.other_flops;
    l.other_slope = (y.cost.other_flops - x.cost.other_flops) / db12;
    l.bytes0 = x.cost.Bytes();
    l.bytes_slope = (y.cost.Bytes() - x.cost.Bytes()) / db12;
    l.view = x.cost.view;
    lines.push_back(l);
    kept.push_back(&x);
  }
  std::vector<KernelLine> kernel_lines;
  kernel_lines.reserve(a1->kernels.size());
  for (size_t i = 0; i < a1->kernels.size(); ++i) {
    kernel_lines.push_back(
        {a1->kernels[i].work,
         Slope(a1->kernels[i].work, a2->kernels[i].work, db12)});
  }

  // Verify at the largest batch.
  bool affine = true;
  if (bmax > b2) {
    absl::StatusOr<Analysis> a3 = analyze(bmax);
    ++result.analyses;
    if (!a3.ok()) return a3.status();
    if (!SameLayers(*a1, *a3)) {
      affine = false;
    } else {
      const double db = static_cast<double>(bmax - b1);
      size_t k = 0;
      for (const LayerResult& z : a3->layers) {
        if (z.skipped) continue;
        const LayerLine& l = lines[k];
        const bool ok = Close(l.macs0 + db * l.macs_slope, z.cost.macs,
                              options.affine_tolerance) &&
                        Close(l.other0 + db * l.other_slope, z.cost.other_flops,
                              options.affine_tolerance) &&
                        Close(l.bytes0 + db * l.bytes_slope, z.cost.Bytes(),
                              options.affine_tolerance);
        if (!ok) {
          affine = false;
          if (result.non_affine_layers.size() < 10) {
            result.non_affine_layers.push_back(kept[k]->name);
          }
        }
        ++k;
      }
    }
  }
  if (!affine) {
    if (absl::Status s = analyze_each(); !s.ok()) return s;
    FindFlips(&result);
    return result;
  }

  result.interpolated = true;
  const Pricing& pricing = a1->pricing;
  WholeModelTotals totals = TotalsOf(*a1);
  result.points.reserve(batches.size());
  for (int64_t b : batches) {
    SweepPoint point = Price(lines, kernel_lines, static_cast<double>(b - b1),
                             pricing, &totals);
    point.hardware = hw.key;
    if (absl::Status s = Finish(&point, b, totals, as, options); !s.ok()) {
      return s;
    }
    result.points.push_back(std::move(point));
  }
  FindFlips(&result);
  return result;
}

std::optional<ParallelAxis> ParallelAxisOf(SweepSpec::Axis axis) {
  switch (axis) {
    case SweepSpec::Axis::kTensorParallel:
      return ParallelAxis::kTensor;
    case SweepSpec::Axis::kPipelineParallel:
      return ParallelAxis::kPipeline;
    case SweepSpec::Axis::kExpertParallel:
      return ParallelAxis::kExpert;
    default:
      return std::nullopt;
  }
}

absl::StatusOr<SweepResult> SweepParallel(const ShardAtWidth& shard,
                                          SweepSpec::Axis axis,
                                          const std::vector<int64_t>& widths) {
  const std::optional<ParallelAxis> parallel = ParallelAxisOf(axis);
  if (!parallel) {
    return absl::InvalidArgumentError("not a tp, pp or ep sweep");
  }
  const std::string_view name = ParallelAxisName(*parallel);
  if (widths.empty()) {
    return absl::InvalidArgumentError(fmt::format("empty {} sweep", name));
  }
  SweepResult result;
  result.axis = axis;
  for (int64_t w : widths) {
    absl::StatusOr<Analysis> a = shard(static_cast<int>(w));
    ++result.analyses;
    if (!a.ok()) {
      return absl::Status(
          a.status().code(),
          fmt::format("--sweep {}={}: {}", name, w, MessageOf(a.status())));
    }
    const Summary& s = a->summary;
    SweepPoint p;
    p.batch = a->batch;
    p.hardware = a->hardware.key;
    p.latency_s = s.latency_s;
    p.throughput_per_s =
        s.latency_s > 0 ? static_cast<double>(a->batch) / s.latency_s : 0;
    p.mfu = s.mfu;
    p.bound = s.bound;
    p.flops = s.flops;
    p.bytes = s.bytes;
    const ParallelOptions layout = LayoutAlong(*parallel, static_cast<int>(w));
    p.tp = layout.tp;
    p.pp = layout.pp;
    p.ep = layout.ep;
    p.gpus = layout.gpus();
    if (s.parallel) {
      p.gpus = s.parallel->gpus;
      p.weight_bytes_per_gpu = s.parallel->weight_bytes_per_gpu;
      p.fits_in_memory_per_gpu = s.parallel->fits_in_memory_per_gpu;
      p.collective_s = s.parallel->collective_s;
    }
    result.points.push_back(std::move(p));
  }
  FindFlips(&result);
  return result;
}

absl::StatusOr<SweepResult> SweepHardware(const Analysis& base,
                                          const AnalyzeOptions& options,
                                          const std::vector<Hardware>& devices,
                                          const AnalyzeOnHardware& analyze_on,
                                          const SweepOptions& sweep_options) {
  if (devices.empty()) return absl::InvalidArgumentError("empty device sweep");
  SweepResult result;
  result.axis = SweepSpec::Axis::kHardware;
  const bool reprice = !options.precision.empty() && options.pricer == nullptr;
  for (const Hardware& hw : devices) {
    // The kernels' L2 residency is the base device's: another L2 size needs
    // its own analysis.
    if (reprice && ModelledL2Bytes(base.pricing.runtime, hw) ==
                       base.assumptions.l2_cache_bytes) {
      absl::StatusOr<double> peak = hw.PeakFlops(options.precision);
      if (!peak.ok()) {
        return absl::InvalidArgumentError(
            fmt::format("precision {} is not supported by {}: {}",
                        options.precision, hw.name, MessageOf(peak.status())));
      }
      if (!(hw.memory_bandwidth_bytes_per_s > 0)) {
        return absl::InvalidArgumentError(
            fmt::format("hardware '{}' has no memory bandwidth", hw.name));
      }
      const double dispatch =
          options.dispatch_tax_s.value_or(hw.dispatch_tax_s);
      const Pricing p = PricingOn(base, hw, *peak, dispatch);
      WholeModelTotals totals = TotalsOf(base);
      SweepPoint point =
          Price(LinesOf(base), KernelLinesOf(base), 0, p, nullptr);
      point.hardware = hw.key;
      Assumptions a = base.assumptions;
      a.peak_flops_per_s = *peak;
      a.memory_bandwidth_bytes_per_s = hw.memory_bandwidth_bytes_per_s;
      a.dispatch_tax_s = dispatch;
      if (absl::Status s = Finish(&point, base.batch, totals, a, sweep_options);
          !s.ok()) {
        return s;
      }
      result.points.push_back(std::move(point));
      continue;
    }
    absl::StatusOr<Analysis> a = analyze_on(hw);
    ++result.analyses;
    if (!a.ok()) return a.status();
    SweepPoint point =
        Price(LinesOf(*a), KernelLinesOf(*a), 0, a->pricing, nullptr);
    point.hardware = hw.key;
    if (absl::Status s = Finish(&point, a->batch, TotalsOf(*a), a->assumptions,
                                sweep_options);
        !s.ok()) {
      return s;
    }
    result.points.push_back(std::move(point));
  }
  FindFlips(&result);
  return result;
}

namespace {

// The width of `p` along the sweep's dimension.
int WidthOf(const SweepPoint& p, ParallelAxis axis) {
  switch (axis) {
    case ParallelAxis::kTensor:
      return p.tp;
    case ParallelAxis::kPipeline:
      return p.pp;
    case ParallelAxis::kExpert:
      return p.ep;
  }
  return p.tp;
}

// --sweep tp=/pp=/ep=LIST: one row per width, speed-up against the first row.
std::string FormatParallelSweep(const SweepResult& r, ParallelAxis axis,
                                size_t max_width) {
  using report::FormatNumber;
  using report::FormatPercent;
  using report::FormatSeconds;
  report::TextTable table;
  table.headers = {std::string(ParallelAxisName(axis)),
                   "GPUs",
                   "latency",
                   "throughput",
                   "speed-up",
                   "bound",
                   "MFU per GPU",
                   "weights per GPU",
                   "fits",
                   "collectives"};
  table.right_align.assign(table.headers.size(), true);
  table.max_width = max_width;
  const double first = r.points.front().latency_s;
  for (const SweepPoint& p : r.points) {
    table.rows.push_back(
        {fmt::format("{}", WidthOf(p, axis)), fmt::format("{}", p.gpus),
         FormatSeconds(p.latency_s),
         fmt::format("{}/s", FormatNumber(p.throughput_per_s)),
         p.latency_s > 0 ? fmt::format("{:.2f}x", first / p.latency_s) : "-",
         std::string(BoundName(p.bound)), FormatPercent(p.mfu),
         report::FormatSi(p.weight_bytes_per_gpu, "B"),
         p.fits_in_memory_per_gpu ? "yes" : "NO",
         fmt::format("{} ({})", FormatSeconds(p.collective_s),
                     FormatPercent(
                         p.latency_s > 0 ? p.collective_s / p.latency_s : 0))});
  }
  std::string out = report::RenderText(table);
  const std::string_view what =
      axis == ParallelAxis::kTensor
          ? "tensor-parallel analysis: per-GPU kernels and the collectives"
      : axis == ParallelAxis::kPipeline
          ? "pipeline-parallel analysis: the stages in turn with their sends"
          : "expert-parallel analysis: the busiest GPU's kernels and the "
            "all-to-alls";
  out += fmt::format(
      "(each row a full {} of one inference on {}; speed-up = first row's "
      "latency / the row's)\n",
      what, r.points.front().hardware);
  return out;
}

}  // namespace

std::string FormatSweep(const SweepResult& r, size_t max_width) {
  using report::FormatNumber;
  using report::FormatPercent;
  using report::FormatSeconds;
  if (const std::optional<ParallelAxis> axis = ParallelAxisOf(r.axis)) {
    return r.points.empty() ? std::string()
                            : FormatParallelSweep(r, *axis, max_width);
  }
  const bool by_batch = r.axis == SweepSpec::Axis::kBatch;
  const bool whole = !r.points.empty() && r.points.front().whole_model;
  report::TextTable table;
  std::vector<std::string> header = {by_batch ? "batch" : "hardware", "latency",
                                     "throughput", "bound", "MFU"};
  if (whole) {
    const std::string m(
        WholeModelMethodName(r.points.front().whole_model->method));
    for (const char* h : {"latency", "throughput", "bound", "MFU"}) {
      header.push_back(fmt::format("{} ({})", h, m));
    }
  }
  table.right_align.assign(header.size(), true);
  table.right_align[0] = false;
  table.headers = std::move(header);
  table.max_width = max_width;
  for (const SweepPoint& p : r.points) {
    std::vector<std::string> row = {
        by_batch ? fmt::format("{}", p.batch) : p.hardware,
        FormatSeconds(p.latency_s),
        fmt::format("{}/s", FormatNumber(p.throughput_per_s)),
        std::string(BoundName(p.bound)), FormatPercent(p.mfu)};
    if (whole && p.whole_model) {
      const WholeModelResult& w = *p.whole_model;
      row.push_back(FormatSeconds(w.latency_s));
      row.push_back(fmt::format("{}/s", FormatNumber(w.throughput_per_s)));
      row.push_back(std::string(BoundName(w.bound)));
      row.push_back(FormatPercent(w.mfu));
    }
    table.rows.push_back(std::move(row));
  }
  std::string out = report::RenderText(table);
  auto flip_line = [&](std::optional<size_t> flip, bool whole_model,
                       std::string_view what) {
    if (!flip) {
      const SweepPoint& p = r.points.front();
      const Bound b = whole_model ? p.whole_model->bound : p.bound;
      return fmt::format("{} bound: {} at every point\n", what, BoundName(b));
    }
    const SweepPoint& before = r.points[*flip - 1];
    const SweepPoint& after = r.points[*flip];
    const Bound b0 = whole_model ? before.whole_model->bound : before.bound;
    const Bound b1 = whole_model ? after.whole_model->bound : after.bound;
    return fmt::format(
        "{} bound flips from {} to {} at {} {}\n", what, BoundName(b0),
        BoundName(b1), by_batch ? "batch" : "device",
        by_batch ? fmt::format("{}", after.batch) : after.hardware);
  };
  out += flip_line(r.layer_flip, false, "layer-level");
  if (whole) {
    out += flip_line(r.whole_model_flip, true,
                     fmt::format("whole-model ({})",
                                 WholeModelMethodName(
                                     r.points.front().whole_model->method)));
  }
  if (by_batch) {
    out += r.interpolated
               ? fmt::format(
                     "(costs interpolated from {} analyses: every "
                     "layer is affine in the batch)\n",
                     r.analyses)
               : fmt::format("({} full analyses: {})\n", r.analyses,
                             r.non_affine_layers.empty()
                                 ? std::string("layer lists differ by batch")
                                 : fmt::format("not affine in the batch: {}",
                                               r.non_affine_layers.front()));
  }
  return out;
}

nlohmann::ordered_json SweepJson(const SweepResult& r) {
  // Keys in alphabetical order, as the report has always listed them.
  using Json = nlohmann::ordered_json;
  const bool by_batch = r.axis == SweepSpec::Axis::kBatch;
  const std::optional<ParallelAxis> parallel = ParallelAxisOf(r.axis);
  const bool by_width = parallel.has_value();
  const std::string width_key =
      by_width ? std::string(ParallelAxisName(*parallel)) : "";
  Json points = Json::array();
  for (const SweepPoint& p : r.points) {
    Json j = Json::object();
    j["batch"] = p.batch;
    j["bound"] = std::string(BoundName(p.bound));
    j["bytes"] = p.bytes;
    if (by_width) {
      j["collective_s"] = p.collective_s;
      // "ep" sorts before "fits_in_memory_per_gpu".
      if (*parallel == ParallelAxis::kExpert) j["ep"] = p.ep;
      j["fits_in_memory_per_gpu"] = p.fits_in_memory_per_gpu;
    }
    j["flops"] = p.flops;
    if (by_width) j["gpus"] = p.gpus;
    j["hardware"] = p.hardware;
    j["latency_s"] = p.latency_s;
    j["mfu"] = p.mfu;
    if (by_width && *parallel == ParallelAxis::kPipeline) j["pp"] = p.pp;
    if (by_width) {
      j["speedup"] =
          p.latency_s > 0 ? r.points.front().latency_s / p.latency_s : 0.0;
    }
    j["throughput_per_s"] = p.throughput_per_s;
    if (by_width) {
      if (*parallel == ParallelAxis::kTensor) j["tp"] = p.tp;
      j["weight_bytes_per_gpu"] = p.weight_bytes_per_gpu;
    }
    if (p.whole_model) j["whole_model"] = WholeModelJson(*p.whole_model);
    points.push_back(std::move(j));
  }
  auto flip = [&](std::optional<size_t> i, bool whole_model) -> Json {
    if (!i) return nullptr;
    const SweepPoint& before = r.points[*i - 1];
    const SweepPoint& after = r.points[*i];
    Json j = Json::object();
    if (by_batch) j["batch"] = after.batch;
    if (by_width && *parallel == ParallelAxis::kExpert) j["ep"] = after.ep;
    j["from"] = std::string(
        BoundName(whole_model ? before.whole_model->bound : before.bound));
    if (!by_batch && !by_width) j["hardware"] = after.hardware;
    if (by_width && *parallel == ParallelAxis::kPipeline) j["pp"] = after.pp;
    j["to"] = std::string(
        BoundName(whole_model ? after.whole_model->bound : after.bound));
    if (by_width && *parallel == ParallelAxis::kTensor) j["tp"] = after.tp;
    return j;
  };
  Json out = Json::object();
  out["axis"] = by_batch ? "batch" : by_width ? width_key : "hw";
  out["bound_flip"] = flip(r.layer_flip, false);
  out["interpolated"] = r.interpolated;
  out["points"] = std::move(points);
  out["whole_model_bound_flip"] = flip(r.whole_model_flip, true);
  return out;
}

}  // namespace ridgeline::engine
