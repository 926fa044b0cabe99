// PyTorch profiler Chrome traces (torch.profiler ... export_chrome_trace).
//
// Two layouts are read:
// - Kineto (the usual builds): {"traceEvents": [...]}, events with "cat":
//   "cpu_op" (operators), "user_annotation" (record_function labels and the
//   "ProfilerStep#N" steps), "kernel" (GPU kernels, "dur" in microseconds)
//   and "cuda_runtime"/"cuda_driver"/"runtime" (launches, linked to kernels
//   by args.correlation).
// - Legacy (builds without Kineto, e.g. Debian's python3-torch): a JSON array
//   of complete events with no "cat"; names with "::" (aten::conv2d) are
//   operators, other names are record_function labels.
//
// What becomes a measured node:
// - Without GPU kernels: each outermost operator on its thread (one not
//   nested in another operator, e.g. aten::linear, not the aten::addmm
//   inside it), lasting its own "dur".
// - With GPU kernels: each kernel is charged to the outermost operator that
//   launched it (found through the launch's correlation id); node time is
//   kernel time. A kernel whose launch is not in the trace becomes a node
//   named after the kernel, op type "kernel".
// Naming: an operator inside a record_function label (other than
// ProfilerStep#N) is charged to a node named after the innermost label, so
// `with torch.profiler.record_function(onnx_node_name):` around each layer
// gives exact matches. Otherwise the node is named "<aten op>#<k>", k being
// the 0-based position among the same aten op's calls in that run, and its
// op type is the ONNX op type the aten op maps to (aten_op_map.h); the engine
// then matches such nodes to layers by op type and order.
// Runs: "ProfilerStep#N" annotations; events outside every step are ignored
// (with a warning). Without steps the whole trace is one run.
#ifndef RIDGELINE_IMPORTERS_PROFILE_PYTORCH_TRACE_H_
#define RIDGELINE_IMPORTERS_PROFILE_PYTORCH_TRACE_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "graph/measured_profile.h"
#include "importers/profile/profile_options.h"
#include "nlohmann/json.hpp"

namespace ridgeline::importers {

// True for {"traceEvents": [...]} (Kineto), or for an array whose events
// look like legacy PyTorch ones (operator names with "::", no "cat").
bool LooksLikePyTorchTrace(const nlohmann::json& root);

absl::StatusOr<graph::MeasuredProfile> ParsePyTorchTrace(
    const nlohmann::json& root, std::string_view origin,
    const ProfileOptions& options);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_PROFILE_PYTORCH_TRACE_H_
