// Predicted vs measured: matches the nodes of a measured profile (ONNX
// Runtime, PyTorch) to the layers of an Analysis and compares them.
//
//   absl::StatusOr<engine::Comparison> c =
//       engine::CompareWithProfile(graph, analysis, profile, {});
//   fmt::print("{}", engine::FormatComparison(analysis, *c, {}));
//
// Matching, in order (each measured node is matched at most once):
// 1. By name: the measured node's name is a layer's node name.
// 2. By ONNX Runtime's renaming: ORT names the nodes it creates after the
//    node or the output tensor they replace, with suffixes; after removing
//    "_token_<n>" and "_nchwc" suffixes and trailing "/<part>" path parts, a
//    name that is a node name or a tensor name (then: the tensor's producer)
//    matches. When the measured op type (without a "Fused" prefix) differs
//    from that layer's, the match walks up through single-consumer tensors
//    (at most kMaxFusionDepth layers) to a layer of the measured op type and
//    takes the whole chain as one fused group: "/relu/Relu_output_0_nchwc"
//    with op Conv becomes the group {/conv1/Conv, /relu/Relu}.
// 3. By order (MatchOptions::match_by_order): the still unmatched measured
//    nodes and non-view layers of one op type are paired in order (trace
//    order and topological order) when they are equally many. This is how
//    PyTorch traces ("aten::conv2d#3") match.
// 4. Fusion inference (MatchOptions::infer_fusions), repeated to a fixed
//    point: an unmeasured layer with a non-zero prediction joins a group when
//    one of its inputs comes from the group through a tensor it alone
//    consumes (ORT fuses Add and Relu into the preceding Conv without a
//    trace of them), or when every consumer of its outputs is in the group
//    (the ReduceMean/Sub/Pow/... that ORT's LayerNormalization kernel
//    replaces). The group's measured time then covers it. A graph whose
//    nodes all ran as themselves (graph optimization disabled) has nothing
//    to infer.
// Measured nodes that resolve to the same layers are summed into one unit;
// what stays unmatched is reported with counts and its share of the time.
#ifndef RIDGELINE_ENGINE_MEASURED_H_
#define RIDGELINE_ENGINE_MEASURED_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "graph/graph.h"
#include "graph/measured_profile.h"

namespace ridgeline::engine {

// How far (in layers) a fused group may reach up from the layer a fused
// node is named after to the layer of the fused node's op type.
inline constexpr int kMaxFusionDepth = 4;

enum class MatchKind {
  kName,     // the measured node's name is the layer's name
  kRenamed,  // through ORT's renaming (suffixes, output tensor names)
  kOrder,    // paired by op type and order
};
std::string_view MatchKindName(MatchKind kind);  // "name", "renamed", "order"

struct MatchOptions {
  bool match_by_order = true;
  bool infer_fusions = true;
  // Number of optimization targets (units furthest from their roof) listed.
  int targets = 10;
};

// One compared unit: a layer, or a group of layers that ran as one fused
// kernel, and the measured nodes charged to it.
struct MeasuredUnit {
  // Indices into Analysis::layers in topological order; `anchor` is the
  // layer that names the unit (the fused kernel's main op).
  std::vector<int> layers;
  int anchor = -1;
  std::string name;     // the anchor layer's name
  std::string op_type;  // the anchor layer's op type
  MatchKind kind = MatchKind::kName;
  std::vector<std::string> measured_nodes;  // runtime names charged here
  // Layers that joined through fusion inference (a subset of `layers`).
  std::vector<int> absorbed_layers;
  double predicted_s = 0;  // sum of the layers' latency_s (taxes included)
  // Roofline time without efficiencies or taxes: the sum over the layers of
  // max(flops / peak, bytes / bandwidth) at the analysis' un-derated peak
  // and bandwidth.
  double roof_s = 0;
  double measured_s = 0;  // mean per run
  // measured_s / predicted_s; NaN when predicted_s is 0 (views).
  double ratio = 0;
  // "% of roof attained" as a fraction: roof_s / measured_s; NaN when
  // measured_s is 0.
  double roof_fraction = 0;
};

// Ratio statistics of the units of one op type (units with a finite ratio).
struct OpTypeRatios {
  std::string op_type;
  int64_t units = 0;
  double predicted_s = 0;
  double measured_s = 0;
  // Quantiles of measured/predicted (engine/rank_stats.h Quantile).
  double median = 0;
  double p25 = 0;
  double p75 = 0;
  double min = 0;
  double max = 0;
};

struct Comparison {
  std::string profile_path;
  std::string profile_format;
  int64_t runs_used = 0;

  std::vector<MeasuredUnit> units;  // in topological order of their anchors
  // Per Analysis layer: the index of its unit, or -1.
  std::vector<int> unit_of_layer;

  // Measured nodes that match no layer, longest first.
  std::vector<graph::MeasuredNode> unmatched_nodes;
  double unmatched_measured_s = 0;
  // Non-view layers with a non-zero prediction and no measurement.
  std::vector<int> unmatched_layers;
  double unmatched_predicted_s = 0;

  // Whole model: the analysis' summary latency (layers + dispatch tax) and
  // the measured time per run (the runtime's whole-run event when the trace
  // has one, else the sum of measured node times).
  double predicted_total_s = 0;
  double measured_total_s = 0;
  bool measured_total_is_whole_run = false;
  double measured_node_s = 0;  // sum of all measured node times per run
  // Matched units only.
  double matched_predicted_s = 0;
  double matched_measured_s = 0;

  std::vector<OpTypeRatios> by_op_type;  // most measured time first
  // Units furthest from their roof: largest measured_s - roof_s (the time an
  // optimization could win at most), up to MatchOptions::targets.
  std::vector<int> targets;
  // Spearman correlation of predicted_s vs measured_s over all units
  // (average ranks for ties); nullopt with fewer than 2 units.
  std::optional<double> spearman;
  std::vector<std::string> warnings;
};

// Matches `profile` to `analysis` (computed on `graph`) and compares.
// Unknown node names produce warnings, never errors; an error is returned
// only when the analysis does not belong to the graph.
absl::StatusOr<Comparison> CompareWithProfile(
    const graph::Graph& graph, const Analysis& analysis,
    const graph::MeasuredProfile& profile, const MatchOptions& options);

// "FusedConv" -> "Conv": the op type a runtime's fused kernel stands for.
std::string NormalizeMeasuredOpType(std::string_view op_type);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_MEASURED_H_
