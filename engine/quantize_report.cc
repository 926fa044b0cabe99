#include "engine/quantize_report.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

std::string SizeRatio(double before, double after) {
  if (!(after > 0)) return "n/a";
  return fmt::format("{:.2f}x smaller", before / after);
}

std::string OrAsStored(const std::string& value) {
  return value.empty() ? "as stored" : value;
}

}  // namespace

std::string RenderQuantizeText(const QuantizeResult& result,
                               const QuantizeTableOptions& options) {
  const QuantizeOptions& q = result.options;
  std::string out = fmt::format(
      "Quantization what-if: {}; math at the {} peak (as stored: {})\n",
      QuantizeOptionsName(q), result.math_precision, result.peak_before);
  if (q.weights == "int4") {
    out += fmt::format(
        "  int4 weights: 0.5 B per element + one {} B scale{} per {} "
        "elements along the reduction axis\n",
        q.scale_bytes, q.int4_zero_points ? " and a 4-bit zero point" : "",
        q.int4_group_size);
  } else if (q.weights == "int8") {
    out += fmt::format(
        "  int8 weights: 1 B per element + one {} B scale per output channel\n",
        q.scale_bytes);
  }
  std::vector<size_t> order(result.layers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return result.layers[a].saved_s > result.layers[b].saved_s;
  });
  const size_t shown =
      options.top > 0 ? std::min(order.size(), static_cast<size_t>(options.top))
                      : order.size();
  report::TextTable table;
  table.headers = {"layer",   "op",    "bytes", "after",
                   "latency", "after", "saved", "bound"};
  table.right_align = {false, false, true, true, true, true, true, false};
  table.keep = {false, false, false, false, false, false, false, true};
  table.max_width = options.max_width;
  for (size_t i = 0; i < shown; ++i) {
    const QuantizedLayer& l = result.layers[order[i]];
    table.rows.push_back(
        {l.name, l.op_type, report::FormatSi(l.bytes_before, "B"),
         report::FormatSi(l.bytes, "B"),
         report::FormatSeconds(l.latency_before_s),
         report::FormatSeconds(l.latency_s), report::FormatSeconds(l.saved_s),
         l.bound_before == l.bound
             ? std::string(BoundName(l.bound))
             : fmt::format("{}->{}", BoundName(l.bound_before),
                           BoundName(l.bound))});
  }
  if (shown < order.size()) {
    double bytes_before = 0, bytes = 0, before = 0, after = 0;
    for (size_t i = shown; i < order.size(); ++i) {
      const QuantizedLayer& l = result.layers[order[i]];
      bytes_before += l.bytes_before;
      bytes += l.bytes;
      before += l.latency_before_s;
      after += l.latency_s;
    }
    table.rows.push_back(
        {fmt::format("other ({} layers)", order.size() - shown), "",
         report::FormatSi(bytes_before, "B"), report::FormatSi(bytes, "B"),
         report::FormatSeconds(before), report::FormatSeconds(after),
         report::FormatSeconds(before - after), ""});
  }
  out += report::RenderText(table);
  out += fmt::format(
      "\nlatency         as stored {}  quantized {}  speed-up {} (dispatch "
      "tax included in both{})\n",
      report::FormatSeconds(result.latency_before_s),
      report::FormatSeconds(result.latency_s),
      report::FormatSpeedup(result.speedup),
      result.gpus > 1
          ? fmt::format("; one inference sharded over {} GPUs", result.gpus)
          : "");
  if (result.gpus > 1) {
    out += fmt::format(
        "  per GPU       weights as stored {}  quantized {}  ({}); "
        "collectives {} (unchanged: activations as stored)\n",
        report::FormatSi(result.weight_bytes_per_gpu_before, "B"),
        report::FormatSi(result.weight_bytes_per_gpu, "B"),
        SizeRatio(result.weight_bytes_per_gpu_before,
                  result.weight_bytes_per_gpu),
        report::FormatSeconds(result.collective_s));
  }
  out += fmt::format(
      "  roofline time  as stored {}  quantized {}  ({:.2f}x); taxes {} "
      "(per-layer + dispatch, unchanged)\n",
      report::FormatSeconds(result.roof_before_s),
      report::FormatSeconds(result.roof_s),
      result.roof_s > 0 ? result.roof_before_s / result.roof_s : 0.0,
      report::FormatSeconds(result.taxes_s));
  out += fmt::format("model size      as stored {}  quantized {}  ({})\n",
                     report::FormatSi(result.model_bytes_before, "B"),
                     report::FormatSi(result.model_bytes, "B"),
                     SizeRatio(result.model_bytes_before, result.model_bytes));
  out += fmt::format(
      "weight traffic  as stored {}  quantized {}  ({}; summed over "
      "layers)\n",
      report::FormatSi(result.weight_traffic_before, "B"),
      report::FormatSi(result.weight_traffic, "B"),
      SizeRatio(result.weight_traffic_before, result.weight_traffic));
  if (result.kv_bytes_before > 0) {
    out += fmt::format(
        "KV-cache bytes  as stored {}  quantized {}  ({}; KV tensors read or "
        "written by layers)\n",
        report::FormatSi(result.kv_bytes_before, "B"),
        report::FormatSi(result.kv_bytes, "B"),
        SizeRatio(result.kv_bytes_before, result.kv_bytes));
  }
  out += fmt::format(
      "fits in memory  as stored {}  quantized {}  ({}weights + peak "
      "activations vs {} capacity)\n",
      result.fits_before ? "yes" : "no", result.fits ? "yes" : "no",
      result.gpus > 1 ? "one GPU's " : "",
      report::FormatSi(result.capacity_bytes, "B"));
  return out;
}

