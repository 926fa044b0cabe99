// Normalizations: a per-element cost plus a per-row cost (one row = one set
// of statistics), from cost_table.h. Bytes: inputs (including the scale,
// bias and running statistics, which are weights) read once, outputs written
// once.
#include <algorithm>
#include <vector>

#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

// Per element: mean/variance statistics, scale, and the shift when present.
double MeanVarNormPerElement(bool has_shift) {
  return cost::kMeanVarNormNoAffine + cost::kLayerNormScale +
         (has_shift ? cost::kLayerNormShift : 0);
}

// Rows of a tensor normalized over dims[axis:].
absl::StatusOr<double> RowsFromAxis(const CountContext& ctx,
                                    const graph::Tensor& x, int64_t axis) {
  absl::StatusOr<size_t> a = NormalizeAxis(ctx, axis, x.dims.size());
  if (!a.ok()) return a.status();
  return DimProduct(x.dims, 0, *a);
}

absl::StatusOr<Cost> CountBatchNorm(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 2);
  if (!x.ok()) return x.status();
  Cost cost = DefaultTraffic(ctx);
  const double elements = Elements(**x);
  if (ctx.node.GetInt("training_mode", 0) != 0) {
    // Training mode computes the batch statistics per channel.
    cost.other_flops =
        elements * MeanVarNormPerElement(true) +
        static_cast<double>((*x)->dims[1]) * cost::kMeanVarNormPerRow;
  } else {
    cost.other_flops = elements * cost::kBatchNorm;
  }
  return cost;
}

// LayerNormalization: normalized over dims[axis:] (axis default -1); the
// bias (input 2) is optional.
absl::StatusOr<Cost> CountLayerNorm(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 1);
  if (!x.ok()) return x.status();
  absl::StatusOr<double> rows =
      RowsFromAxis(ctx, **x, ctx.node.GetInt("axis", -1));
  if (!rows.ok()) return rows.status();
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops =
      Elements(**x) * MeanVarNormPerElement(ctx.input(2) != nullptr) +
      *rows * cost::kMeanVarNormPerRow;
  return cost;
}

// SimplifiedLayerNormalization / RMSNormalization: x / rms(x) * scale.
absl::StatusOr<Cost> CountRmsNorm(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 1);
  if (!x.ok()) return x.status();
  absl::StatusOr<double> rows =
      RowsFromAxis(ctx, **x, ctx.node.GetInt("axis", -1));
  if (!rows.ok()) return rows.status();
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops =
      Elements(**x) * cost::kRmsNorm + *rows * cost::kRmsNormPerRow;
  return cost;
}

// com.microsoft SkipLayerNormalization: LayerNorm(input + skip (+ bias)) over
// the last dim. Inputs: input, skip, gamma, beta (optional), bias (optional).
absl::StatusOr<Cost> CountSkipLayerNorm(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 1);
  if (!x.ok()) return x.status();
  const double elements = Elements(**x);
  const double rows =
      elements / static_cast<double>(std::max<int64_t>((*x)->dims.back(), 1));
  const double adds = cost::kAdd + (ctx.input(4) != nullptr ? cost::kAdd : 0);
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops =
      elements * (adds + MeanVarNormPerElement(ctx.input(3) != nullptr)) +
      rows * cost::kMeanVarNormPerRow;
  return cost;
}

// com.microsoft SkipSimplifiedLayerNormalization: RMSNorm(input + skip
// (+ bias)). Inputs: input, skip, gamma, bias (optional).
absl::StatusOr<Cost> CountSkipRmsNorm(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 1);
  if (!x.ok()) return x.status();
  const double elements = Elements(**x);
  const double rows =
      elements / static_cast<double>(std::max<int64_t>((*x)->dims.back(), 1));
  const double adds = cost::kAdd + (ctx.input(3) != nullptr ? cost::kAdd : 0);
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops =
      elements * (adds + cost::kRmsNorm) + rows * cost::kRmsNormPerRow;
  return cost;
}

// InstanceNormalization: one row per (n, c); scale and bias per channel.
absl::StatusOr<Cost> CountInstanceNorm(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 2);
  if (!x.ok()) return x.status();
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = Elements(**x) * MeanVarNormPerElement(true) +
                     DimProduct((*x)->dims, 0, 2) * cost::kMeanVarNormPerRow;
  return cost;
}

// GroupNormalization (ai.onnx, NCHW): one row per (n, group).
absl::StatusOr<Cost> CountGroupNorm(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 2);
  if (!x.ok()) return x.status();
  const int64_t groups = ctx.node.GetInt("num_groups", 0);
  if (groups <= 0) return NodeError(ctx, "num_groups must be positive");
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops =
      Elements(**x) * MeanVarNormPerElement(true) +
      static_cast<double>((*x)->dims[0] * groups) * cost::kMeanVarNormPerRow;
  return cost;
}

// com.microsoft GroupNorm / SkipGroupNorm (NHWC, attribute "groups",
// optional SiLU "activation"). SkipGroupNorm inputs: X, gamma, beta, skip,
// bias.
absl::StatusOr<Cost> CountMsGroupNorm(const CountContext& ctx, bool skip) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 2);
  if (!x.ok()) return x.status();
  const int64_t groups = ctx.node.GetInt("groups", 0);
  if (groups <= 0) return NodeError(ctx, "groups must be positive");
  double per_element = MeanVarNormPerElement(true);
  if (ctx.node.GetInt("activation", 0) == 1) per_element += cost::kSilu;
  if (skip) {
    per_element += cost::kAdd;
    if (ctx.input(4) != nullptr) per_element += cost::kAdd;
  }
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops =
      Elements(**x) * per_element +
      static_cast<double>((*x)->dims[0] * groups) * cost::kMeanVarNormPerRow;
  return cost;
}

