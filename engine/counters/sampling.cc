// Sampling at computed coordinates: GridSample (ai.onnx and com.microsoft),
// AffineGrid and RoiAlign. The interpolation itself is Resize's (per output
// element and channel); the coordinates and tap weights are computed once per
// sampled location and shared by the channels (engine/counters/COUNTING.md).
#include <algorithm>
#include <string>

#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

enum class Interpolation { kNearest, kLinear, kCubic };

// GridSample's mode: opset 16 and com.microsoft spell it bilinear / bicubic,
// opset 20 linear / cubic.
absl::StatusOr<Interpolation> ParseMode(const CountContext& ctx,
                                        const std::string& mode) {
  if (mode == "nearest") return Interpolation::kNearest;
  if (mode == "linear" || mode == "bilinear") return Interpolation::kLinear;
  if (mode == "cubic" || mode == "bicubic") return Interpolation::kCubic;
  return NodeError(ctx, fmt::format("unknown mode '{}'", mode));
}

// FLOPs of one grid location's coordinate along one axis: unnormalize, fold
// into range (padding_mode), then what the mode needs of it.
absl::StatusOr<double> PerAxisCoordinateFlops(const CountContext& ctx,
                                              Interpolation mode) {
  double flops = ctx.node.GetInt("align_corners", 0) != 0
                     ? cost::kUnnormalizeAlignedCorners
                     : cost::kUnnormalize;
  const std::string padding = ctx.node.GetString("padding_mode", "zeros");
  if (padding == "border") {
    flops += cost::kClampCoordinate;
  } else if (padding == "reflection") {
    flops += cost::kReflectCoordinate;
  } else if (padding != "zeros") {
    return NodeError(ctx, fmt::format("unknown padding_mode '{}'", padding));
  }
  switch (mode) {
    case Interpolation::kNearest:
      return flops + cost::kCmp;  // round
    case Interpolation::kLinear:
      return flops + cost::kFraction;
    case Interpolation::kCubic:
      return flops + cost::kFraction + cost::kCubicWeights;
  }
  return flops;
}

// Interpolation FLOPs per output element over `axes` sampled axes, as Resize
// counts them.
double PerOutputFlops(Interpolation mode, int axes) {
  switch (mode) {
    case Interpolation::kNearest:
      return 0;
    case Interpolation::kLinear:
      return cost::LinearInterpolationFlops(axes);
    case Interpolation::kCubic:
      return cost::CubicInterpolationFlops(axes);
  }
  return 0;
}

// GridSample: X [N, C, D1..Dr], grid [N, D1'..Dr', r], Y [N, C, D1'..Dr'].
absl::StatusOr<Cost> CountGridSample(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 3);
  if (!x.ok()) return x.status();
  absl::StatusOr<const graph::Tensor*> grid = RequireInput(ctx, 1);
  if (!grid.ok()) return grid.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  const size_t axes = (*x)->dims.size() - 2;
  if ((*grid)->dims.size() != axes + 2 ||
      (*grid)->dims.back() != static_cast<int64_t>(axes)) {
    return NodeError(ctx, fmt::format("grid {} does not hold {} coordinates "
                                      "per location of X {}",
                                      graph::ShapeString(**grid), axes,
                                      graph::ShapeString(**x)));
  }
  const std::string default_mode =
      ctx.node.domain.empty() && ctx.node.opset >= 20 ? "linear" : "bilinear";
  absl::StatusOr<Interpolation> mode =
      ParseMode(ctx, ctx.node.GetString("mode", default_mode));
  if (!mode.ok()) return mode.status();
  absl::StatusOr<double> per_axis = PerAxisCoordinateFlops(ctx, *mode);
  if (!per_axis.ok()) return per_axis.status();
  const double locations = Elements(**grid) / static_cast<double>(axes);
  Cost cost = TrafficOf(ctx, {0, 1});
  cost.other_flops = locations * axes * *per_axis +
                     Elements(**y) * PerOutputFlops(*mode, axes);
  return cost;
}

