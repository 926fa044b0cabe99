// ApplyFusion: re-prices the groups of a FusionPlan against an unfused
// analysis (declared in engine/fusion.h).
#include <algorithm>
#include <string>
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

}  // namespace

FusedKernel FusedKernelOf(const graph::Graph& graph, const FusionGroup& group,
                          const std::vector<int>& members,
                          const std::vector<LayerResult>& layers,
                          const std::vector<int>& layer_of,
                          const TensorPricer& pricer, double flops_per_mac) {
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
  for (int t : boundary.inputs) {
    const double bytes = pricer.TensorBytes(graph, graph.tensor(t));
    fused.bytes_read += bytes;
    if (counters::IsWeight(graph, graph.tensor(t))) w.weight_bytes += bytes;
  }
  for (int t : boundary.outputs) {
    fused.bytes_written += pricer.TensorBytes(graph, graph.tensor(t));
  }
  w.bytes = fused.bytes_read + fused.bytes_written;
  return fused;
}

absl::StatusOr<FusionResult> ApplyFusion(const Analysis& unfused,
                                         const FusionPlan& plan,
                                         const graph::Graph& graph,
                                         const TensorPricer* pricer) {
  const TensorPricer default_pricer;
  const TensorPricer& price = pricer != nullptr ? *pricer : default_pricer;
  const Assumptions& a = unfused.assumptions;

  std::vector<int> layer_of(graph.nodes().size(), -1);
  for (size_t i = 0; i < unfused.layers.size(); ++i) {
    const int node = unfused.layers[i].node;
    if (node < 0 || node >= static_cast<int>(graph.nodes().size())) {
      return absl::InvalidArgumentError(
          fmt::format("layer '{}' names node {}, which the graph does not have",
                      unfused.layers[i].name, node));
    }
    layer_of[node] = static_cast<int>(i);
  }

  FusionResult result;
  result.kinds = plan.kinds;
  result.flops_per_mac = a.flops_per_mac;
  result.latency_unfused_s = unfused.summary.latency_s;
  for (const LayerResult& layer : unfused.layers)
    result.bytes_unfused += layer.bytes;
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
                      price, a.flops_per_mac);
    g.bytes_read = fused.bytes_read;
    g.bytes_written = fused.bytes_written;
    g.weight_bytes = fused.work.weight_bytes;
    g.bytes = g.bytes_read + g.bytes_written;
    const KernelWork& work = fused.work;
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
      result.kernels -= static_cast<int64_t>(member_kernels.size()) - 1;
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