// LpNormalization: x / ||x||_p along `axis`.
absl::StatusOr<Cost> CountLpNorm(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 1);
  if (!x.ok()) return x.status();
  absl::StatusOr<size_t> axis =
      NormalizeAxis(ctx, ctx.node.GetInt("axis", -1), (*x)->dims.size());
  if (!axis.ok()) return axis.status();
  const double elements = Elements(**x);
  const double length = static_cast<double>((*x)->dims[*axis]);
  const double rows = length > 0 ? elements / length : 0;
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = elements * cost::kLpNorm;
  if (ctx.node.GetInt("p", 2) == 2)
    cost.other_flops += rows * cost::kLpNormPerRow;
  return cost;
}

// MeanVarianceNormalization over `axes` (default [0, 2, 3]), no affine.
absl::StatusOr<Cost> CountMvn(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 1);
  if (!x.ok()) return x.status();
  std::vector<int64_t> axes = ctx.node.GetInts("axes");
  if (axes.empty()) axes = {0, 2, 3};
  double extent = 1;
  for (int64_t a : axes) {
    absl::StatusOr<size_t> n = NormalizeAxis(ctx, a, (*x)->dims.size());
    if (!n.ok()) return n.status();
    extent *= static_cast<double>((*x)->dims[*n]);
  }
  const double elements = Elements(**x);
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops =
      elements * cost::kMeanVarNormNoAffine +
      (extent > 0 ? elements / extent : 0) * cost::kMeanVarNormPerRow;
  return cost;
}

// LRN: per element `size` squares and adds, then the power and divide.
absl::StatusOr<Cost> CountLrn(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 1);
  if (!x.ok()) return x.status();
  const double size = static_cast<double>(ctx.node.GetInt("size", 1));
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops =
      Elements(**x) * (size * (cost::kMul + cost::kAdd) + cost::kLrnBase);
  return cost;
}

// com.microsoft EmbedLayerNormalization: word + position (+ segment)
// embedding rows gathered per token, summed, then LayerNorm. Inputs:
// input_ids, segment_ids, word_embedding, position_embedding,
// segment_embedding, gamma, beta, mask, position_ids. Only the gathered
// embedding rows are read.
absl::StatusOr<Cost> CountEmbedLayerNorm(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> ids = RequireInput(ctx, 0);
  if (!ids.ok()) return ids.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  const double tokens = Elements(**ids);
  const double elements = Elements(**y);
  Cost cost;
  for (size_t i : {0, 1, 5, 6, 7, 8}) {
    if (ctx.input(i) != nullptr) AddReadAll(ctx, *ctx.input(i), &cost);
  }
  const double hidden = tokens > 0 ? elements / tokens : 0;
  int tables = 0;
  for (size_t i : {2, 3, 4}) {
    const graph::Tensor* table = ctx.input(i);
    if (table == nullptr) continue;
    ++tables;
    AddRead(ctx, *table, std::min(Elements(*table), tokens * hidden), &cost);
  }
  for (int t : ctx.node.outputs) {
    if (t >= 0) AddWritten(ctx, ctx.graph.tensor(t), &cost);
  }
  cost.other_flops = elements * ((tables > 1 ? tables - 1 : 0) * cost::kAdd +
                                 MeanVarNormPerElement(true)) +
                     tokens * cost::kMeanVarNormPerRow;
  if (ctx.input(7) != nullptr) cost.other_flops += Elements(*ctx.input(7));
  return cost;
}

}  // namespace

void RegisterNormCounters(CounterRegistry& registry) {
  registry.Register("", "BatchNormalization", CountBatchNorm);
  registry.Register("", "LayerNormalization", CountLayerNorm);
  registry.Register("com.microsoft", "LayerNormalization", CountLayerNorm);
  registry.Register("", "SimplifiedLayerNormalization", CountRmsNorm);
  registry.Register("com.microsoft", "SimplifiedLayerNormalization",
                    CountRmsNorm);
  registry.Register("", "RMSNormalization", CountRmsNorm);
  registry.Register("com.microsoft", "SkipLayerNormalization",
                    CountSkipLayerNorm);
  registry.Register("com.microsoft", "SkipSimplifiedLayerNormalization",
                    CountSkipRmsNorm);
  registry.Register("", "InstanceNormalization", CountInstanceNorm);
  registry.Register("", "GroupNormalization", CountGroupNorm);
  registry.Register("com.microsoft", "GroupNorm", [](const CountContext& ctx) {
    return CountMsGroupNorm(ctx, /*skip=*/false);
  });
  registry.Register("com.microsoft", "SkipGroupNorm",
                    [](const CountContext& ctx) {
                      return CountMsGroupNorm(ctx, /*skip=*/true);
                    });
  registry.Register("", "LpNormalization", CountLpNorm);
  registry.Register("", "MeanVarianceNormalization", CountMvn);
  registry.Register("", "LRN", CountLrn);
  registry.Register("com.microsoft", "EmbedLayerNormalization",
                    CountEmbedLayerNorm);
}

}  // namespace ridgeline::engine::counters
