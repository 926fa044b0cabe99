// The --serve section: a table (TTFT, TPOT, request latency, tokens/s, TPOT
// by context, the memory stack, max concurrency) and the "serve" JSON.
#ifndef RIDGELINE_ENGINE_REPORT_SERVE_REPORT_H_
#define RIDGELINE_ENGINE_REPORT_SERVE_REPORT_H_

#include <string>

#include "engine/serve.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine::report {

std::string FormatServe(const ServeResult& result);

// {"prompt_tokens", "generate_tokens", "concurrency", "ttft_s", "tpot_s",
//  "tpot_by_context": [{"context", "tpot_s"}], "decode_s",
//  "request_latency_s", "output_tokens_per_s",
//  "aggregate_output_tokens_per_s", "kv_bytes_per_token", "kv_layers",
//  "memory": {...}, "max_concurrency", "analyses"}
nlohmann::ordered_json ServeJson(const ServeResult& result);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_SERVE_REPORT_H_
