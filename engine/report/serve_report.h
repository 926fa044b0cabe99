// The --serve section: a table (TTFT, TPOT, request latency, tokens/s, TPOT
// by context, the memory stack, max concurrency), the "serve" JSON and the
// HTML page's two charts.
#ifndef RIDGELINE_ENGINE_REPORT_SERVE_REPORT_H_
#define RIDGELINE_ENGINE_REPORT_SERVE_REPORT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "engine/report/html.h"
#include "engine/report/text_table.h"
#include "engine/serve.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine::report {

// The section as text; its tables at most `max_width` columns wide
// (report::TextTable::max_width).
std::string FormatServe(const ServeResult& result,
                        size_t max_width = kMaxTableWidth);

// {"prompt_tokens", "generate_tokens", "concurrency", "ttft_s",
//  "ttft_includes_encoder", "ttft_includes_cross_kv_projection" (false /
//  a bool for an encoder-decoder's decoder, null for a decoder-only model),
//  "tpot_s",
//  "tpot_by_context": [{"context", "tpot_s"}], "decode_s",
//  "request_latency_s", "output_tokens_per_s",
//  "aggregate_output_tokens_per_s", "kv_bytes_per_token", "kv_layers",
//  "kv_fixed_bytes_per_sequence" (cross-attention KV, 0 if none),
//  "memory": {...}, "max_concurrency", "analyses"}
nlohmann::ordered_json ServeJson(const ServeResult& result);

// For an encoder-decoder's decoder (EncoderSide::encoder_decoder()): what
// the time to first token leaves out, one sentence naming the inputs that
// show it ("the decoder of an encoder-decoder model (inputs ...): ...");
// "" for a decoder-only model. The serve section's "assumption (TTFT)" line
// and the CLI's warning.
std::string TtftEncoderNote(const EncoderSide& encoder);

// The HTML page's serving sections: a line chart of the time per output
// token against the context (one point per analyzed decode step, the TTFT,
// mean TPOT, request latency and tokens/s in its note) and the memory stack
// of one GPU as stacked bars in bytes (weights, KV cache at prompt +
// generate, peak activations, runtime reserve; beside them the device's
// capacity), with the largest concurrency that fits in its note.
void AddServeHtml(const ServeResult& result, HtmlReportInput* page);

// --sweep concurrency=LIST with --serve: one row per concurrency (TTFT,
// TPOT, request latency, tokens/s per request and in aggregate, memory,
// fits, joules per token), then the largest concurrency that fits.
std::string FormatServeSweep(const std::vector<ServeResult>& results,
                             size_t max_width = kMaxTableWidth);
// {"axis": "concurrency", "points": [ServeJson of each, without
//  "tpot_by_context"]}
nlohmann::ordered_json ServeSweepJson(const std::vector<ServeResult>& results);

// --search: the Pareto set (TPOT vs output tokens/s per GPU) and the
// cheapest configuration meeting --ttft-max / --tpot-max.
std::string FormatServeSearch(const ServeSearch& search,
                              size_t max_width = kMaxTableWidth);
// {"ttft_max_s", "tpot_max_s" (null: none), "samples", "configurations",
//  "best": point | null, "pareto": [point]}; point = {"tp", "gpus",
//  "concurrency", "ttft_s", "tpot_s", "request_latency_s",
//  "output_tokens_per_s", "aggregate_output_tokens_per_s",
//  "output_tokens_per_s_per_gpu", "memory_bytes", "joules_per_token"}
nlohmann::ordered_json ServeSearchJson(const ServeSearch& search);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_SERVE_REPORT_H_
