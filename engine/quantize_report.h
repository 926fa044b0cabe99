// Renderers for the quantization what-if (--weights / --activations /
// --kv-cache): per-layer latency before and after with the saving, and the
// summary (latency, model size, weight and KV-cache traffic, fits in memory).
#ifndef RIDGELINE_ENGINE_QUANTIZE_REPORT_H_
#define RIDGELINE_ENGINE_QUANTIZE_REPORT_H_

#include <string>

#include "engine/quantize.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine {

struct QuantizeTableOptions {
  // Layers listed, largest saving first; the rest are summed in an "other"
  // row. 0 lists all.
  int top = 25;
};

std::string RenderQuantizeText(const QuantizeResult& result,
                               const QuantizeTableOptions& options = {});

// {"options":{"weights","activations","kv_cache","int4_group_size",
//             "int4_zero_points","scale_bytes"},
//  "math_precision","peak_precision_before",
//  "layers":[{"name","op","bytes_before","bytes","latency_before_s",
//             "latency_s","saved_s","bound_before","bound"}],
//  "summary":{"latency_before_s","latency_s","speedup","roof_before_s",
//             "roof_s","taxes_s","model_bytes_before",
//             "model_bytes","weight_traffic_before","weight_traffic",
//             "kv_bytes_before","kv_bytes","capacity_bytes","fits_before",
//             "fits"}}
// Units: bytes and seconds; "" options mean "as stored".
nlohmann::json QuantizeJson(const QuantizeResult& result);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_QUANTIZE_REPORT_H_
