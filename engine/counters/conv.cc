// Convolutions. MACs in the gather form for Conv (per output element:
// (C_in/group) * prod(kernel) MACs) and the scatter form for ConvTranspose
// (per input element: (C_out/group) * prod(kernel) MACs); a bias is one add
// per output element, counted in other_flops. Bytes: X, W, B read once, Y
// written once.
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

}  // namespace

void RegisterConvCounters(CounterRegistry& registry) {
  registry.Register("", "Conv", CountConv);
  registry.Register("", "ConvTranspose", CountConvTranspose);
  registry.Register("com.microsoft", "FusedConv", CountFusedConv);
  registry.Register("com.microsoft", "NhwcConv", CountNhwcConv);
}

}  // namespace ridgeline::engine::counters
