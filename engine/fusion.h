// Operator-fusion what-ifs: which nodes a compiler or hand-written kernel
// would run as one kernel, and what the model would cost if it did.
//
//   absl::StatusOr<engine::FusionKinds> kinds =
//       engine::ParseFusionKinds("epilogue,attention");       // --fuse
//   absl::StatusOr<engine::FusionPlan> plan = engine::PlanFusion(graph,
//   *kinds); absl::StatusOr<engine::FusionResult> fused =
//       engine::ApplyFusion(analysis, *plan, graph, pricer);
//
// A group costs the sum of its members' FLOPs, only the bytes of the tensors
// that enter it (each distinct tensor read once) or leave it (consumed by a
// node outside the group, or a graph output), and one per-layer tax:
// intermediates stay on chip. Rules, applied in this order so the larger
// patterns win:
//   attention   MatMul(QK^T) -> scale / mask / Where / Cast -> Softmax ->
//               MatMul(AV), with the layout ops feeding Q, K and V
//               (Transpose, Expand for GQA, views), and the com.microsoft
//               attention ops: priced as flash attention, the S x S score
//               tensor is neither written nor read.
//   epilogue    Conv / ConvTranspose / Gemm / MatMul (and their quantized and
//               contrib forms) followed by bias Add, BatchNormalization,
//               activations (incl. the Erf-GELU and x*Sigmoid(x) patterns),
//               residual Add, Quantize/DequantizeLinear; DequantizeLinear
//               nodes that feed only the anchor are taken too (its
//               prologue), never as the epilogue of the anchor before.
//   elementwise maximal connected sets of elementwise / broadcast ops, the
//               layout ops a generated kernel indexes into (Slice, Concat
//               other than a KV-cache append, Transpose, Expand), norms
//               (incl. RMSNorm / LayerNorm decomposed into Pow, ReduceMean,
//               Add, Sqrt, Div, Mul, Sub) and Softmax.
// Pure views (Reshape, Squeeze, Unsqueeze, Flatten, Identity) may be absorbed
// by any group. No group is formed if it would put the graph of groups on a
// cycle (a path that leaves the group and re-enters it).
#ifndef RIDGELINE_ENGINE_FUSION_H_
#define RIDGELINE_ENGINE_FUSION_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/counter_registry.h"
#include "engine/fusion_kinds.h"
#include "graph/graph.h"