// AffineGrid: theta [N, r, r + 1] and size [N, C, D1..Dr] give the grid
// [N, D1..Dr, r] = base [N, L, r + 1] x theta^T: r (r + 1) MACs per
// location (the base coordinates are per-axis linspaces, not counted).
absl::StatusOr<Cost> CountAffineGrid(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> theta = RequireInputRank(ctx, 0, 3);
  if (!theta.ok()) return theta.status();
  absl::StatusOr<const graph::Tensor*> grid = RequireOutput(ctx, 0);
  if (!grid.ok()) return grid.status();
  const int64_t axes = (*theta)->dims[1];
  if (axes < 1 || (*grid)->dims.empty() || (*grid)->dims.back() != axes) {
    return NodeError(ctx, fmt::format("theta {} does not match the grid {}",
                                      graph::ShapeString(**theta),
                                      graph::ShapeString(**grid)));
  }
  Cost cost = TrafficOf(ctx, {0});  // size is a parameter, as Resize's
  cost.macs = Elements(**grid) * static_cast<double>(axes + 1);
  return cost;
}

// RoiAlign: X [N, C, H, W], rois [R, 4], batch_indices [R] give
// Y [R, C, oh, ow], each bin the average (or max) of s x s bilinear samples.
absl::StatusOr<Cost> CountRoiAlign(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 4);
  if (!x.ok()) return x.status();
  absl::StatusOr<const graph::Tensor*> rois = RequireInputRank(ctx, 1, 2);
  if (!rois.ok()) return rois.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  if ((*y)->dims.size() != 4) {
    return NodeError(ctx, fmt::format("output {} is not [rois, C, oh, ow]",
                                      graph::ShapeString(**y)));
  }
  const std::string mode = ctx.node.GetString("mode", "avg");
  if (mode != "avg" && mode != "max") {
    return NodeError(ctx, fmt::format("unknown mode '{}'", mode));
  }
  Cost cost;
  int64_t ratio = ctx.node.GetInt("sampling_ratio", 0);
  if (ratio <= 0) {
    // Adaptive: ceil(roi size / bins) per axis, known only from the boxes.
    ratio = cost::kRoiAdaptiveSamplingRatio;
    cost.note = fmt::format(
        "sampling_ratio 0 (adaptive, set by the boxes at run time) counted "
        "as {} x {} samples per bin",
        ratio, ratio);
  }
  const double samples =
      static_cast<double>(ratio) * static_cast<double>(ratio);  // no overflow
  const double num_rois = static_cast<double>((*y)->dims[0]);
  const double bins = num_rois * DimProduct((*y)->dims, 2, 4);
  const double per_sample =
      cost::kBilinearWeightedSum + (mode == "avg" ? cost::kAdd : cost::kCmp);
  const double per_output =
      samples * per_sample + (mode == "avg" ? cost::kMul : 0);
  // X: each sample reads its 4 taps, at most the whole feature map.
  AddRead(ctx, **x, std::min(Elements(**x), 4 * samples * Elements(**y)),
          &cost);
  AddReadAll(ctx, **rois, &cost);
  if (ctx.input(2) != nullptr) {
    AddReadAll(ctx, *ctx.input(2), &cost);
  }
  AddWritten(ctx, **y, &cost);
  cost.other_flops = num_rois * cost::kRoiPerBox +
                     bins * samples * cost::kRoiSamplePosition +
                     Elements(**y) * per_output;
  return cost;
}

}  // namespace

void RegisterSamplingCounters(CounterRegistry& registry) {
  registry.Register("", "GridSample", CountGridSample);
  registry.Register("com.microsoft", "GridSample", CountGridSample);
  registry.Register("", "AffineGrid", CountAffineGrid);
  registry.Register("", "RoiAlign", CountRoiAlign);
}

}  // namespace ridgeline::engine::counters
