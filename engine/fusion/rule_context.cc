#include "engine/fusion/op_sets.h"
#include "engine/fusion/rules.h"

namespace ridgeline::engine::fusion {

RuleContext::RuleContext(const graph::Graph& graph) : graph_(graph) {
  for (int t : graph.outputs()) graph_outputs_.insert(t);
  topo_position_.assign(graph.nodes().size(), 0);
  const std::vector<int>& order = graph.topological_order();
  for (size_t i = 0; i < order.size(); ++i) {
    topo_position_[order[i]] = static_cast<int>(i);
  }
}

bool RuleContext::Groupable(int node) const {
  const graph::Node& n = graph_.node(node);
  if (n.parent >= 0) return false;
  bool any_output = false;
  bool all_folded = true;
  for (int out : n.outputs) {
    if (out < 0) continue;
    const graph::Tensor& t = graph_.tensor(out);
    if (!t.shape_known) return false;
    any_output = true;
    if (!t.int_values.has_value()) all_folded = false;
  }
  return any_output && !all_folded;
}

bool RuleContext::Free(const GroupBuilder& builder, int node,
                       FusionKind kind) const {
  return Groupable(node) && builder.Available(node, kind) &&
         builder.Members(builder.GroupOf(node)).size() == 1;
}

bool RuleContext::SingleUse(int tensor) const {
  return graph_.tensor(tensor).consumers.size() == 1 && !IsGraphOutput(tensor);
}

int64_t RuleContext::OutputElements(int node, size_t i) const {
  const int t = graph_.node(node).Output(i);
  if (t < 0 || !graph_.tensor(t).shape_known) return -1;
  return graph_.tensor(t).NumElements();
}

void DropTrivialGroups(const RuleContext& context, FusionKind kind,
                       GroupBuilder& builder) {
  for (int g : builder.ClaimedGroups()) {
    const std::vector<int>& members = builder.Members(g);
    if (builder.KindOf(members[0]) != kind) continue;
    int work = 0;
    bool contrib_attention = false;
    for (int m : members) {
      const graph::Node& node = context.graph().node(m);
      if (!IsPureView(node)) ++work;
      if (IsContribAttention(node)) contrib_attention = true;
    }
    if (work >= 2) continue;
    if (work == 1 && contrib_attention && members.size() == 1) continue;
    builder.Dissolve(g);
  }
}

}  // namespace ridgeline::engine::fusion
