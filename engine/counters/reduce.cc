// Reductions and row-wise ops. Reduce*/ArgMax/ArgMin: a cost per input
// element (plus a per-output-element finish for Mean/L2/LogSum*). Softmax and
// LogSoftmax: a cost per element (max, sub, exp, sum, div/sub) plus, for
// LogSoftmax, one log per row. Bytes: inputs read once, outputs written once.
#include <algorithm>
#include <cmath>

#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"

namespace ridgeline::engine::counters {
namespace {

CounterFn Reduction(double per_input, double per_output) {
  return [=](const CountContext& ctx) -> absl::StatusOr<Cost> {
    absl::StatusOr<const graph::Tensor*> x = RequireInput(ctx, 0);
    if (!x.ok()) return x.status();
    absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
    if (!y.ok()) return y.status();
    Cost cost = DefaultTraffic(ctx);
    cost.other_flops = Elements(**x) * per_input + Elements(**y) * per_output;
    return cost;
  };
}

// Rows of a softmax-like op: opset >= 13 normalizes along `axis` (default
// -1); older opsets flatten to 2-D at `axis` (default 1).
absl::StatusOr<double> SoftmaxRows(const CountContext& ctx,
                                   const graph::Tensor& x) {
  if (x.dims.empty()) return 1.0;
  const bool legacy = ctx.node.opset > 0 && ctx.node.opset < 13;
  absl::StatusOr<size_t> axis = NormalizeAxis(
      ctx, ctx.node.GetInt("axis", legacy ? 1 : -1), x.dims.size());
  if (!axis.ok()) return axis.status();
  if (legacy) return DimProduct(x.dims, 0, *axis);
  const double length = static_cast<double>(x.dims[*axis]);
  return length > 0 ? Elements(x) / length : 0.0;
}

CounterFn SoftmaxLike(double per_element, double per_row) {
  return [=](const CountContext& ctx) -> absl::StatusOr<Cost> {
    absl::StatusOr<const graph::Tensor*> x = RequireInput(ctx, 0);
    if (!x.ok()) return x.status();
    absl::StatusOr<double> rows = SoftmaxRows(ctx, **x);
    if (!rows.ok()) return rows.status();
    Cost cost = DefaultTraffic(ctx);
    cost.other_flops = Elements(**x) * per_element + *rows * per_row;
    return cost;
  };
}

// TopK: a heap selection, ceil(log2(K)) compares (at least 1) per input
// element, with K read from the output's extent along `axis`.
absl::StatusOr<Cost> CountTopK(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 1);
  if (!x.ok()) return x.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  absl::StatusOr<size_t> axis =
      NormalizeAxis(ctx, ctx.node.GetInt("axis", -1), (*y)->dims.size());
  if (!axis.ok()) return axis.status();
  const double k = static_cast<double>((*y)->dims[*axis]);
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = Elements(**x) *
                     std::max(1.0, std::ceil(std::log2(std::max(k, 1.0)))) *
                     cost::kCmp;
  return cost;
}

}  // namespace

void RegisterReduceCounters(CounterRegistry& registry) {
  registry.Register("", "ReduceSum", Reduction(cost::kReducePerInput, 0));
  registry.Register("", "ReduceMax", Reduction(cost::kReducePerInput, 0));
  registry.Register("", "ReduceMin", Reduction(cost::kReducePerInput, 0));
  registry.Register("", "ReduceProd", Reduction(cost::kReducePerInput, 0));
  registry.Register(
      "", "ReduceMean",
      Reduction(cost::kReducePerInput, cost::kReduceMeanPerOutput));
  registry.Register("", "ReduceL1", Reduction(cost::kReduceL1PerInput, 0));
  registry.Register(
      "", "ReduceL2",
      Reduction(cost::kReduceSquarePerInput, cost::kReduceL2PerOutput));
  registry.Register("", "ReduceSumSquare",
                    Reduction(cost::kReduceSquarePerInput, 0));
  registry.Register(
      "", "ReduceLogSum",
      Reduction(cost::kReducePerInput, cost::kReduceLogPerOutput));
  registry.Register(
      "", "ReduceLogSumExp",
      Reduction(cost::kReduceLogSumExpPerInput, cost::kReduceLogPerOutput));
  registry.Register("", "ArgMax", Reduction(cost::kCmp, 0));
  registry.Register("", "ArgMin", Reduction(cost::kCmp, 0));
  registry.Register("", "CumSum", Reduction(cost::kAdd, 0));
  registry.Register("", "Softmax", SoftmaxLike(cost::kSoftmax, 0));
  // com.microsoft BiasSoftmax: softmax(data + bias) over the dims from
  // `axis` on (default 1, the legacy Softmax's rows): the bias add + 15.
  registry.Register("com.microsoft", "BiasSoftmax",
                    SoftmaxLike(cost::kAdd + cost::kSoftmax, 0));
  registry.Register("", "LogSoftmax",
                    SoftmaxLike(cost::kLogSoftmax, cost::kLogSoftmaxPerRow));
  registry.Register("", "Hardmax", SoftmaxLike(cost::kCmp, 0));
  registry.Register(
      "com.microsoft", "QLinearSoftmax",
      SoftmaxLike(cost::kDequantize + cost::kSoftmax + cost::kRequantize, 0));
  registry.Register("", "TopK", CountTopK);
}

}  // namespace ridgeline::engine::counters
