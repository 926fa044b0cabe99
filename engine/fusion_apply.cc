// ApplyFusion: re-prices the groups of a FusionPlan against an unfused
// analysis (declared in engine/fusion.h).
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/counters/common.h"
#include "engine/fusion.h"
#include "engine/fusion/op_sets.h"
#include "engine/kernel_plan.h"
#include "engine/precision.h"
#include "engine/precision_pricer.h"
#include "engine/timing.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

std::string NodeLabel(const graph::Graph& graph, int node) {
  const graph::Node& n = graph.node(node);
  if (!n.name.empty()) return n.name;
  return fmt::format("{}#{}", n.op_type, node);
}

// The bound of summed compute, memory and overhead times.
Bound BoundOf(double t_compute_s, double t_memory_s, double t_overhead_s) {
  if (t_compute_s <= 0 && t_memory_s <= 0 && t_overhead_s <= 0) {
    return Bound::kNone;
  }
  if (t_overhead_s > std::max(t_compute_s, t_memory_s)) return Bound::kOverhead;
  return t_compute_s >= t_memory_s ? Bound::kCompute : Bound::kMemory;
}

bool IsMember(const std::vector<int>& members, int node) {
  return node >= 0 &&
         std::find(members.begin(), members.end(), node) != members.end();
}

// Producers of a mask tensor looked at before giving up.
constexpr int kMaxMaskNodes = 64;

// Whether a producer of `tensor` (itself, or one up to kMaxMaskNodes
// producers up) satisfies `pred`.
template <typename Pred>
bool AnyProducer(const graph::Graph& graph, int tensor, Pred pred) {
  std::vector<int> stack = {tensor};
  std::vector<int> seen;
  while (!stack.empty() && static_cast<int>(seen.size()) < kMaxMaskNodes) {
    const int t = stack.back();
    stack.pop_back();
    const int p = t < 0 ? -1 : graph.tensor(t).producer;
    if (p < 0 || std::find(seen.begin(), seen.end(), p) != seen.end()) {
      continue;
    }
    seen.push_back(p);
    if (pred(graph.node(p))) return true;
    for (int in : graph.node(p).inputs) stack.push_back(in);
  }
  return false;
}

bool IsOnnxOp(const graph::Node& node, std::string_view op) {
  return (node.domain.empty() || node.domain == "ai.onnx") &&
         node.op_type == op;
}

// Whether `tensor`, a mask entering an attention group, is a decoder's
// causal mask: its producers keep a triangle (Trilu) or compare two
// position vectors that both come from a Range (Greater, Less,
// GreaterOrEqual, LessOrEqual: torch's arange comparisons in exported
// decoders). A comparison with a constant (T5's relative-position buckets,
// `position < max_exact`) is not one.
bool IsCausalMask(const graph::Graph& graph, int tensor) {
  auto from_range = [&](int t) {
    return AnyProducer(
        graph, t, [](const graph::Node& n) { return IsOnnxOp(n, "Range"); });
  };
  return AnyProducer(graph, tensor, [&](const graph::Node& n) {
    if (IsOnnxOp(n, "Trilu")) return true;
    const bool compares = IsOnnxOp(n, "Greater") || IsOnnxOp(n, "Less") ||
                          IsOnnxOp(n, "GreaterOrEqual") ||
                          IsOnnxOp(n, "LessOrEqual");
    return compares && from_range(n.Input(0)) && from_range(n.Input(1));
  });
}

// The QK^T product of an attention group: an attention MatMul whose scores
// go on to a member that is not another product; -1 when there is none.
int ScoreProduct(const graph::Graph& graph, const std::vector<int>& members,
                 const std::vector<LayerResult>& layers,
                 const std::vector<int>& layer_of) {
  auto member = [&](int node) { return IsMember(members, node); };
  for (int m : members) {
    const graph::Node& node = graph.node(m);
    if (!fusion::IsAttentionMatMul(node) || layer_of[m] < 0) continue;
    const int out = node.Output(0);
    if (layers[layer_of[m]].cost.gemm.batch <= 0 || out < 0 ||
        graph.tensor(out).consumers.empty() ||
        !member(graph.tensor(out).consumers[0]) ||
        fusion::IsAttentionMatMul(graph.node(graph.tensor(out).consumers[0]))) {
      continue;
    }
    return m;
  }
  return -1;
}

