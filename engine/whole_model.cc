#include "engine/whole_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "engine/precision.h"
#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "engine/timing.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

// mlsysim's degenerate-case threshold: times below 1e-15 ms count as zero.
constexpr double kNegligibleSeconds = 1e-18;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// Bytes per element at the peak's precision ("fp16" -> 2): mlsysim's
// PRECISION_MAP, which has the same values as engine::kPrecisions.
absl::StatusOr<double> BytesPerParam(const Assumptions& a) {
  const Precision* p = FindPrecision(a.peak_precision);
  if (p == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("whole-model (mlsysim): no element size for precision '{}'",
                    a.peak_precision));
  }
  return p->element_bytes;
}

}  // namespace

std::string_view WholeModelMethodName(WholeModelMethod method) {
  switch (method) {
    case WholeModelMethod::kLumped:
      return "lumped";
    case WholeModelMethod::kMlsysim:
      return "mlsysim";
  }
  return "lumped";
}

std::string_view ModelClassName(ModelClass model_class) {
  return model_class == ModelClass::kCnn ? "cnn" : "transformer";
}

absl::StatusOr<ModelClass> ParseModelClass(std::string_view name) {
  const std::string lower = Lower(name);
  if (lower == "cnn") return ModelClass::kCnn;
  if (lower == "transformer") return ModelClass::kTransformer;
  return absl::InvalidArgumentError(fmt::format(
      "unknown model class '{}' (expected cnn or transformer)", name));
}

WholeModelTotals TotalsOf(const Analysis& analysis) {
  WholeModelTotals t;
  for (const LayerResult& layer : analysis.layers) {
    if (layer.skipped) continue;
    if (layer.cost.macs > 0) ++t.mac_layers;
  }
  t.macs = analysis.summary.macs;
  t.flops = analysis.summary.flops;
  t.bytes = analysis.summary.bytes;
  t.params = analysis.summary.params;
  t.layers = analysis.summary.layers;
  t.batch = analysis.batch;
  return t;
}

absl::StatusOr<WholeModelResult> WholeModelFromTotals(
    const WholeModelTotals& totals, const Assumptions& a,
    const WholeModelOptions& options) {
  if (!(a.peak_flops_per_s > 0) || !(a.memory_bandwidth_bytes_per_s > 0)) {
    return absl::InvalidArgumentError(
        "whole-model estimate needs a positive peak and memory bandwidth");
  }
  if (!(a.compute_efficiency > 0) || !(a.memory_efficiency > 0)) {
    return absl::InvalidArgumentError(
        "whole-model estimate needs positive efficiencies");
  }
  if (totals.batch < 1) {
    return absl::InvalidArgumentError(
        fmt::format("batch must be >= 1 (got {})", totals.batch));
  }
  if (options.tokens_per_sample < 1) {
    return absl::InvalidArgumentError(fmt::format(
        "tokens per sample must be >= 1 (got {})", options.tokens_per_sample));
  }
  if (!(options.activation_fraction >= 0) ||
      !std::isfinite(options.activation_fraction)) {
    return absl::InvalidArgumentError(
        "activation fraction must be a finite number >= 0");
  }
  if (options.layers.has_value() && *options.layers < 0) {
    return absl::InvalidArgumentError(
        fmt::format("layer count must be >= 0 (got {})", *options.layers));
  }

  WholeModelResult r;
  r.method = options.method;
  r.batch = totals.batch;
  const double batch = static_cast<double>(totals.batch);
  if (options.method == WholeModelMethod::kLumped) {
    r.flops_per_mac = a.flops_per_mac;
    r.ops = totals.flops;
    r.bytes = totals.bytes;
    r.layers_taxed = totals.layers;
  } else {
    absl::StatusOr<double> bpp = BytesPerParam(a);
    if (!bpp.ok()) return bpp.status();
    const double weight_bytes = static_cast<double>(totals.params) * *bpp;
    if (options.model_class == ModelClass::kCnn) {
      r.flops_per_mac = 1;
      r.ops = totals.macs;  // already summed over the batch
    } else {
      r.flops_per_mac = 2;
      r.ops = 2.0 * static_cast<double>(totals.params) *
              static_cast<double>(options.tokens_per_sample) * batch;
    }
    r.bytes = weight_bytes * (1.0 + options.activation_fraction * batch);
    // mlsysim: num_layers = model.layers or 1.
    r.layers_taxed = options.layers.value_or(totals.mac_layers);
    if (r.layers_taxed == 0) r.layers_taxed = 1;
  }

  // One lumped kernel through the one timing function (flat, no tax).
  Pricing lumped;
  lumped.runtime = FlatRuntime(a.compute_efficiency, a.memory_efficiency, 0);
  lumped.peak_flops_per_s = a.peak_flops_per_s;
  lumped.memory_bandwidth_bytes_per_s = a.memory_bandwidth_bytes_per_s;
  KernelWork work;
  work.matrix_flops = r.ops;
  work.bytes = r.bytes;
  const KernelTime time = TimeKernel(work, lumped);
  r.t_compute_s = time.t_compute_s;
  r.t_memory_s = time.t_memory_s;
  r.t_overhead_s = a.dispatch_tax_s +
                   static_cast<double>(r.layers_taxed) * a.per_layer_tax_s;
  r.latency_s = std::max(r.t_compute_s, r.t_memory_s) + r.t_overhead_s;
  r.throughput_per_s = r.latency_s > 0 ? batch / r.latency_s : 0;
  r.mfu = r.latency_s > 0
              ? std::clamp((r.ops / r.latency_s) / a.peak_flops_per_s, 0.0, 1.0)
              : 0;
  // mlsysim's calc_bottleneck, degenerate cases first.
  if (r.t_compute_s < kNegligibleSeconds) {
    r.bound = Bound::kMemory;
    r.intensity = 0;
  } else if (r.t_memory_s < kNegligibleSeconds) {
    r.bound = Bound::kCompute;
    r.intensity = r.bytes > 0 ? r.ops / r.bytes : 0;
  } else {
    r.bound = r.t_memory_s > r.t_compute_s ? Bound::kMemory : Bound::kCompute;
    r.intensity = r.ops / r.bytes;
  }
  return r;
}

