// The elementwise rule: maximal connected sets of elementwise and broadcast
// ops, the layout ops a generated kernel indexes into (Slice, Concat,
// Transpose, Expand: rotary's rotate_half), norms (whole ops, or decomposed
// into Pow / ReduceMean / Add / Sqrt / Div / Mul / Sub with keep-dims
// reductions), Softmax and views. Walking the graph in topological order, each
// eligible node merges with the group of each eligible producer, unless the
// merge would put the graph of groups on a cycle. Unlike an epilogue, such a
// group may write several tensors (a residual Add fused with the norm that
// follows writes the sum and the normalized output).
#include <vector>

#include "engine/fusion/op_sets.h"
#include "engine/fusion/rules.h"

namespace ridgeline::engine::fusion {
namespace {

// A Concat that reads a graph input (a KV-cache append: past + new) writes
// the whole cache; it is a kernel (or an in-place write) of its own.
bool ReadsGraphInput(const graph::Graph& graph, int node) {
  for (int t : graph.node(node).inputs) {
    if (t >= 0 && graph.tensor(t).kind == graph::TensorKind::kGraphInput) {
      return true;
    }
  }
  return false;
}

bool Eligible(const RuleContext& context, const GroupBuilder& builder,
              int node) {
  const graph::Node& n = context.graph().node(node);
  if (n.op_type == "Concat" && ReadsGraphInput(context.graph(), node)) {
    return false;
  }
  return context.Groupable(node) &&
         builder.Available(node, FusionKind::kElementwise) &&
         IsElementwiseGroupOp(context.graph().node(node));
}

}  // namespace

void ApplyElementwiseRule(const RuleContext& context, GroupBuilder& builder) {
  const graph::Graph& graph = context.graph();
  for (int n : graph.topological_order()) {
    if (!Eligible(context, builder, n)) continue;
    for (int in : graph.node(n).inputs) {
      if (in < 0) continue;
      const int p = graph.tensor(in).producer;
      if (p < 0 || builder.GroupOf(p) == builder.GroupOf(n) ||
          !Eligible(context, builder, p)) {
        continue;
      }
      if (builder.CanUnite({n, p})) {
        builder.Unite({n, p}, FusionKind::kElementwise);
      }
    }
  }
}

}  // namespace ridgeline::engine::fusion