namespace ridgeline::engine {

enum class FusionKind { kEpilogue, kElementwise, kAttention };
// "epilogue", "elementwise", "attention".
std::string_view FusionKindName(FusionKind kind);

struct FusionGroup {
  // "<kind>:<name of the anchor node>" (MatMul / Conv of an epilogue, QK^T
  // MatMul or contrib op of an attention group, first member otherwise).
  std::string name;
  FusionKind kind = FusionKind::kElementwise;
  int anchor = -1;           // node index
  std::vector<int> members;  // node indices, in topological order
};

struct FusionPlan {
  FusionKinds kinds;
  // Disjoint groups, in topological order of their first member. Each has at
  // least two members that are not pure views, except a com.microsoft
  // attention op, which is a group of its own (it is already one kernel; the
  // group re-prices it as flash attention).
  std::vector<FusionGroup> groups;
  // Per node: index into `groups`, or -1.
  std::vector<int> group_of;
};

// Groups the graph's nodes with the rules in `kinds`. Nodes of If/Loop
// bodies and nodes whose outputs are folded shape computations are never
// grouped. No group holds both the producer and a consumer of a tensor in
// `barriers` (a collective sits on it: CollectiveTensors). Fails only if the
// graph is not finalized.
absl::StatusOr<FusionPlan> PlanFusion(const graph::Graph& graph,
                                      FusionKinds kinds,
                                      std::span<const int> barriers = {});

// The tensors a collective of `analysis` sits on: the outputs of the nodes a
// tensor-parallel all-reduce (row-parallel MatMuls, MoE layers) or
// all-gather (a split LM head) follows. A real runtime cannot fuse across
// them: the row-parallel output is a partial sum until it is all-reduced.
// Empty when `analysis` is not tensor-parallel.
std::vector<int> CollectiveTensors(const graph::Graph& graph,
                                   const Analysis& analysis);

// Checks a plan's invariants: groups are disjoint, each is connected (through
// tensors between members, direction ignored), and the graph of groups is
// acyclic. PlanFusion's plans always pass; exposed for tests and for plans
// built by hand.
absl::Status ValidateFusionPlan(const graph::Graph& graph,
                                const FusionPlan& plan);

// Tensors that enter and leave a group. A pure view inside the group aliases
// its input, so tensors are named by their alias root: the tensor a chain of
// member views starts from.
struct GroupBoundary {
  std::vector<int> inputs;   // read by a member, produced outside the group
  std::vector<int> outputs;  // produced by a member, consumed outside the
                             // group or a graph output
  // Per input: the members (not pure views) that read it.
  std::vector<std::vector<int>> readers;
};
GroupBoundary ComputeGroupBoundary(const graph::Graph& graph,
                                   const std::vector<int>& members);

// The one kernel `members` of `group` run as (engine/timing.h): the
// anchor's op and, for an epilogue, its class and GEMM shape; an elementwise
// group with a reduction is a reduction kernel; the members' FLOPs; the
// bytes of the tensors entering the members (each read once) and leaving
// them, priced by `pricer`. `layers` / `layer_of` are an analysis' layers and
// the index of each node's layer. With `shares` (a tensor-parallel
// analysis' ParallelSummary::node_shares) the kernel is one GPU's: FLOPs
// and the GEMM shape come from the sharded layers, an input's bytes are
// scaled by the largest share its readers read (activation or weight), an
// output's by its producer's written share.
struct FusedKernel {
  KernelWork work;
  double bytes_read = 0;
  double bytes_written = 0;
};
FusedKernel FusedKernelOf(const graph::Graph& graph, const FusionGroup& group,
                          const std::vector<int>& members,
                          const std::vector<LayerResult>& layers,
                          const std::vector<int>& layer_of,
                          const TensorPricer& pricer, double flops_per_mac,
                          std::span<const NodeShare> shares = {});

// One group, before (each member its own kernel, as in the unfused
// analysis) and after fusion. Times in seconds, bytes in bytes, FLOPs in the
// analysis' FLOP convention (assumptions.flops_per_mac).
struct GroupResult {
  std::string name;
  FusionKind kind = FusionKind::kElementwise;
  std::vector<int> member_nodes;
  std::vector<std::string> members;  // node names (op type if unnamed)
  std::vector<std::string> member_ops;
  double flops = 0;          // sum of the members' FLOPs (unchanged by fusion)
  double bytes_unfused = 0;  // sum of the members' bytes
  double bytes_read = 0;     // fused: tensors entering the group
  double bytes_written = 0;  // fused: tensors leaving the group
  double weight_bytes = 0;   // part of bytes_read that is initializers
  double bytes = 0;          // fused: bytes_read + bytes_written
  double latency_unfused_s = 0;  // sum of the members' latencies
  double t_compute_s = 0;
  double t_memory_s = 0;
  double t_overhead_s = 0;             // one per-layer tax
  double latency_s = 0;                // max(t_compute, t_memory) + t_overhead
  double saved_s = 0;                  // latency_unfused_s - latency_s
  Bound bound_unfused = Bound::kNone;  // of the members' summed times
  Bound bound = Bound::kNone;
  // The roofline side alone (compute or memory: the larger of the two
  // terms, per-layer tax ignored), summed over the members / fused.
  Bound roof_bound_unfused = Bound::kNone;
  Bound roof_bound = Bound::kNone;
};

// A layer whose kernel changes bound because of fusion.
struct BoundFlip {
  std::string group;
  std::string layer;  // node name of a member
  Bound from = Bound::kNone;
  Bound to = Bound::kNone;
};

struct FusionResult {
  FusionKinds kinds;
  std::vector<GroupResult> groups;  // in plan order
  // Whole model: sum of layer latencies + dispatch tax, unfused and fused.
  double latency_unfused_s = 0;
  double latency_s = 0;
  double saved_s = 0;
  double speedup = 1;  // latency_unfused_s / latency_s
  double bytes_unfused = 0;
  double bytes = 0;
  int64_t kernels_unfused = 0;  // non-view layers
  int64_t kernels = 0;          // after fusion
  // Groups whose roofline side flips from memory-bound (summed member
  // times) to compute-bound (fused kernel), and, for each, the member
  // layers whose own roofline side was memory-bound. The per-layer tax is
  // left out of this comparison: it often exceeds both terms of small
  // kernels (bound "overhead") and would hide where the kernel sits on the
  // roofline.
  std::vector<BoundFlip> group_flips;
  std::vector<BoundFlip> layer_flips;
  // Planned groups left unpriced because a member's layer was skipped by the
  // analysis (unresolved shape or counter error): their members stay
  // unfused in every total.
  std::vector<std::string> skipped_groups;
  // Planned groups the analysis' runtime already runs as one kernel: left
  // as they are (no saving).
  int64_t runtime_fused_groups = 0;
  double flops_per_mac = 2;  // the FLOP convention of `flops`
  // Sharded (the analysis sharded with --tp/--pp/--ep): the GPUs and the
  // layout; groups, FLOPs, bytes and kernels are then one GPU's (the
  // busiest one's under --ep), the latencies one inference of the whole
  // sharded model with its collectives (collective_s, their time, unchanged
  // by fusion).
  int gpus = 1;
  int tp = 1;
  int pp = 1;
  int ep = 1;
  double collective_s = 0;
};

// Prices `plan` against the unfused analysis of the same graph. `pricer` must
// be the one the analysis priced tensors with (nullptr: the model's own
// dtypes); it prices the tensors that enter and leave each group. Latency
// uses the analysis' own roofline: T_compute = FLOPs / (peak * compute
// efficiency), T_memory = bytes / (bandwidth * memory efficiency), latency =
// max + per-layer tax, with the per-op efficiencies of the hardware entry
// taken from the group's anchor op. A tensor-parallel analysis
// (ShardAnalysis with tp > 1) is fused per GPU (FusedKernelOf with its node
// shares); its plan must come from PlanFusion with its CollectiveTensors.
// Fails if a member has no layer in the analysis, if a group spans a
// collective, or if the analysis is pipeline- or expert-parallel.
absl::StatusOr<FusionResult> ApplyFusion(const Analysis& unfused,
                                         const FusionPlan& plan,
                                         const graph::Graph& graph,
                                         const TensorPricer* pricer = nullptr);

// The same, with the pricer the analysis used resolved from the options it
// was run with: options.pricer, else --precision's re-pricing
// (FloatRepricer), else the model's dtypes. Pass the AnalyzeOptions given to
// Analyze() for `unfused`.
absl::StatusOr<FusionResult> ApplyFusion(const Analysis& unfused,
                                         const FusionPlan& plan,
                                         const graph::Graph& graph,
                                         const AnalyzeOptions& options);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_FUSION_H_
