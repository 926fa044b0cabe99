// Signal processing: DFT, STFT, the window generators and MelWeightMatrix.
// A transform of N points costs FFTW's benchmark convention (benchFFT,
// www.fftw.org/speed/method.html): 5 N log2 N FLOPs for complex data and
// 2.5 N log2 N for real data, whatever algorithm the runtime picks.
#include <cmath>
#include <optional>
#include <string>

#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

// FLOPs of one N-point transform; `complex` input or real.
double TransformFlops(double n, bool complex) {
  if (!(n > 1)) return 0;
  return (complex ? cost::kFftComplex : cost::kFftReal) * n * std::log2(n);
}

// DFT: input [..., n, 1|2] (real or complex), the transform along `axis`
// (opset 17: attribute, default 1; opset 20: input 2, default -2) over
// dft_length points (input 1, default n); the inverse scales by 1 / N.
absl::StatusOr<Cost> CountDft(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 2);
  if (!x.ok()) return x.status();
  const graph::Dims& dims = (*x)->dims;
  int64_t axis = ctx.node.GetInt("axis", 1);
  if (ctx.node.opset >= 20) {
    axis = -2;
    if (const graph::Tensor* a = ctx.input(2); a != nullptr) {
      std::optional<int64_t> folded = FoldedScalar(a);
      if (!folded) return NodeError(ctx, "axis is not a known constant");
      axis = *folded;
    }
  }
  absl::StatusOr<size_t> at = NormalizeAxis(ctx, axis, dims.size());
  if (!at.ok()) return at.status();
  if (*at == dims.size() - 1) {
    return NodeError(ctx, "the transform axis is the real/imaginary axis");
  }
  double n = static_cast<double>(dims[*at]);
  if (const graph::Tensor* length = ctx.input(1); length != nullptr) {
    std::optional<int64_t> folded = FoldedScalar(length);
    if (!folded || *folded < 1) {
      return NodeError(ctx, "dft_length is not a known positive constant");
    }
    n = static_cast<double>(*folded);
  }
  const bool complex = dims.back() == 2;
  // An empty signal (a 0-sized dim) has no transforms to run.
  const double per_transform = static_cast<double>(dims[*at]) * dims.back();
  const double transforms =
      per_transform > 0 ? Elements(**x) / per_transform : 0;
  Cost cost = TrafficOf(ctx, {0});
  cost.other_flops = transforms * TransformFlops(n, complex);
  if (ctx.node.GetInt("inverse", 0) != 0) {
    cost.other_flops += transforms * 2 * n * cost::kMul;  // re, im by 1/N
  }
  return cost;
}

// STFT: signal [batch, length, 1|2], frame_step, window [N] (optional),
// frame_length (optional) give [batch, frames, bins, 2]: per frame the
// window product (one multiply per real or imaginary part) and an N-point
// transform.
absl::StatusOr<Cost> CountStft(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> signal = RequireInputRank(ctx, 0, 3);
  if (!signal.ok()) return signal.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  if ((*y)->dims.size() != 4) {
    return NodeError(ctx, fmt::format("output {} is not [batch, frames, "
                                      "bins, 2]",
                                      graph::ShapeString(**y)));
  }
  const graph::Tensor* window = ctx.input(2);
  double n = 0;
  if (const graph::Tensor* length = ctx.input(3); length != nullptr) {
    std::optional<int64_t> folded = FoldedScalar(length);
    if (folded && *folded > 0) n = static_cast<double>(*folded);
  }
  if (!(n > 0) && window != nullptr && window->dims.size() == 1) {
    n = static_cast<double>(window->dims[0]);
  }
  if (!(n > 0)) {
    return NodeError(ctx,
                     "frame length unknown: neither frame_length nor "
                     "the window's size is known");
  }
  const bool complex = (*signal)->dims.back() == 2;
  const double frames = DimProduct((*y)->dims, 0, 2);
  double per_frame = TransformFlops(n, complex);
  if (window != nullptr) per_frame += n * (complex ? 2 : 1) * cost::kMul;
  Cost cost = TrafficOf(ctx, {0, 2});
  cost.other_flops = frames * per_frame;
  return cost;
}

// HannWindow, HammingWindow, BlackmanWindow: [size] from a scalar size.
Cost WindowCost(const CountContext& ctx, double per_element) {
  Cost cost = TrafficOf(ctx, {});
  if (const graph::Tensor* y = ctx.output(0); y != nullptr) {
    cost.other_flops = Elements(*y) * per_element;
  }
  return cost;
}

absl::StatusOr<Cost> CountCosineWindow(const CountContext& ctx) {
  return WindowCost(ctx, cost::kCosineWindow);
}

absl::StatusOr<Cost> CountBlackmanWindow(const CountContext& ctx) {
  return WindowCost(ctx, cost::kBlackmanWindow);
}

// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] of triangular filters
// whose num_mel_bins + 2 edges are spaced evenly in mels.
absl::StatusOr<Cost> CountMelWeightMatrix(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  if ((*y)->dims.size() != 2) {
    return NodeError(ctx, fmt::format("output {} is not [bins, mel bins]",
                                      graph::ShapeString(**y)));
  }
  Cost cost = TrafficOf(ctx, {});
  const double edges = static_cast<double>((*y)->dims[1]) + 2;
  cost.other_flops = Elements(**y) * cost::kMelTriangle +
                     edges * cost::kMelEdge + 2 * cost::kHzToMel;
  return cost;
}

}  // namespace

void RegisterSignalCounters(CounterRegistry& registry) {
  registry.Register("", "DFT", CountDft);
  registry.Register("", "STFT", CountStft);
  registry.Register("", "HannWindow", CountCosineWindow);
  registry.Register("", "HammingWindow", CountCosineWindow);
  registry.Register("", "BlackmanWindow", CountBlackmanWindow);
  registry.Register("", "MelWeightMatrix", CountMelWeightMatrix);
}

}  // namespace ridgeline::engine::counters
