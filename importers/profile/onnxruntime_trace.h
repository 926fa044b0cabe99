// ONNX Runtime's profile: the Chrome-trace JSON array that
// SessionOptions.enable_profiling writes (onnxruntime/core/common/profiler.cc).
//
// What is read:
// - cat "Node" events whose name ends in "_kernel_time": one node execution;
//   "dur" (microseconds, required), "ts" (microseconds, required),
//   args.op_name (required), args.provider (optional). The node name is the
//   event name without the suffix; an unnamed node is named
//   "<op_name>_<args.node_index>", as ridgeline's importer names unnamed
//   nodes (by position). Other "Node" events (the
//   "_fence_before"/"_fence_after" markers of older versions) are ignored.
// - cat "Session" events named "model_run": one whole run each. A node event
//   belongs to the run whose [ts, ts + dur] contains its ts. Without any
//   model_run event, the k-th event of a node name belongs to run k, and the
//   trace holds as many runs as the most frequent node name.
// Node times are summed per run and averaged over the runs used.
#ifndef RIDGELINE_IMPORTERS_PROFILE_ONNXRUNTIME_TRACE_H_
#define RIDGELINE_IMPORTERS_PROFILE_ONNXRUNTIME_TRACE_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "graph/measured_profile.h"
#include "importers/profile/profile_options.h"
#include "nlohmann/json.hpp"

namespace ridgeline::importers {

// The suffix ONNX Runtime appends to a node's name in its kernel events.
inline constexpr std::string_view kOrtKernelTimeSuffix = "_kernel_time";

// True if `root` looks like an ONNX Runtime profile (a JSON array whose
// events carry cat "Node" or "Session").
bool LooksLikeOnnxRuntimeTrace(const nlohmann::json& root);

// Parses a whole ONNX Runtime profile. `origin` (the file name) is used in
// errors and warnings.
absl::StatusOr<graph::MeasuredProfile> ParseOnnxRuntimeTrace(
    const nlohmann::json& root, std::string_view origin,
    const ProfileOptions& options);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_PROFILE_ONNXRUNTIME_TRACE_H_
