// Renderers for the quantization what-if (--weights / --activations /
// --kv-cache): per-layer latency before and after with the saving, and the
// summary (latency, model size, weight and KV-cache traffic, fits in memory).
#ifndef RIDGELINE_ENGINE_QUANTIZE_REPORT_H_
#define RIDGELINE_ENGINE_QUANTIZE_REPORT_H_

#include <cstddef>
#include <string>

#include "engine/quantize.h"
#include "engine/report/text_table.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine {

struct QuantizeTableOptions {
  // Layers listed, largest saving first; the rest are summed in an "other"
  // row. 0 lists all.
  int top = 25;
  // The widest table line (the terminal's width, or 160 when the output is
  // not a terminal); long names are elided in the middle.
  size_t max_width = report::kMaxTableWidth;
};

std::string RenderQuantizeText(const QuantizeResult& result,
                               const QuantizeTableOptions& options = {});

// {"layers":[{"bound","bound_before","bytes","bytes_before",
//             "latency_before_s","latency_s","name","op","saved_s"}],
//  "math_precision",
//  "options":{"activations","int4_group_size","int4_zero_points",
//             "kv_cache","scale_bytes","weights"},
//  "peak_precision_before",
//  "summary":{"capacity_bytes","fits","fits_before","kv_bytes",
//             "kv_bytes_before","latency_before_s","latency_s",
//             "model_bytes","model_bytes_before","roof_before_s","roof_s",
//             "speedup","taxes_s","weight_traffic",
//             "weight_traffic_before"; sharded (--tp) also "collective_s",
//             "gpus", "weight_bytes_per_gpu", "weight_bytes_per_gpu_before"}}
// Keys in alphabetical order. Units: bytes and seconds; "" options mean "as
// stored".
nlohmann::ordered_json QuantizeJson(const QuantizeResult& result);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_QUANTIZE_REPORT_H_
