// Control-flow containers and generators.
//  - If, Loop, Scan: the container itself does no work and moves no bytes
//    (view = true); the nodes of its bodies are counted like any node, times
//    the number of iterations (see CounterRegistry::Count and COUNTING.md).
//  - Range: one add per output element. ConstantOfShape, EyeLike: only the
//    output is written. NonZero: one compare per input element.
#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"

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

}  // namespace

void RegisterMiscCounters(CounterRegistry& registry) {
  for (const char* op : {"If", "Loop", "Scan"}) {
    registry.Register("", op, CountContainer);
  }
  registry.Register("", "Range", CountRange);
  registry.Register("", "ConstantOfShape", CountWriteOnly);
  registry.Register("", "EyeLike", CountWriteOnly);
  registry.Register("", "NonZero", CountNonZero);
}

}  // namespace ridgeline::engine::counters
