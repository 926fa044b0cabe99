// The fusion rules (internal to engine/fusion). Each claims groups of its kind
// in a GroupBuilder; nodes already claimed by an earlier rule are left alone.
#ifndef RIDGELINE_ENGINE_FUSION_RULES_H_
#define RIDGELINE_ENGINE_FUSION_RULES_H_

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "engine/fusion/group_builder.h"
#include "graph/graph.h"

namespace ridgeline::engine::fusion {

// Facts about the graph the rules share.
class RuleContext {
 public:
  explicit RuleContext(const graph::Graph& graph);

  const graph::Graph& graph() const { return graph_; }
  // The node may join a group: it is in the main graph (not an If/Loop
  // body), all its outputs have known shapes, and they are not all folded
  // integer constants (shape computations a runtime folds away).
  bool Groupable(int node) const;
  bool IsGraphOutput(int tensor) const {
    return graph_outputs_.contains(tensor);
  }
  // The tensor is read by exactly one node and is not a graph output.
  bool SingleUse(int tensor) const;
  // Element count of output `i` of `node`, or -1 when absent or unknown.
  int64_t OutputElements(int node, size_t i) const;
  // The node may start or join a group of `kind`: Groupable, available to
  // that kind in `builder`, and not yet grouped with anything.
  bool Free(const GroupBuilder& builder, int node, FusionKind kind) const;
  // Position of the node in the graph's topological order.
  int TopoPosition(int node) const { return topo_position_[node]; }

 private:
  const graph::Graph& graph_;
  std::vector<int> topo_position_;
  absl::flat_hash_set<int> graph_outputs_;
};

void ApplyAttentionRule(const RuleContext& context, GroupBuilder& builder);
void ApplyEpilogueRule(const RuleContext& context, GroupBuilder& builder);
void ApplyElementwiseRule(const RuleContext& context, GroupBuilder& builder);

// Dissolves the groups of `kind` that hold fewer than two members that are
// not pure views (a lone com.microsoft attention op is kept: it is re-priced
// as flash attention).
void DropTrivialGroups(const RuleContext& context, FusionKind kind,
                       GroupBuilder& builder);

}  // namespace ridgeline::engine::fusion

#endif  // RIDGELINE_ENGINE_FUSION_RULES_H_
