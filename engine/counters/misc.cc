// Control-flow containers and generators.
//  - If, Loop, Scan: the container itself does no work and moves no bytes
//    (view = true); the nodes of its bodies are counted like any node, times
//    the number of iterations (see CounterRegistry::Count and COUNTING.md).
//  - Range: one add per output element. ConstantOfShape, EyeLike: only the
//    output is written. NonZero: one compare per input element.
//  - Det, com.microsoft Inverse: an LU factorization (LAPACK's count), and
//    for Inverse the inverse from it, see CountDet and CountInverse.
//  - com.microsoft BiasDropout: the bias and residual adds (a dropout at
//    inference is a copy), see CountBiasDropout.
//  - Unique: a comparison sort and a neighbour compare, see CountUnique.
//  - Random generators and Multinomial: the arithmetic on the generator's
//    uniform draws, see CountRandom and CountMultinomial.
//  - NonMaxSuppression: the worst case, as its output is taken at its upper
//    bound (every pair of boxes compared), see CountNonMaxSuppression.
#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

absl::StatusOr<Cost> CountContainer(const CountContext& ctx) {
  (void)ctx;
  Cost cost;
  cost.view = true;
  return cost;
}

absl::StatusOr<Cost> CountRange(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  Cost cost = TrafficOf(ctx, {});
  cost.other_flops = Elements(**y) * cost::kAdd;
  return cost;
}

absl::StatusOr<Cost> CountWriteOnly(const CountContext& ctx) {
  return TrafficOf(ctx, {});
}

absl::StatusOr<Cost> CountNonZero(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInput(ctx, 0);
  if (!x.ok()) return x.status();
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = Elements(**x) * cost::kCmp;
  return cost;
}

// One IoU of two corner boxes against the threshold: the intersection's
// corners (2 max, 2 min), its width and height (2 sub) clamped at 0 (2 max),
// its area (mul), the union (area + area - intersection: 2 adds), the ratio
// (div) and the compare.
constexpr double kIou =
    6 * cost::kCmp + 4 * cost::kAdd + cost::kMul + cost::kDiv + cost::kCmp;
// One box's area: 2 subs and a mul.
constexpr double kBoxArea = 2 * cost::kAdd + cost::kMul;

// NonMaxSuppression, boxes [B, N, 4] and scores [B, C, N], in the worst case
// its upper-bound output assumes (every box kept, so each is compared with
// every other): per batch the N box areas; per batch and class a sort of
// the N scores (N x max(1, ceil(log2 N)) compares, as TopK counts), the
// score threshold (N compares, when given) and N (N - 1) / 2 IoUs.
absl::StatusOr<Cost> CountNonMaxSuppression(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> boxes = RequireInputRank(ctx, 0, 3);
  if (!boxes.ok()) return boxes.status();
  absl::StatusOr<const graph::Tensor*> scores = RequireInputRank(ctx, 1, 3);
  if (!scores.ok()) return scores.status();
  const double batch = static_cast<double>((*boxes)->dims[0]);
  const double n = static_cast<double>((*boxes)->dims[1]);
  const double classes = static_cast<double>((*scores)->dims[1]);
  const bool score_threshold =
      ctx.node.inputs.size() > 4 && ctx.node.inputs[4] >= 0;
  const double sort =
      n * std::max(1.0, std::ceil(std::log2(std::max(n, 1.0)))) * cost::kCmp;
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = batch * n * kBoxArea +
                     batch * classes *
                         (sort + (score_threshold ? n * cost::kCmp : 0) +
                          n * (n - 1) / 2 * kIou);
  return cost;
}

// FLOPs of an LU factorization with partial pivoting of an n x n matrix, as
// LAPACK Working Note 41 counts xGETRF for m = n (multiplications
// n^3/3 + 2n/3, the pivot reciprocals included; additions
// n^3/3 - n^2/2 + n/6), plus the pivot search (n(n - 1)/2 compares).
double LuFactorFlops(double n) {
  return (n * n * n / 3 + 2 * n / 3) * cost::kMul +
         (n * n * n / 3 - n * n / 2 + n / 6) * cost::kAdd +
         n * (n - 1) / 2 * cost::kCmp;
}

// The square matrices of X [*, M, M]: their count and M.
absl::StatusOr<std::pair<double, double>> SquareMatrices(
    const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 2);
  if (!x.ok()) return x.status();
  const graph::Dims& dims = (*x)->dims;
  if (dims[dims.size() - 2] != dims.back()) {
    return NodeError(
        ctx, fmt::format("input {} is not square", graph::ShapeString(**x)));
  }
  return std::make_pair(DimProduct(dims, 0, dims.size() - 2),
                        static_cast<double>(dims.back()));
}

// Det of X [*, M, M]: the LU factorization, then the product of the
// diagonal (n - 1 multiplies).
absl::StatusOr<Cost> CountDet(const CountContext& ctx) {
  absl::StatusOr<std::pair<double, double>> m = SquareMatrices(ctx);
  if (!m.ok()) return m.status();
  const auto [matrices, n] = *m;
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops =
      matrices * (LuFactorFlops(n) + std::max(0.0, n - 1) * cost::kMul);
  return cost;
}

