// Convolutions. MACs in the gather form for Conv (per output element:
// (C_in/group) * prod(kernel) MACs) and the scatter form for ConvTranspose
// (per input element: (C_out/group) * prod(kernel) MACs); a bias is one add
// per output element, counted in other_flops. Bytes: X, W, B read once, Y
// written once.
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/counters/common.h"
#include "engine/counters/contraction.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

constexpr size_t kX = 0;
constexpr size_t kW = 1;
constexpr size_t kBias = 2;
constexpr size_t kFusedConvSum = 3;  // com.microsoft FusedConv's Z
constexpr size_t kDeformBias = 3;    // DeformConv: X, W, offset, B, mask
constexpr size_t kDeformMask = 4;

absl::StatusOr<Cost> CountConvLike(const CountContext& ctx,
                                   bool channels_last) {
  absl::StatusOr<ConvDims> d = ConvDimsOf(ctx, kX, kW, channels_last);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->macs;
  cost.gemm = d->gemm;
  if (ctx.input(kBias) != nullptr) {
    cost.other_flops += d->output_elements * cost::kAdd;
  }
  return cost;
}

absl::StatusOr<Cost> CountConv(const CountContext& ctx) {
  return CountConvLike(ctx, /*channels_last=*/false);
}

absl::StatusOr<Cost> CountNhwcConv(const CountContext& ctx) {
  return CountConvLike(ctx, /*channels_last=*/true);
}

// com.microsoft FusedConv: Conv + optional Z (added) + activation.
absl::StatusOr<Cost> CountFusedConv(const CountContext& ctx) {
  absl::StatusOr<Cost> cost = CountConvLike(ctx, /*channels_last=*/false);
  if (!cost.ok()) return cost;
  const double out = Elements(*ctx.output(0));
  if (ctx.input(kFusedConvSum) != nullptr)
    cost->other_flops += out * cost::kAdd;
  const std::string activation = ctx.node.GetString("activation", "");
  if (!activation.empty()) {
    const double per = cost::ActivationCost(activation);
    if (per < 0) {
      cost->note =
          fmt::format("activation '{}' has no cost: counted as 0", activation);
    } else {
      cost->other_flops += out * per;
    }
  }
  return cost;
}

absl::StatusOr<Cost> CountConvTranspose(const CountContext& ctx) {
  absl::StatusOr<ConvDims> d = ConvTransposeDimsOf(ctx, kX, kW);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->macs;
  if (ctx.input(kBias) != nullptr) {
    cost.other_flops += d->output_elements * cost::kAdd;
  }
  return cost;
}

// DeformConv (opset 19): X [N, C_in, spatial (r axes)], W, offset
// [N, offset_group * r * prod(kernel), out spatial], B, mask
// [N, offset_group * prod(kernel), out spatial]. Conv's MACs on the sampled
// columns, plus the sampling: per (N, offset group, kernel position, output
// pixel) the coordinates and the 2^r tap weights (per axis offset add,
// fraction, 1 - t; (r - 1) products per tap), per (N, C_in, kernel position,
// output pixel) one weighted sum of the 2^r taps and, with a mask, its
// multiply.
absl::StatusOr<Cost> CountDeformConv(const CountContext& ctx) {
  absl::StatusOr<ConvDims> d = ConvDimsOf(ctx, kX, kW, false);
  if (!d.ok()) return d.status();
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, kX, 3);
  if (!x.ok()) return x.status();
  absl::StatusOr<const graph::Tensor*> w = RequireInputRank(ctx, kW, 3);
  if (!w.ok()) return w.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  const graph::Dims& xd = (*x)->dims;
  const size_t axes = xd.size() - 2;
  const double batch = static_cast<double>(xd[0]);
  const double channels = static_cast<double>(xd[1]);
  const double kernel = DimProduct((*w)->dims, 2, (*w)->dims.size());
  const double pixels = DimProduct((*y)->dims, 2, (*y)->dims.size());
  const double groups = static_cast<double>(
      std::max<int64_t>(1, ctx.node.GetInt("offset_group", 1)));
  const double taps = std::pow(2.0, static_cast<double>(axes));
  const double per_position =
      static_cast<double>(axes) * (cost::kAdd + cost::kFraction + cost::kAdd) +
      taps * static_cast<double>(axes - 1) * cost::kMul;
  const double per_sample =
      taps * cost::kMul + (taps - 1) * cost::kAdd +
      (ctx.input(kDeformMask) != nullptr ? cost::kMul : 0);
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->macs;
  cost.gemm = d->gemm;
  cost.other_flops = batch * groups * kernel * pixels * per_position +
                     batch * channels * kernel * pixels * per_sample;
  if (ctx.input(kDeformBias) != nullptr) {
    cost.other_flops += d->output_elements * cost::kAdd;
  }
  return cost;
}

}  // namespace

void RegisterConvCounters(CounterRegistry& registry) {
  registry.Register("", "Conv", CountConv);
  registry.Register("", "ConvTranspose", CountConvTranspose);
  registry.Register("com.microsoft", "FusedConv", CountFusedConv);
  registry.Register("com.microsoft", "NhwcConv", CountNhwcConv);
  registry.Register("", "DeformConv", CountDeformConv);
}

}  // namespace ridgeline::engine::counters
