// A measured per-node profile of one model run by a real runtime (ONNX
// Runtime, PyTorch): what each node cost, averaged over the runs in the trace.
// Pure data, so that importers (which read traces) and the engine (which
// compares them with predictions) can share it without depending on each
// other.
//
//   absl::StatusOr<graph::MeasuredProfile> p = importers::ReadProfile(path);
//   for (const graph::MeasuredNode& n : p->nodes) { ... n.seconds ... }
#ifndef RIDGELINE_GRAPH_MEASURED_PROFILE_H_
#define RIDGELINE_GRAPH_MEASURED_PROFILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ridgeline::graph {

// Source formats, as stored in MeasuredProfile::source_format.
inline constexpr char kOnnxRuntimeProfileFormat[] = "onnxruntime";
inline constexpr char kPyTorchProfileFormat[] = "pytorch";

struct MeasuredNode {
  // Node name as the runtime reports it (ONNX Runtime: the event name without
  // the "_kernel_time" suffix; PyTorch: see importers/profile/pytorch_trace.h).
  std::string name;
  // Op type as the runtime reports it (ONNX Runtime args.op_name, e.g. "Conv"
  // also for a fused Conv+Relu; PyTorch: the ONNX op type an aten op maps to,
  // or the aten name when it maps to none).
  std::string op_type;
  // Where it ran: ONNX Runtime args.provider ("CPUExecutionProvider"), or
  // "cpu" / "gpu" for PyTorch traces.
  std::string provider;
  // Mean time per run, seconds: the sum of this node's event durations over
  // the runs used, divided by the number of runs used.
  double seconds = 0;
  // Executions summed into `seconds`, all runs used together: ONNX Runtime
  // kernel events, PyTorch operator calls (a call's GPU kernels count once).
  int64_t count = 0;
};

struct MeasuredProfile {
  std::string path;  // the file it was read from
  std::string
      source_format;  // kOnnxRuntimeProfileFormat or kPyTorchProfileFormat
  // Runs found in the trace (ONNX Runtime "model_run" events, PyTorch
  // "ProfilerStep#N" annotations; 1 when the trace marks no runs).
  int64_t runs_in_trace = 0;
  // Runs averaged into the node times (runs_in_trace minus skipped warm-ups).
  int64_t runs_used = 0;
  // Mean end-to-end time of one run in seconds when the trace records whole
  // runs (ONNX Runtime "model_run", PyTorch "ProfilerStep#N"); includes the
  // runtime's own overhead between nodes.
  std::optional<double> run_seconds;
  // Nodes in the order they first appear in the trace.
  std::vector<MeasuredNode> nodes;
  // Non-fatal oddities found while reading (ignored events, ...).
  std::vector<std::string> warnings;

  // Sum of nodes[i].seconds: the per-run time spent inside nodes.
  double NodeSeconds() const {
    double total = 0;
    for (const MeasuredNode& node : nodes) total += node.seconds;
    return total;
  }
};

}  // namespace ridgeline::graph

#endif  // RIDGELINE_GRAPH_MEASURED_PROFILE_H_