absl::StatusOr<WholeModelResult> WholeModel(const Analysis& analysis,
                                            const WholeModelOptions& options) {
  return WholeModelFromTotals(TotalsOf(analysis), analysis.assumptions,
                              options);
}

nlohmann::ordered_json WholeModelJson(const WholeModelResult& r) {
  // Keys in alphabetical order, as the report has always listed them.
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["bound"] = std::string(BoundName(r.bound));
  j["bytes"] = r.bytes;
  j["flops"] = r.ops;
  j["flops_per_mac"] = r.flops_per_mac;
  j["intensity"] = r.intensity;
  j["latency_s"] = r.latency_s;
  j["method"] = std::string(WholeModelMethodName(r.method));
  j["mfu"] = r.mfu;
  j["t_compute_s"] = r.t_compute_s;
  j["t_memory_s"] = r.t_memory_s;
  j["t_overhead_s"] = r.t_overhead_s;
  j["throughput_per_s"] = r.throughput_per_s;
  return j;
}

std::string FormatWholeModelComparison(
    const Analysis& analysis, const std::vector<WholeModelResult>& estimates,
    size_t max_width) {
  using report::FormatNumber;
  using report::FormatPercent;
  using report::FormatSeconds;
  using report::FormatSi;
  const Summary& s = analysis.summary;
  const Assumptions& a = analysis.assumptions;

  struct Column {
    std::string title;
    std::string latency, throughput, bound, intensity, mfu, flops, bytes,
        overhead;
  };
  std::vector<Column> columns;
  const double layer_intensity = s.bytes > 0 ? s.flops / s.bytes : 0;
  columns.push_back(
      {"layer-level", FormatSeconds(s.latency_s),
       fmt::format("{}/s", FormatNumber(s.throughput_per_s)),
       std::string(BoundName(s.bound)), FormatNumber(layer_intensity),
       FormatPercent(s.mfu),
       fmt::format("{} ({:g}/MAC)", FormatSi(s.flops, "FLOP"), a.flops_per_mac),
       FormatSi(s.bytes, "B"),
       FormatSeconds(a.dispatch_tax_s +
                     static_cast<double>(s.layers) * a.per_layer_tax_s)});
  for (const WholeModelResult& r : estimates) {
    columns.push_back(
        {fmt::format("whole ({})", WholeModelMethodName(r.method)),
         FormatSeconds(r.latency_s),
         fmt::format("{}/s", FormatNumber(r.throughput_per_s)),
         std::string(BoundName(r.bound)), FormatNumber(r.intensity),
         FormatPercent(r.mfu),
         fmt::format("{} ({:g}/MAC)", FormatSi(r.ops, "FLOP"), r.flops_per_mac),
         FormatSi(r.bytes, "B"), FormatSeconds(r.t_overhead_s)});
  }

  const std::vector<std::pair<std::string, std::string Column::*>> rows = {
      {"latency", &Column::latency}, {"throughput", &Column::throughput},
      {"bound", &Column::bound},     {"intensity (FLOP/B)", &Column::intensity},
      {"MFU", &Column::mfu},         {"FLOPs", &Column::flops},
      {"bytes", &Column::bytes},     {"fixed overhead", &Column::overhead},
  };
  report::TextTable table;
  table.headers = {""};
  table.right_align = {false};
  table.max_width = max_width;
  for (const Column& c : columns) {
    table.headers.push_back(c.title);
    table.right_align.push_back(true);
  }
  for (const auto& [label, field] : rows) {
    table.rows.push_back({label});
    for (const Column& c : columns) table.rows.back().push_back(c.*field);
  }

  std::string out = fmt::format(
      "Whole model vs layer-level (batch {}, {} at {} peak {}, {}, "
      "efficiency {:g})\n",
      analysis.batch, analysis.hardware.name, a.peak_precision,
      FormatSi(a.peak_flops_per_s, "FLOP/s"),
      FormatSi(a.memory_bandwidth_bytes_per_s, "B/s"), a.compute_efficiency);
  out += report::RenderText(table, "  ");
  out +=
      "  Layer-level >= lumped: a sum of per-layer maxima is never below the "
      "max of the sums\n"
      "  (each layer pays max(T_compute, T_memory); the lumped estimate "
      "assumes all traffic overlaps all compute).\n";
  const Precision* precision = FindPrecision(a.peak_precision);
  for (const WholeModelResult& r : estimates) {
    if (r.method != WholeModelMethod::kMlsysim) continue;
    out += fmt::format(
        "  mlsysim: ops = {}, bytes = params x {:g} B x (1 + 0.1 x batch), "
        "overhead = dispatch {} + {} layers x {}.\n",
        r.flops_per_mac == 1 ? "MACs (1 FLOP per MAC)" : "2 x params x tokens",
        precision != nullptr ? precision->element_bytes : 0.0,
        FormatSeconds(a.dispatch_tax_s), r.layers_taxed,
        FormatSeconds(a.per_layer_tax_s));
  }
  return out;
}

}  // namespace ridgeline::engine
