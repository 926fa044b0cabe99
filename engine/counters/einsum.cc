// Einsum. Two operands: MACs = product of the sizes of all distinct labels
// (every combination of labels is one multiply-add). More operands: contracted
// pairwise left to right; each step costs the product of the distinct labels
// of the pair, and keeps only the labels a later operand or the output needs.
// One operand (transpose, diagonal, sum): no MACs; one add per input element
// when a label is summed out. "..." stands for broadcast batch labels. A
// two-operand equation that is a batched matrix product also records that
// GEMM (Cost::gemm), which the kernel model tiles like a MatMul's.
#include "graph/einsum.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/counters/common.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

// A label: a letter, or an ellipsis position (kEllipsisBase + position
// counted from the right).
using Label = int;
constexpr Label kEllipsisBase = 1000;

// The labels of `term` applied to an operand of rank `rank`.
absl::StatusOr<std::vector<Label>> Expand(const CountContext& ctx,
                                          const graph::EinsumTerm& term,
                                          size_t rank) {
  const size_t letters = term.letters.size();
  if (letters > rank || (!term.has_ellipsis() && letters != rank)) {
    return NodeError(ctx, fmt::format("equation term has {} labels for an "
                                      "operand of rank {}",
                                      letters, rank));
  }
  const size_t ellipsis_rank = rank - letters;
  std::vector<Label> labels;
  for (size_t i = 0; i <= letters; ++i) {
    if (static_cast<int>(i) == term.ellipsis_at) {
      for (size_t j = 0; j < ellipsis_rank; ++j) {
        labels.push_back(kEllipsisBase + static_cast<Label>(ellipsis_rank - j));
      }
    }
    if (i < letters) labels.push_back(static_cast<Label>(term.letters[i]));
  }
  return labels;
}

// The batched GEMM a two-operand equation is, when it is one: every label
// is a batch label (both operands and the output), an M label (operand 0
// and the output), an N label (operand 1 and the output) or a K label (both
// operands, summed out), each once per operand ("bhid,bhjd->bhij": batch
// b h, M i, N j, K d). Otherwise (a label summed out of one operand only, a
// diagonal) an empty shape.
GemmShape TwoOperandGemm(const CountContext& ctx,
                         const std::vector<std::vector<Label>>& labels,
                         const std::map<Label, double>& size,
                         const std::set<Label>& output) {
  const std::set<Label> a(labels[0].begin(), labels[0].end());
  const std::set<Label> b(labels[1].begin(), labels[1].end());
  if (a.size() != labels[0].size() || b.size() != labels[1].size()) return {};
  GemmShape g{.batch = 1, .m = 1, .n = 1, .k = 1};
  for (const auto& [x, n] : size) {
    const bool in_a = a.contains(x), in_b = b.contains(x);
    const bool out = output.contains(x);
    if (in_a && in_b) {
      (out ? g.batch : g.k) *= n;
    } else if (out) {
      (in_a ? g.m : g.n) *= n;
    } else {
      return {};  // summed out of one operand alone
    }
  }
  const graph::Tensor* rhs = ctx.input(1);
  g.b_is_weight = rhs != nullptr && IsWeight(ctx.graph, *rhs);
  g.element_bytes =
      rhs != nullptr ? ctx.pricer.ElementBytes(ctx.graph, *rhs) : 0;
  return g;
}

absl::StatusOr<Cost> CountEinsum(const CountContext& ctx) {
  absl::StatusOr<graph::EinsumEquation> equation =
      graph::ParseEinsum(ctx.node.GetString("equation", ""));
  if (!equation.ok())
    return NodeError(ctx, std::string(equation.status().message()));
  const std::vector<graph::EinsumTerm>& terms = equation->inputs;
  std::vector<const graph::Tensor*> operands;
  for (size_t i = 0; i < ctx.node.inputs.size(); ++i) {
    if (ctx.input(i) != nullptr) operands.push_back(ctx.input(i));
  }
  if (operands.empty() || terms.size() != operands.size()) {
    return NodeError(ctx, fmt::format("equation '{}' has {} terms for {} "
                                      "operands",
                                      ctx.node.GetString("equation", ""),
                                      terms.size(), operands.size()));
  }
  // Labels of each operand, and the size of each label (broadcast: max).
  std::vector<std::vector<Label>> labels;
  std::map<Label, double> size;
  std::map<Label, int> uses;
  for (size_t i = 0; i < operands.size(); ++i) {
    absl::StatusOr<std::vector<Label>> l =
        Expand(ctx, terms[i], operands[i]->dims.size());
    if (!l.ok()) return l.status();
    for (size_t j = 0; j < l->size(); ++j) {
      const double d = static_cast<double>(operands[i]->dims[j]);
      auto [it, inserted] = size.try_emplace((*l)[j], d);
      if (!inserted && it->second == 1) it->second = d;
    }
    for (Label x : std::set<Label>(l->begin(), l->end())) ++uses[x];
    labels.push_back(*std::move(l));
  }
  // Output labels: explicit, or (implicit form) the ellipsis labels and the
  // letters used exactly once.
  std::set<Label> output;
  if (equation->output.has_value()) {
    const graph::EinsumTerm& out = *equation->output;
    for (char c : out.letters) output.insert(static_cast<Label>(c));
    if (out.has_ellipsis()) {
      for (const auto& [x, unused] : size) {
        if (x >= kEllipsisBase) output.insert(x);
      }
    }
  } else {
    for (const auto& [x, n] : uses) {
      if (x >= kEllipsisBase || n == 1) output.insert(x);
    }
  }

  Cost cost = DefaultTraffic(ctx);
  if (operands.size() == 1) {
    const bool reduces =
        std::any_of(labels[0].begin(), labels[0].end(),
                    [&](Label x) { return !output.contains(x); });
    if (reduces) cost.other_flops = Elements(*operands[0]) * 1.0;
    return cost;
  }
  if (operands.size() == 2)
    cost.gemm = TwoOperandGemm(ctx, labels, size, output);
  std::set<Label> current(labels[0].begin(), labels[0].end());
  for (size_t i = 1; i < labels.size(); ++i) {
    std::set<Label> pair = current;
    pair.insert(labels[i].begin(), labels[i].end());
    double macs = 1;
    for (Label x : pair) macs *= size[x];
    cost.macs += macs;
    // Keep the labels needed later.
    current.clear();
    for (Label x : pair) {
      bool needed = output.contains(x);
      for (size_t j = i + 1; j < labels.size() && !needed; ++j) {
        needed =
            std::find(labels[j].begin(), labels[j].end(), x) != labels[j].end();
      }
      if (needed) current.insert(x);
    }
  }
  return cost;
}

}  // namespace

void RegisterEinsumCounters(CounterRegistry& registry) {
  registry.Register("", "Einsum", CountEinsum);
}

}  // namespace ridgeline::engine::counters