// com.microsoft Inverse of X [*, M, M]: the LU factorization, then the
// inverse from it as LAPACK Working Note 41 counts xGETRI (multiplications
// 2n^3/3 + n^2/2 + 5n/6, additions 2n^3/3 - 3n^2/2 + 5n/6): about 2n^3 in
// all.
absl::StatusOr<Cost> CountInverse(const CountContext& ctx) {
  absl::StatusOr<std::pair<double, double>> m = SquareMatrices(ctx);
  if (!m.ok()) return m.status();
  const auto [matrices, n] = *m;
  const double getri =
      (2 * n * n * n / 3 + n * n / 2 + 5 * n / 6) * cost::kMul +
      (2 * n * n * n / 3 - 3 * n * n / 2 + 5 * n / 6) * cost::kAdd;
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = matrices * (LuFactorFlops(n) + std::max(0.0, getri));
  return cost;
}

// com.microsoft BiasDropout: data + bias (broadcast), dropped out, + the
// residual when given; inputs data, bias, residual, ratio, training_mode.
// At inference (training_mode absent or a folded false) the dropout is a
// copy: 1 add per element, + 1 with the residual. In training, + the mask
// compare and the 1/(1 - ratio) scale, 2 per element.
absl::StatusOr<Cost> CountBiasDropout(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  double per = cost::kAdd;
  if (ctx.input(2) != nullptr) per += cost::kAdd;
  const graph::Tensor* training = ctx.input(4);
  if (training != nullptr &&
      !(training->int_values.has_value() && training->int_values->size() == 1 &&
        (*training->int_values)[0] == 0)) {
    per += cost::kCmp + cost::kMul;
  }
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = Elements(**y) * per;
  return cost;
}

// Unique over n items (the elements of X, or its slices along `axis`) of E
// elements in all: a comparison sort, n x max(1, ceil(log2 n)) item compares
// (as TopK counts a sort), then one compare of each item with its
// neighbour; an item compare costs its elements: E x (max(1, ceil(log2 n))
// + 1). Outputs are written at the upper-bound size the shape inference
// takes (every value distinct).
absl::StatusOr<Cost> CountUnique(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInput(ctx, 0);
  if (!x.ok()) return x.status();
  const graph::Dims& dims = (*x)->dims;
  const double elements = Elements(**x);
  double items = elements;
  if (ctx.node.HasAttribute("axis")) {
    absl::StatusOr<size_t> axis =
        NormalizeAxis(ctx, ctx.node.GetInt("axis", 0), dims.size());
    if (!axis.ok()) return axis.status();
    items = static_cast<double>(dims[*axis]);
  }
  const double passes =
      std::max(1.0, std::ceil(std::log2(std::max(items, 1.0)))) + 1;
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = elements * passes * cost::kCmp;
  return cost;
}

// Random generators: kRandomUniform / kRandomNormal / kBernoulli per output
// element (cost_table.h); the *Like forms and Bernoulli read their input
// only for its shape (and Bernoulli its probabilities), the others read
// nothing. Multinomial, input [batch, classes] of log-probabilities and
// [batch, samples] out: per batch row the exponentials and their running sum
// (a CDF: exp 8 + add per class), per sample a draw scaled to the total
// (mul) and a binary search of the CDF (ceil(log2 classes) compares).
absl::StatusOr<Cost> CountRandom(const CountContext& ctx, double per_element,
                                 bool reads_input) {
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  Cost cost = reads_input ? TrafficOf(ctx, {0}) : TrafficOf(ctx, {});
  cost.other_flops = Elements(**y) * per_element;
  return cost;
}

absl::StatusOr<Cost> CountMultinomial(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 2);
  if (!x.ok()) return x.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  const double classes = static_cast<double>((*x)->dims.back());
  const double search =
      std::max(1.0, std::ceil(std::log2(std::max(classes, 1.0))));
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = Elements(**x) * (cost::kTranscendental + cost::kAdd) +
                     Elements(**y) * (cost::kMul + search * cost::kCmp);
  return cost;
}

}  // namespace

void RegisterMiscCounters(CounterRegistry& registry) {
  for (const char* op : {"If", "Loop", "Scan"}) {
    registry.Register("", op, CountContainer);
  }
  registry.Register("", "Range", CountRange);
  registry.Register("", "ConstantOfShape", CountWriteOnly);
  registry.Register("", "EyeLike", CountWriteOnly);
  registry.Register("", "NonZero", CountNonZero);
  registry.Register("", "NonMaxSuppression", CountNonMaxSuppression);
  registry.Register("", "Det", CountDet);
  registry.Register("com.microsoft", "Inverse", CountInverse);
  registry.Register("com.microsoft", "BiasDropout", CountBiasDropout);
  registry.Register("", "Unique", CountUnique);
  registry.Register("", "RandomUniform", [](const CountContext& ctx) {
    return CountRandom(ctx, cost::kRandomUniform, false);
  });
  registry.Register("", "RandomNormal", [](const CountContext& ctx) {
    return CountRandom(ctx, cost::kRandomNormal, false);
  });
  registry.Register("", "RandomUniformLike", [](const CountContext& ctx) {
    return CountRandom(ctx, cost::kRandomUniform, false);
  });
  registry.Register("", "RandomNormalLike", [](const CountContext& ctx) {
    return CountRandom(ctx, cost::kRandomNormal, false);
  });
  registry.Register("", "Bernoulli", [](const CountContext& ctx) {
    return CountRandom(ctx, cost::kBernoulli, true);
  });
  registry.Register("", "Multinomial", CountMultinomial);
}

}  // namespace ridgeline::engine::counters
