// Pooling. Windowed pools cost prod(kernel_shape) operations per output
// element over every kernel dim (1-D, 2-D and 3-D alike; onnx-tool uses only
// the first two), AveragePool one more multiply by 1/count; global pools one
// operation per input element. Bytes: X read once, outputs written once.
#include <vector>

#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

absl::StatusOr<double> KernelElements(const CountContext& ctx) {
  const std::vector<int64_t> kernel = ctx.node.GetInts("kernel_shape");
  if (kernel.empty()) return NodeError(ctx, "kernel_shape is missing");
  double product = 1;
  for (int64_t k : kernel) {
    if (k <= 0) {
      return NodeError(ctx, fmt::format("kernel_shape has a dim of {}", k));
    }
    product *= static_cast<double>(k);
  }
  return product;
}

CounterFn WindowPool(double per_kernel_element, double per_output) {
  return [=](const CountContext& ctx) -> absl::StatusOr<Cost> {
    absl::StatusOr<double> kernel = KernelElements(ctx);
    if (!kernel.ok()) return kernel.status();
    absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
    if (!y.ok()) return y.status();
    Cost cost = DefaultTraffic(ctx);
    cost.other_flops =
        Elements(**y) * (*kernel * per_kernel_element + per_output);
    return cost;
  };
}

CounterFn GlobalPool(double per_input, double per_output) {
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

}  // namespace

void RegisterPoolCounters(CounterRegistry& registry) {
  registry.Register("", "MaxPool", WindowPool(cost::kPoolPerKernelElement, 0));
  registry.Register(
      "", "AveragePool",
      WindowPool(cost::kPoolPerKernelElement, cost::kAveragePoolPerOutput));
  registry.Register(
      "", "LpPool",
      WindowPool(cost::kLpPoolPerKernelElement, cost::kLpPoolPerOutput));
  registry.Register("", "GlobalMaxPool",
                    GlobalPool(cost::kPoolPerKernelElement, 0));
  registry.Register(
      "", "GlobalAveragePool",
      GlobalPool(cost::kPoolPerKernelElement, cost::kAveragePoolPerOutput));
  registry.Register(
      "", "GlobalLpPool",
      GlobalPool(cost::kLpPoolPerKernelElement, cost::kLpPoolPerOutput));
  // ONNX Runtime's channels-last MaxPool (its NHWC transformer): the same
  // window work in another layout.
  registry.Register("com.microsoft", "NhwcMaxPool",
                    WindowPool(cost::kPoolPerKernelElement, 0));
  // Quantized average pools: the pool plus a requantize per output.
  registry.Register("com.microsoft", "QLinearAveragePool",
                    WindowPool(cost::kPoolPerKernelElement,
                               cost::kAveragePoolPerOutput + cost::kDequantize +
                                   cost::kRequantize));
  registry.Register("com.microsoft", "QLinearGlobalAveragePool",
                    GlobalPool(cost::kPoolPerKernelElement,
                               cost::kAveragePoolPerOutput + cost::kDequantize +
                                   cost::kRequantize));
}

}  // namespace ridgeline::engine::counters