// Keys in alphabetical order, as the report has always listed them.
nlohmann::ordered_json QuantizeJson(const QuantizeResult& result) {
  const QuantizeOptions& q = result.options;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const QuantizedLayer& l : result.layers) {
    layers.push_back({{"bound", std::string(BoundName(l.bound))},
                      {"bound_before", std::string(BoundName(l.bound_before))},
                      {"bytes", l.bytes},
                      {"bytes_before", l.bytes_before},
                      {"latency_before_s", l.latency_before_s},
                      {"latency_s", l.latency_s},
                      {"name", l.name},
                      {"op", l.op_type},
                      {"saved_s", l.saved_s}});
  }
  // Sharded (--tp): "collective_s", "gpus", "weight_bytes_per_gpu" and
  // "weight_bytes_per_gpu_before" join the summary.
  const bool sharded = result.gpus > 1;
  nlohmann::ordered_json summary;
  summary["capacity_bytes"] = result.capacity_bytes;
  if (sharded) summary["collective_s"] = result.collective_s;
  summary["fits"] = result.fits;
  summary["fits_before"] = result.fits_before;
  if (sharded) summary["gpus"] = result.gpus;
  summary["kv_bytes"] = result.kv_bytes;
  summary["kv_bytes_before"] = result.kv_bytes_before;
  summary["latency_before_s"] = result.latency_before_s;
  summary["latency_s"] = result.latency_s;
  summary["model_bytes"] = result.model_bytes;
  summary["model_bytes_before"] = result.model_bytes_before;
  summary["roof_before_s"] = result.roof_before_s;
  summary["roof_s"] = result.roof_s;
  summary["speedup"] = result.speedup;
  summary["taxes_s"] = result.taxes_s;
  if (sharded) {
    summary["weight_bytes_per_gpu"] = result.weight_bytes_per_gpu;
    summary["weight_bytes_per_gpu_before"] = result.weight_bytes_per_gpu_before;
  }
  summary["weight_traffic"] = result.weight_traffic;
  summary["weight_traffic_before"] = result.weight_traffic_before;
  return {
      {"layers", layers},
      {"math_precision", result.math_precision},
      {"options",
       {{"activations", OrAsStored(q.activations)},
        {"int4_group_size", q.int4_group_size},
        {"int4_zero_points", q.int4_zero_points},
        {"kv_cache", OrAsStored(q.kv_cache)},
        {"scale_bytes", q.scale_bytes},
        {"weights", OrAsStored(q.weights)}}},
      {"peak_precision_before", result.peak_before},
      {"summary", std::move(summary)},
  };
}

}  // namespace ridgeline::engine
