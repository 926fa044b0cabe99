// Resize and Upsample. Per output element, with k = the number of axes whose
// size changes: nearest 0 FLOPs; linear (2^k - 1) separable lerps of 3 FLOPs
// (bilinear 9, trilinear 21); cubic (4^k - 1)/3 separable 4-tap filters of
// 7 FLOPs (bicubic 35). Bytes: X read once, Y written once (roi, scales and
// sizes are parameters and not counted).
#include <string>

#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

absl::StatusOr<Cost> CountResize(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInput(ctx, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  if ((*x)->dims.size() != (*y)->dims.size()) {
    return NodeError(
        ctx, fmt::format("input {} and output {} ranks differ",
                         graph::ShapeString(**x), graph::ShapeString(**y)));
  }
  int resized = 0;
  for (size_t i = 0; i < (*x)->dims.size(); ++i) {
    resized += (*x)->dims[i] != (*y)->dims[i];
  }
  const std::string mode = ctx.node.GetString("mode", "nearest");
  double per_output = 0;
  if (mode == "linear" || mode == "bilinear" || mode == "trilinear") {
    per_output = cost::LinearInterpolationFlops(resized);
  } else if (mode == "cubic" || mode == "bicubic") {
    per_output = cost::CubicInterpolationFlops(resized);
  } else if (mode != "nearest") {
    return NodeError(ctx, fmt::format("unknown mode '{}'", mode));
  }
  Cost cost = TrafficOf(ctx, {0});
  cost.other_flops = Elements(**y) * per_output;
  return cost;
}

}  // namespace

void RegisterResizeCounters(CounterRegistry& registry) {
  registry.Register("", "Resize", CountResize);
  registry.Register("", "Upsample", CountResize);
}

}  // namespace ridgeline::engine::counters
