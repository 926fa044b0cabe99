// Matrix products. MatMul: batch * M * N * K MACs with numpy broadcasting and
// 1-D promotion. Gemm: M * N * K MACs, plus per output element one add for C
// (beta != 0), one multiply for alpha != 1 and one for beta != 1. Bytes:
// inputs read once (weights included), Y written once.
#include <string>

#include "engine/counters/common.h"
#include "engine/counters/contraction.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

constexpr size_t kA = 0;
constexpr size_t kB = 1;
constexpr size_t kC = 2;

absl::StatusOr<Cost> CountMatMul(const CountContext& ctx) {
  absl::StatusOr<MatMulDims> d = MatMulDimsOf(ctx, kA, kB);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->Macs();
  cost.gemm = MatMulGemm(ctx, *d, kB);
  return cost;
}

void AddActivation(const CountContext& ctx, double elements, Cost* cost) {
  const std::string activation = ctx.node.GetString("activation", "");
  if (activation.empty()) return;
  const double per = cost::ActivationCost(activation);
  if (per < 0) {
    cost->note =
        fmt::format("activation '{}' has no cost: counted as 0", activation);
    return;
  }
  cost->other_flops += elements * per;
}

absl::StatusOr<Cost> CountGemm(const CountContext& ctx) {
  absl::StatusOr<MatMulDims> d = GemmDimsOf(ctx, kA, kB);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->Macs();
  cost.gemm = MatMulGemm(ctx, *d, kB);
  const double out = d->OutputElements();
  if (ctx.node.GetFloat("alpha", 1.0) != 1.0)
    cost.other_flops += out * cost::kMul;
  const double beta = ctx.node.GetFloat("beta", 1.0);
  if (ctx.input(kC) != nullptr && beta != 0.0) {
    cost.other_flops += out * cost::kAdd;
    if (beta != 1.0) cost.other_flops += out * cost::kMul;
  }
  if (ctx.node.domain == "com.microsoft") AddActivation(ctx, out, &cost);
  return cost;
}

// com.microsoft FusedMatMul: alpha * op(A) @ op(B) where op may transpose the
// last two dims (transA/transB) and move the first dim behind the batch dims
// (transBatchA/transBatchB). MACs = elements of Y * K.
absl::StatusOr<Cost> CountFusedMatMul(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> a = RequireInputRank(ctx, kA, 1);
  if (!a.ok()) return a.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  const graph::Dims& ad = (*a)->dims;
  const bool trans_a = ctx.node.GetInt("transA", 0) != 0;
  const bool trans_batch_a = ctx.node.GetInt("transBatchA", 0) != 0;
  int64_t k = ad.back();
  if (ad.size() >= 2 && trans_a)
    k = trans_batch_a ? ad.front() : ad[ad.size() - 2];
  Cost cost = DefaultTraffic(ctx);
  const double out = Elements(**y);
  cost.macs = out * static_cast<double>(k);
  if (ctx.node.GetFloat("alpha", 1.0) != 1.0)
    cost.other_flops += out * cost::kMul;
  return cost;
}

// com.microsoft GemmFastGelu: FastGelu(X @ W + bias), X [..., K], W [K, N],
// bias [N] (optional): the MatMul's MACs, then per output element the bias
// add (when given) and the tanh GELU (as com.microsoft FastGelu).
absl::StatusOr<Cost> CountGemmFastGelu(const CountContext& ctx) {
  absl::StatusOr<MatMulDims> d = MatMulDimsOf(ctx, kA, kB);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->Macs();
  cost.gemm = MatMulGemm(ctx, *d, kB);
  const double bias = ctx.input(kC) != nullptr ? cost::kAdd : 0;
  cost.other_flops = d->OutputElements() * (bias + cost::kGeluTanh);
  return cost;
}

}  // namespace

void RegisterMatMulCounters(CounterRegistry& registry) {
  registry.Register("", "MatMul", CountMatMul);
  registry.Register("", "Gemm", CountGemm);
  registry.Register("com.microsoft", "FusedMatMul", CountFusedMatMul);
  registry.Register("com.microsoft", "FusedGemm", CountGemm);
  registry.Register("com.microsoft", "GemmFastGelu", CountGemmFastGelu);
}

}  // namespace ridgeline::engine::counters
