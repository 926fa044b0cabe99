// The epilogue rule: a Conv / Gemm / MatMul anchor grows downstream over
// epilogue ops (bias or residual Add, BatchNormalization, activations and
// their decomposed patterns such as Div/Erf/Add/Mul GELU and x*Sigmoid(x),
// Q/DQ, views) that keep the anchor's output size: every member's output has
// as many elements as the anchor's, and every operand from outside the group
// has at most that many. DequantizeLinear nodes whose output feeds only the
// anchor are taken as its prologue (the kernel reads the quantized tensor),
// and never as the epilogue of the anchor before it.
#include <algorithm>
#include <deque>
#include <vector>

#include "engine/fusion/op_sets.h"
#include "engine/fusion/rules.h"

namespace ridgeline::engine::fusion {
namespace {

// A DequantizeLinear whose output only an anchor reads is that anchor's
// prologue (the next kernel reads the quantized tensor the Q before it
// wrote), not an epilogue member that would write it dequantized.
bool IsPrologueOfAnotherAnchor(const RuleContext& context,
                               const graph::Node& node) {
  if (!IsDequantize(node) || node.Output(0) < 0 ||
      !context.SingleUse(node.Output(0))) {
    return false;
  }
  const graph::Graph& graph = context.graph();
  const int consumer = graph.tensor(node.Output(0)).consumers[0];
  return IsEpilogueAnchor(graph.node(consumer));
}

// The candidate keeps the epilogue's size: outputs as large as the anchor's,
// operands from outside the group no larger.
bool KeepsSize(const RuleContext& context, const GroupBuilder& builder,
               int group, int candidate, int64_t anchor_elements) {
  const graph::Graph& graph = context.graph();
  const graph::Node& node = graph.node(candidate);
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i] < 0) continue;
    if (context.OutputElements(candidate, i) != anchor_elements) return false;
  }
  for (int in : node.inputs) {
    if (in < 0) continue;
    const graph::Tensor& t = graph.tensor(in);
    if (t.producer >= 0 && builder.GroupOf(t.producer) == group) continue;
    if (!t.shape_known || t.NumElements() > anchor_elements) return false;
  }
  return true;
}

// An epilogue kernel writes one tensor: while more than one tensor leaves the
// group, drop its last member (which no member reads, so the rest stays
// connected). This keeps e.g. o_proj + residual Add from also taking the Cast
// that starts the next norm, whose output would then have to be written.
void TrimToOneOutput(const RuleContext& context, GroupBuilder& builder,
                     int anchor) {
  while (true) {
    const std::vector<int>& members = builder.Members(builder.GroupOf(anchor));
    if (members.size() <= 1) return;
    if (ComputeGroupBoundary(context.graph(), members).outputs.size() <= 1) {
      return;
    }
    int last = -1;
    for (int m : members) {
      if (m != anchor &&
          (last < 0 || context.TopoPosition(m) > context.TopoPosition(last))) {
        last = m;
      }
    }
    if (last < 0 || context.TopoPosition(last) < context.TopoPosition(anchor)) {
      return;  // only the anchor's prologue is left
    }
    builder.Remove(last);
  }
}

void GrowEpilogue(const RuleContext& context, GroupBuilder& builder,
                  int anchor) {
  const graph::Graph& graph = context.graph();
  const int64_t anchor_elements = context.OutputElements(anchor, 0);
  if (anchor_elements <= 0) return;
  std::vector<int> group = {anchor};
  // Prologue: dequantized operands read only by the anchor.
  for (int in : graph.node(anchor).inputs) {
    if (in < 0) continue;
    const int p = graph.tensor(in).producer;
    if (p < 0 || !context.SingleUse(in) || !IsDequantize(graph.node(p)) ||
        !context.Free(builder, p, FusionKind::kEpilogue)) {
      continue;
    }
    group.push_back(p);
  }
  if (group.size() > 1) {
    if (builder.CanUnite(group)) {
      builder.Unite(group, FusionKind::kEpilogue);
    } else {
      group.resize(1);
    }
  }
  // Epilogue: breadth-first over consumers of the members' outputs.
  std::deque<int> work = {anchor};
  while (!work.empty()) {
    const int m = work.front();
    work.pop_front();
    std::vector<int> candidates;
    for (int out : graph.node(m).outputs) {
      if (out < 0) continue;
      for (int c : graph.tensor(out).consumers) candidates.push_back(c);
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()),
                     candidates.end());
    for (int c : candidates) {
      const int g = builder.GroupOf(anchor);
      if (builder.GroupOf(c) == g ||
          !context.Free(builder, c, FusionKind::kEpilogue) ||
          !IsEpilogueOp(graph.node(c)) ||
          IsPrologueOfAnotherAnchor(context, graph.node(c)) ||
          !KeepsSize(context, builder, g, c, anchor_elements)) {
        continue;
      }
      if (!builder.CanUnite({anchor, c})) continue;
      builder.Unite({anchor, c}, FusionKind::kEpilogue);
      work.push_back(c);
    }
  }
  TrimToOneOutput(context, builder, anchor);
}

}  // namespace

void ApplyEpilogueRule(const RuleContext& context, GroupBuilder& builder) {
  const graph::Graph& graph = context.graph();
  for (int n : graph.topological_order()) {
    if (!IsEpilogueAnchor(graph.node(n)) ||
        !context.Free(builder, n, FusionKind::kEpilogue))
      continue;
    GrowEpilogue(context, builder, n);
  }
}

}  // namespace ridgeline::engine::fusion
