// Elementwise ops: the per-output-element cost from cost_table.h times the
// output element count (binary ops broadcast, so the output is what is
// counted). Bytes: each distinct input read once at its own (unbroadcast)
// size, the output written once.
#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"

namespace ridgeline::engine::counters {
namespace {

// Sum/Max/Min: (inputs - 1) operations per output element; Mean adds a
// multiply by 1/n.
CounterFn Variadic(double extra_per_output) {
  return [extra_per_output](const CountContext& ctx) -> absl::StatusOr<Cost> {
    absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
    if (!y.ok()) return y.status();
    Cost cost = DefaultTraffic(ctx);
    const int n = ctx.node.NumPresentInputs();
    cost.other_flops =
        Elements(**y) * ((n > 1 ? n - 1 : 0) * cost::kAdd + extra_per_output);
    return cost;
  };
}

// ONNX Gelu (opset 20): approximate="none" (erf) or "tanh".
absl::StatusOr<Cost> CountGelu(const CountContext& ctx) {
  const double per = ctx.node.GetString("approximate", "none") == "tanh"
                         ? cost::kGeluTanh
                         : cost::kGeluErf;
  return PerOutputElement(per)(ctx);
}

// com.microsoft FastGelu: tanh GELU of X (+ bias when given).
absl::StatusOr<Cost> CountFastGelu(const CountContext& ctx) {
  const double bias = ctx.input(1) != nullptr ? cost::kAdd : 0;
  return PerOutputElement(cost::kGeluTanh + bias)(ctx);
}

}  // namespace

void RegisterElementwiseCounters(CounterRegistry& registry) {
  for (const cost::ElementwiseCost& e : cost::kElementwiseCosts) {
    registry.Register(e.domain, e.op, PerOutputElement(e.flops));
  }
  registry.Register("", "Gelu", CountGelu);
  registry.Register("com.microsoft", "FastGelu", CountFastGelu);
  registry.Register("", "Sum", Variadic(0));
  registry.Register("", "Max", Variadic(0));
  registry.Register("", "Min", Variadic(0));
  registry.Register("", "Mean", Variadic(cost::kMul));
}

}  // namespace ridgeline::engine::counters
