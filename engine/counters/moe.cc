// com.microsoft MoE (engine/moe.h): the experts of a mixture-of-experts
// layer, one node.
//
// T tokens (input elements / H), E experts, k experts per token, F = fc1's
// output width per expert:
// - MACs = T x k x (fc1 + fc2 + fc3 weight elements) / E: every routed
//   token meets each weight element of its k experts once;
// - other FLOPs per token-expert pair: the activation on F elements
//   (SwiGLU: SiLU(fc1) x fc3, or the fused "swiglu" on F/2), the biases;
//   per token: softmax over the E router logits and the top-k pick
//   (E x (exp + add + div + k compares)), and the weighted sum of its k
//   expert outputs (k x H x (mul + add));
// - bytes: the input and router logits read, the output written, and the
//   weights of the min(E, T x k) experts balanced routing reaches, each
//   read once (expert weights x touched / E);
// - GEMM shape (for tile and wave quantization): touched experts as the
//   batch, T x k / touched rows each, n = F, k = H (fc1, the widest).
#include "engine/moe.h"

#include <string>

#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

double ActivationFlops(const std::string& activation) {
  if (activation == "relu") return cost::kRelu;
  if (activation == "gelu") return cost::kGeluErf;
  if (activation == "identity") return 0;
  return cost::kSilu;  // "silu" (the schema's default) and "swiglu"
}

absl::StatusOr<Cost> CountMoe(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 1);
  if (!x.ok()) return x.status();
  absl::StatusOr<const graph::Tensor*> router = RequireInputRank(ctx, 1, 1);
  if (!router.ok()) return router.status();
  absl::StatusOr<const graph::Tensor*> fc1 = RequireInputRank(ctx, 2, 3);
  if (!fc1.ok()) return fc1.status();
  absl::StatusOr<const graph::Tensor*> fc2 = RequireInputRank(ctx, 4, 3);
  if (!fc2.ok()) return fc2.status();
  const int64_t e = (*fc1)->dims[0];
  const int64_t h = (*x)->dims.back();
  if (e <= 0 || h <= 0 || (*fc2)->dims[0] != e) {
    return NodeError(
        ctx, fmt::format("expert weights {} and {} do not hold "
                         "the same number of experts",
                         graph::ShapeString(**fc1), graph::ShapeString(**fc2)));
  }
  if ((*router)->dims.back() != e) {
    return NodeError(ctx, fmt::format("router_probs {} does not end in the "
                                      "{} experts",
                                      graph::ShapeString(**router), e));
  }
  const int64_t k_attr = ctx.node.GetInt("k", 1);
  if (k_attr < 1 || k_attr > e) {
    return NodeError(
        ctx, fmt::format("k = {} is not in 1..{} (the experts)", k_attr, e));
  }
  const double experts = static_cast<double>(e);
  const double k = static_cast<double>(k_attr);
  const double tokens = Elements(**x) / static_cast<double>(h);
  const double f = Elements(**fc1) / (experts * static_cast<double>(h));
  const double touched = TouchedExperts(experts, tokens, k);
  const double pairs = tokens * k;

  Cost cost;
  AddReadAll(ctx, **x, &cost);
  AddReadAll(ctx, **router, &cost);
  double weight_elements = 0;  // of one expert
  for (size_t i = 2; i <= 7; ++i) {
    const graph::Tensor* w = ctx.input(i);
    if (w == nullptr) continue;
    AddRead(ctx, *w, Elements(*w) * touched / experts, &cost);
    if (i == 2 || i == 4 || i == 6) weight_elements += Elements(*w) / experts;
  }
  for (int t : ctx.node.outputs) {
    if (t >= 0) AddWritten(ctx, ctx.graph.tensor(t), &cost);
  }
  cost.macs = pairs * weight_elements;
  const std::string activation = ctx.node.GetString("activation_type", "silu");
  const bool fused_swiglu = activation == "swiglu" && ctx.input(6) == nullptr;
  const double act_width = fused_swiglu ? f / 2 : f;
  double per_pair = act_width * ActivationFlops(activation);
  if (ctx.input(6) != nullptr || fused_swiglu)
    per_pair += act_width * cost::kMul;
  if (ctx.input(3) != nullptr) per_pair += f * cost::kAdd;
  if (ctx.input(5) != nullptr) per_pair += static_cast<double>(h) * cost::kAdd;
  if (ctx.input(7) != nullptr) per_pair += f * cost::kAdd;
  const double routing = experts * (cost::kTranscendental + cost::kAdd +
                                    cost::kDiv + k * cost::kCmp);
  const double combine = k * static_cast<double>(h) * (cost::kMul + cost::kAdd);
  cost.other_flops = pairs * per_pair + tokens * (routing + combine);
  cost.gemm = {touched, pairs / touched, f, static_cast<double>(h)};
  return cost;
}

}  // namespace

void RegisterMoeCounters(CounterRegistry& registry) {
  registry.Register("com.microsoft", "MoE", CountMoe);
}

}  // namespace ridgeline::engine::counters