// The share of its score rectangle an attention group's kernel computes:
// CausalScoreShare (engine/cost.h) of its QK^T product's m x n when a mask
// added to (or selected into) the scores is causal (IsCausalMask), a fused
// attention op's own (Cost::attention_score_share), else 1.
double AttentionScoreShare(const graph::Graph& graph,
                           const std::vector<int>& members,
                           const std::vector<LayerResult>& layers,
                           const std::vector<int>& layer_of) {
  const int qk = ScoreProduct(graph, members, layers, layer_of);
  if (qk < 0) {
    // A fused attention op (com.microsoft, ai.onnx Attention) knows its own.
    double share = 1;
    for (int m : members) {
      if (layer_of[m] >= 0) {
        share = std::min(share, layers[layer_of[m]].cost.attention_score_share);
      }
    }
    return share;
  }
  auto member = [&](int node) { return IsMember(members, node); };
  for (int m : members) {
    const graph::Node& node = graph.node(m);
    if (!fusion::IsScoreOp(node) || node.op_type == "Mul" ||
        node.op_type == "Div" || node.op_type == "Cast" ||
        node.op_type == "Tanh") {
      continue;
    }
    for (int in : node.inputs) {
      if (in < 0 || member(graph.tensor(in).producer) ||
          graph.IsWeight(graph.tensor(in)) || !IsCausalMask(graph, in)) {
        continue;
      }
      const GemmShape& g = layers[layer_of[qk]].cost.gemm;
      return CausalScoreShare(g.m, g.n);
    }
  }
  return 1;
}

// The QK^T product an attention group's thread blocks tile: its score
// product's GEMM, else a fused attention op's own (Cost::attention_scores).
GemmShape AttentionScores(const graph::Graph& graph,
                          const std::vector<int>& members,
                          const std::vector<LayerResult>& layers,
                          const std::vector<int>& layer_of) {
  if (const int qk = ScoreProduct(graph, members, layers, layer_of); qk >= 0) {
    return layers[layer_of[qk]].cost.gemm;
  }
  for (int m : members) {
    if (layer_of[m] >= 0 &&
        layers[layer_of[m]].cost.attention_scores.batch > 0) {
      return layers[layer_of[m]].cost.attention_scores;
    }
  }
  return {};
}

// The (sequence, KV head) blocks an attention group reads its K in: the
// group's K input (the tensor that enters the group on the way to the
// QK^T MatMul's second operand, before any grouped-query Expand) over one
// block's context x head dim (the product's n x k), times the product's
// activation share (one GPU's heads under tensor parallelism).
double AttentionBlocks(const graph::Graph& graph,
                       const std::vector<int>& members,
                       const std::vector<LayerResult>& layers,
                       const std::vector<int>& layer_of,
                       std::span<const NodeShare> shares) {
  auto member = [&](int node) { return IsMember(members, node); };
  // QK^T: its scores go on to the softmax chain, not out of the group.
  if (const int m = ScoreProduct(graph, members, layers, layer_of); m >= 0) {
    const graph::Node& node = graph.node(m);
    const GemmShape& g = layers[layer_of[m]].cost.gemm;
    int t = node.Input(1);
    for (int depth = 0; t >= 0 && member(graph.tensor(t).producer); ++depth) {
      if (depth > 16) return 0;
      t = graph.node(graph.tensor(t).producer).Input(0);
    }
    if (t < 0 || !graph.tensor(t).shape_known) return 0;
    const double per_block = g.n * g.k;
    const double elements = static_cast<double>(graph.tensor(t).NumElements());
    if (!(per_block > 0) || !(elements >= per_block)) return 0;
    // One GPU's share: that of the product (its heads are split; the layout
    // ops in front of it may not carry a share of their own).
    const double share = shares.empty() ? 1.0 : shares[m].activations_read;
    return elements / per_block * share;
  }
  return 0;
}

}  // namespace

