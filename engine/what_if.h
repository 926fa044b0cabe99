// --what-if: one table with the model as stored, each fusion level, each
// quantization option, and the best combination, as latency and speed-up.
//
//   absl::StatusOr<std::vector<engine::WhatIfRow>> rows =
//       engine::RunWhatIf(graph, hw, analyze_options);
//   fmt::print("{}", engine::RenderWhatIfText(*rows));
#ifndef RIDGELINE_ENGINE_WHAT_IF_H_
#define RIDGELINE_ENGINE_WHAT_IF_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/fusion.h"
#include "engine/hardware.h"
#include "engine/parallel/sharding.h"
#include "engine/quantize.h"
#include "engine/report/text_table.h"
#include "graph/graph.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine {

struct WhatIfRow {
  // "as stored", "fuse epilogue", "weights int4 (g128)", "best: ...".
  std::string scenario;
  FusionKinds fuse;
  QuantizeOptions quantize;
  // False when the scenario cannot be priced (device lacks the math
  // precision's peak, model already quantized); `note` says why.
  bool available = true;
  std::string note;
  double latency_s = 0;  // whole model, dispatch tax included
  double speedup = 0;    // as-stored latency / latency_s
  bool best = false;     // the best combination row
};

struct WhatIfOptions {
  // int4 group size and scale size used by the quantization rows.
  int64_t int4_group_size = 128;
  double scale_bytes = 2;
  // --tp: every row is one inference of the sharded model
  // (AnalyzeQuantized with `parallel`; fusion per GPU, no group spanning a
  // collective); the rows that quantize activations are listed as
  // unavailable.
  ParallelOptions parallel;
};

// Rows, in order: as stored; fuse epilogue, elementwise, attention, all;
// weights int8, int4, fp8 (weight-only); W8A8 int8; W8A8 fp8; kv-cache int8
// and fp8 (only when the model has a KV cache); then the best combination:
// the lowest latency over {no fusion, fuse all} x {each weight/activation
// option} x {each kv-cache option}. Weight rows of an already-quantized
// model are listed as unavailable. Fails only if the as-stored analysis
// fails.
absl::StatusOr<std::vector<WhatIfRow>> RunWhatIf(
    const graph::Graph& graph, const Hardware& hardware,
    const AnalyzeOptions& base, const WhatIfOptions& options = {});

// scenario | latency | speed-up | note: the text table and the HTML page's.
// At most `max_width` columns wide as text (report::TextTable::max_width).
report::TextTable WhatIfTable(const std::vector<WhatIfRow>& rows,
                              size_t max_width = report::kMaxTableWidth);

// The table as text, with the assumptions line.
std::string RenderWhatIfText(const std::vector<WhatIfRow>& rows,
                             size_t max_width = report::kMaxTableWidth);

// [{"activations","available","best","fuse","kv_cache","latency_s","note",
//   "scenario","speedup","weights"}] (keys in alphabetical order); ""
// options mean "as stored".
nlohmann::ordered_json WhatIfJson(const std::vector<WhatIfRow>& rows);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_WHAT_IF_H_
