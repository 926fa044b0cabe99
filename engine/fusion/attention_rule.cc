// The attention rule: MatMul(Q, K^T) -> [scale, mask, Where, Cast]* ->
// Softmax -> [Cast, inference Dropout or Identity]* -> MatMul(P, V), plus
// the layout ops that only feed Q, K^T and V (Transpose, the Expand/Reshape of
// grouped-query attention, views, and a Transpose of the output, through the
// views before it, a scalar scale), as one flash-attention kernel. Every score
// tensor must be used only by the next op of the pattern: a score tensor needed
// elsewhere would have to be written, which flash attention does not do, so no
// group is formed then. com.microsoft attention ops become groups of their own.
#include <vector>

#include "engine/fusion/op_sets.h"
#include "engine/fusion/rules.h"

namespace ridgeline::engine::fusion {
namespace {

// Longest scale/mask chain followed between the two products.
constexpr int kMaxScoreOps = 8;
// Longest layout chain absorbed in front of Q, K or V.
constexpr int kMaxLayoutOps = 6;

bool IsWeight(const graph::Graph& graph, int tensor) {
  return tensor >= 0 && graph.IsWeight(graph.tensor(tensor));
}

// Walks up from the score tensor `tensor` to the QK^T product. On success
// appends the score ops to `chain` and sets `qk`.
bool FindScoreChain(const RuleContext& context, const GroupBuilder& builder,
                    int tensor, int depth, std::vector<int>* chain, int* qk) {
  const graph::Graph& graph = context.graph();
  if (depth > kMaxScoreOps || tensor < 0) return false;
  const int p = graph.tensor(tensor).producer;
  if (p < 0 || !context.SingleUse(tensor) ||
      !context.Free(builder, p, FusionKind::kAttention)) {
    return false;
  }
  const graph::Node& node = graph.node(p);
  if (IsAttentionMatMul(node)) {
    if (IsWeight(graph, node.Input(0)) || IsWeight(graph, node.Input(1))) {
      return false;
    }
    *qk = p;
    return true;
  }
  if (!IsScoreOp(node) && !IsPureView(node)) return false;
  const int64_t out_elements = context.OutputElements(p, 0);
  for (int in : node.inputs) {
    if (in < 0) continue;
    const graph::Tensor& t = graph.tensor(in);
    if (!t.shape_known || t.producer < 0 || t.NumElements() != out_elements) {
      continue;
    }
    const size_t mark = chain->size();
    chain->push_back(p);
    if (FindScoreChain(context, builder, in, depth + 1, chain, qk)) return true;
    chain->resize(mark);
  }
  return false;
}

bool IsScalarScale(const graph::Graph& graph, const graph::Node& node) {
  if (!(node.domain.empty() &&
        (node.op_type == "Mul" || node.op_type == "Div"))) {
    return false;
  }
  const int b = node.Input(1);
  return b >= 0 && graph.tensor(b).shape_known &&
         graph.tensor(b).NumElements() == 1;
}

// Appends the layout ops that feed only `tensor`'s consumer chain.
void CollectLayout(const RuleContext& context, const GroupBuilder& builder,
                   int tensor, std::vector<int>* members) {
  const graph::Graph& graph = context.graph();
  for (int i = 0; i < kMaxLayoutOps && tensor >= 0; ++i) {
    const int p = graph.tensor(tensor).producer;
    if (p < 0 || !context.SingleUse(tensor) ||
        !context.Free(builder, p, FusionKind::kAttention)) {
      return;
    }
    const graph::Node& node = graph.node(p);
    if (!IsAttentionLayoutOp(node) && !IsScalarScale(graph, node)) return;
    members->push_back(p);
    tensor = node.Input(0);
  }
}

void TryPattern(const RuleContext& context, GroupBuilder& builder,
                int softmax) {
  const graph::Graph& graph = context.graph();
  const graph::Node& s = graph.node(softmax);
  if (!context.Free(builder, softmax, FusionKind::kAttention)) return;
  std::vector<int> members;
  int qk = -1;
  if (!FindScoreChain(context, builder, s.Input(0), 0, &members, &qk)) return;
  members.push_back(softmax);
  // Forward through Casts and inference no-ops (a Dropout left in an
  // exported eval model) to the AV product.
  int probs = s.Output(0);
  int av = -1;
  for (int i = 0; i <= kMaxScoreOps && probs >= 0; ++i) {
    if (!context.SingleUse(probs)) return;
    const int c = graph.tensor(probs).consumers[0];
    if (!context.Free(builder, c, FusionKind::kAttention)) return;
    const graph::Node& node = graph.node(c);
    if (IsAttentionMatMul(node)) {
      if (node.Input(0) != probs || IsWeight(graph, node.Input(1))) return;
      av = c;
      break;
    }
    if (!(node.domain.empty() && node.op_type == "Cast") &&
        !IsInferenceIdentity(graph, node)) {
      return;
    }
    members.push_back(c);
    probs = node.Output(0);
  }
  if (av < 0) return;
  members.push_back(qk);
  members.push_back(av);
  CollectLayout(context, builder, graph.node(qk).Input(0), &members);
  CollectLayout(context, builder, graph.node(qk).Input(1), &members);
  CollectLayout(context, builder, graph.node(av).Input(1), &members);
  // A Transpose of the output (heads back beside the hidden dim) is how
  // flash attention writes its output anyway: taken into the kernel, with
  // the pure views before it (grouped-query exports reshape the
  // [batch, kv heads, group, ...] product back to [batch, heads, ...]).
  std::vector<int> views;
  int out = graph.node(av).Output(0);
  for (int i = 0; i <= kMaxLayoutOps && out >= 0 && context.SingleUse(out);
       ++i) {
    const int t = graph.tensor(out).consumers[0];
    if (!context.Free(builder, t, FusionKind::kAttention)) break;
    const graph::Node& node = graph.node(t);
    if (node.domain.empty() && node.op_type == "Transpose") {
      members.insert(members.end(), views.begin(), views.end());
      members.push_back(t);
      break;
    }
    if (!IsPureView(node)) break;
    views.push_back(t);
    out = node.Output(0);
  }
  if (!builder.CanUnite(members)) return;
  builder.Unite(members, FusionKind::kAttention);
}

}  // namespace

void ApplyAttentionRule(const RuleContext& context, GroupBuilder& builder) {
  const graph::Graph& graph = context.graph();
  for (int n : graph.topological_order()) {
    const graph::Node& node = graph.node(n);
    if (IsContribAttention(node)) {
      if (context.Free(builder, n, FusionKind::kAttention))
        builder.Unite({n}, FusionKind::kAttention);
      continue;
    }
    if ((node.domain.empty() && node.op_type == "Softmax")) {
      TryPattern(context, builder, n);
    }
  }
}

}  // namespace ridgeline::engine::fusion