FusedKernel FusedKernelOf(const graph::Graph& graph, const FusionGroup& group,
                          const std::vector<int>& members,
                          const std::vector<LayerResult>& layers,
                          const std::vector<int>& layer_of,
                          const TensorPricer& pricer, double flops_per_mac,
                          std::span<const NodeShare> shares) {
  FusedKernel fused;
  KernelWork& w = fused.work;
  const LayerResult& anchor = layers[layer_of[group.anchor]];
  w.op_type = anchor.op_type;
  w.kind = group.kind == FusionKind::kAttention ? KernelClass::kAttention
                                                : KernelClass::kElementwise;
  if (group.kind == FusionKind::kEpilogue) {
    w.kind = ClassOfNode(graph.node(group.anchor), anchor.cost);
    w.gemm = anchor.cost.gemm;
  }
  for (int m : members) {
    const LayerResult& layer = layers[layer_of[m]];
    w.matrix_flops += layer.cost.macs * flops_per_mac;
    w.other_flops += layer.cost.other_flops;
    if (group.kind == FusionKind::kElementwise &&
        ClassOfNode(graph.node(m), layer.cost) == KernelClass::kReduction) {
      w.kind = KernelClass::kReduction;
    }
  }
  PlaceFlopsByClass(&w);
  const GroupBoundary boundary = ComputeGroupBoundary(graph, members);
  for (size_t i = 0; i < boundary.inputs.size(); ++i) {
    const int t = boundary.inputs[i];
    const bool weight = counters::IsWeight(graph, graph.tensor(t));
    double share = 1;
    if (!shares.empty()) {
      share = 0;
      for (int reader : boundary.readers[i]) {
        const NodeShare& s = shares[reader];
        share = std::max(share, weight ? s.weights_read : s.activations_read);
      }
    }
    const double bytes = pricer.TensorBytes(graph, graph.tensor(t)) * share;
    fused.bytes_read += bytes;
    if (weight) w.weight_bytes += bytes;
  }
  for (int t : boundary.outputs) {
    const int producer = graph.tensor(t).producer;
    const double share =
        shares.empty() || producer < 0 ? 1.0 : shares[producer].written;
    fused.bytes_written += pricer.TensorBytes(graph, graph.tensor(t)) * share;
  }
  w.bytes = fused.bytes_read + fused.bytes_written;
  if (w.kind == KernelClass::kAttention) {
    w.attention_blocks =
        AttentionBlocks(graph, members, layers, layer_of, shares);
    w.attention_score_share =
        AttentionScoreShare(graph, members, layers, layer_of);
    w.gemm = AttentionScores(graph, members, layers, layer_of);
  }
  return fused;
}

absl::StatusOr<FusionResult> ApplyFusion(const Analysis& unfused,
                                         const FusionPlan& plan,
                                         const graph::Graph& graph,
                                         const TensorPricer* pricer) {
  const TensorPricer default_pricer;
  const TensorPricer& price = pricer != nullptr ? *pricer : default_pricer;
  const Assumptions& a = unfused.assumptions;

  // Tensor parallel: every kernel is one GPU's share (node_shares).
  // Pipeline parallel: every node runs whole on its stage, one stage after
  // the other in one inference; no group spans a stage's send (a collective
  // like the all-reduces). Expert parallel: every layer is the busiest GPU's
  // share (its requests, or a MoE layer's routed rows and touched experts)
  // and no group spans a dispatch or combine all-to-all.
  std::span<const NodeShare> shares;
  FusionResult result;
  if (const std::optional<ParallelSummary>& p = unfused.summary.parallel) {
    if ((p->tp > 1 || p->ep > 1) &&
        p->node_shares.size() != graph.nodes().size()) {
      return absl::InvalidArgumentError(
          "the tensor-parallel analysis is of another graph");
    }
    shares = p->node_shares;
    result.gpus = p->gpus;
    result.tp = p->tp;
    result.pp = p->pp;
    result.ep = p->ep;
    result.collective_s = p->collective_s;
  }
  std::vector<int> layer_of(graph.nodes().size(), -1);
  for (size_t i = 0; i < unfused.layers.size(); ++i) {
    const int node = unfused.layers[i].node;
    // Collective layers (a sharded analysis') have no node and stay as they
    // are: fusion changes neither their messages nor their time.
    if (node < 0 && unfused.layers[i].message_bytes > 0) continue;
    if (node < 0 || node >= static_cast<int>(graph.nodes().size())) {
      return absl::InvalidArgumentError(
          fmt::format("layer '{}' names node {}, which the graph does not have",
                      unfused.layers[i].name, node));
    }
    layer_of[node] = static_cast<int>(i);
  }

  result.kinds = plan.kinds;
  result.flops_per_mac = a.flops_per_mac;
  result.latency_unfused_s = unfused.summary.latency_s;
  for (const LayerResult& layer : unfused.layers) {
    if (layer.node >= 0) result.bytes_unfused += layer.bytes;
  }
  // No group may span a collective (PlanFusion with CollectiveTensors).
  const std::vector<int> collective_tensors = CollectiveTensors(graph, unfused);
  std::vector<int> group_of(
      collective_tensors.empty() ? 0 : graph.nodes().size(), -1);
  for (size_t g = 0; g < plan.groups.size() && !group_of.empty(); ++g) {
    for (int m : plan.groups[g].members) group_of[m] = static_cast<int>(g);
  }
  for (int t : collective_tensors) {
    const int producer = graph.tensor(t).producer;
    const int g = producer >= 0 ? group_of[producer] : -1;
    if (g < 0) continue;
    for (int c : graph.tensor(t).consumers) {
      if (group_of[c] == g) {
        return absl::InvalidArgumentError(fmt::format(
            "fusion group '{}' spans the collective after '{}'; plan it with "
            "PlanFusion(graph, kinds, CollectiveTensors(graph, analysis))",
            plan.groups[g].name, NodeLabel(graph, producer)));
      }
    }
  }
  result.kernels_unfused = static_cast<int64_t>(unfused.kernels.size());
  result.bytes = result.bytes_unfused;
  result.kernels = result.kernels_unfused;

  for (const FusionGroup& group : plan.groups) {
    bool skipped = false;
    for (int m : group.members) {
      const int li = layer_of[m];
      if (li >= 0 && unfused.layers[li].skipped) skipped = true;
    }
    if (skipped) {
      result.skipped_groups.push_back(group.name);
      continue;
    }
    GroupResult g;
    g.name = group.name;
    g.kind = group.kind;
    g.member_nodes = group.members;
    double t_compute_unfused = 0;
    double t_memory_unfused = 0;
    double t_overhead_unfused = 0;
    std::vector<int> member_kernels;
    for (int m : group.members) {
      const int li = layer_of[m];
      if (li < 0) {
        return absl::InvalidArgumentError(fmt::format(
            "fusion group '{}': node '{}' has no layer in the analysis",
            group.name, NodeLabel(graph, m)));
      }
      const LayerResult& layer = unfused.layers[li];
      g.members.push_back(NodeLabel(graph, m));
      g.member_ops.push_back(graph.node(m).op_type);
      g.flops += layer.flops;
      g.bytes_unfused += layer.bytes;
      g.latency_unfused_s += layer.latency_s;
      t_compute_unfused += layer.t_compute_s;
      t_memory_unfused += layer.t_memory_s;
      t_overhead_unfused += layer.t_overhead_s;
      if (layer.kernel >= 0 &&
          std::find(member_kernels.begin(), member_kernels.end(),
                    layer.kernel) == member_kernels.end()) {
        member_kernels.push_back(layer.kernel);
      }
    }
    // Every member already runs in one kernel of the analysis' runtime
    // (its own fusion, or sibling GEMMs merged): nothing to re-price.
    if (member_kernels.size() == 1) {
      bool all_in = true;
      for (int m : group.members) {
        const LayerResult& layer = unfused.layers[layer_of[m]];
        if (!layer.cost.view && !layer.host &&
            layer.kernel != member_kernels[0]) {
          all_in = false;
        }
      }
      if (all_in) {
        ++result.runtime_fused_groups;
        continue;
      }
    }
    g.bound_unfused =
        BoundOf(t_compute_unfused, t_memory_unfused, t_overhead_unfused);
    g.roof_bound_unfused = BoundOf(t_compute_unfused, t_memory_unfused, 0);

    const FusedKernel fused =
        FusedKernelOf(graph, group, group.members, unfused.layers, layer_of,
                      price, a.flops_per_mac, shares);
    g.bytes_read = fused.bytes_read;
    g.bytes_written = fused.bytes_written;
    g.weight_bytes = fused.work.weight_bytes;
    g.bytes = g.bytes_read + g.bytes_written;
    KernelWork work = fused.work;
    // The L2 serves the fused kernel's boundary tensors in the share it
    // served its member kernels' ones (engine/l2.h).
    double member_bytes = 0;
    double member_l2_bytes = 0;
    for (int k : member_kernels) {
      const KernelWork& w = unfused.kernels[k].work;
      const double others = std::max(0.0, w.bytes - w.weight_bytes);
      member_bytes += others;
      member_l2_bytes += others * w.l2_activation_share;
    }
    work.l2_activation_share =
        member_bytes > 0 ? member_l2_bytes / member_bytes : 0;
    work.l2_weights = a.l2_weights_resident && work.weight_bytes > 0;
    const KernelTime time = TimeKernel(work, unfused.pricing);
    g.t_compute_s = time.t_compute_s;
    g.t_memory_s = time.t_memory_s;
    g.t_overhead_s = time.t_overhead_s;
    g.latency_s = time.latency_s;
    g.bound = BoundOf(time.t_compute_s, time.t_memory_s, time.t_overhead_s);
    g.roof_bound = BoundOf(time.t_compute_s, time.t_memory_s, 0);
    g.saved_s = g.latency_unfused_s - g.latency_s;

    result.bytes += g.bytes - g.bytes_unfused;
    if (!member_kernels.empty()) {
      // The fused kernel replaces the member kernels the group holds whole;
      // a kernel it holds only part of (a runtime epilogue whose residual
      // Add the group takes across an all-reduce) still runs.
      int64_t replaced = 0;
      for (int k : member_kernels) {
        bool whole = true;
        for (int li : unfused.kernels[k].layers) {
          const int node = unfused.layers[li].node;
          if (std::find(group.members.begin(), group.members.end(), node) ==
              group.members.end()) {
            whole = false;
          }
        }
        replaced += whole;
      }
      result.kernels -= replaced - 1;
    }
    result.saved_s += g.saved_s;
    if (g.roof_bound_unfused == Bound::kMemory &&
        g.roof_bound == Bound::kCompute) {
      result.group_flips.push_back({.group = g.name,
                                    .layer = "",
                                    .from = Bound::kMemory,
                                    .to = Bound::kCompute});
      for (int m : group.members) {
        const LayerResult& layer = unfused.layers[layer_of[m]];
        if (BoundOf(layer.t_compute_s, layer.t_memory_s, 0) == Bound::kMemory) {
          result.layer_flips.push_back({.group = g.name,
                                        .layer = NodeLabel(graph, m),
                                        .from = Bound::kMemory,
                                        .to = Bound::kCompute});
        }
      }
    }
    result.groups.push_back(std::move(g));
  }
  result.latency_s = result.latency_unfused_s - result.saved_s;
  result.speedup =
      result.latency_s > 0 ? result.latency_unfused_s / result.latency_s : 1;
  return result;
}

absl::StatusOr<FusionResult> ApplyFusion(const Analysis& unfused,
                                         const FusionPlan& plan,
                                         const graph::Graph& graph,
                                         const AnalyzeOptions& options) {
  if (options.pricer != nullptr) {
    return ApplyFusion(unfused, plan, graph, options.pricer);
  }
  if (!options.precision.empty()) {
    const Precision* p = FindPrecision(options.precision);
    if (p == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("unknown precision '{}'", options.precision));
    }
    const FloatRepricer repricer(*p);
    return ApplyFusion(unfused, plan, graph, &repricer);
  }
  return ApplyFusion(unfused, plan, graph,
                     static_cast<const TensorPricer*>(nullptr));
}

}  // namespace ridgeline::engine
