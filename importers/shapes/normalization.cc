// Shape functions of normalizations: BatchNormalization, InstanceNormalization,
// LayerNormalization (ONNX 17 and the older contrib form registered in the
// default domain), SimplifiedLayerNormalization / RMSNormalization,
// GroupNormalization.
#include "fmt/format.h"
#include "importers/shapes/registry.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::Dims;
using graph::DType;

// Y like X; every further output (running/saved mean and variance) like the
// scale input [C].
absl::Status BatchNormShape(InferContext& ctx) {
  ctx.Set(0, ctx.dtype(0), ctx.dims(0));
  for (size_t i = 1; i < ctx.num_outputs(); ++i) {
    ctx.Set(i, ctx.dtype(1), ctx.dims(1));
  }
  return absl::OkStatus();
}

// Y like X; statistics outputs keep dims before `axis` and 1 after, in the
// stash type (float32 by default).
absl::Status LayerNormShape(InferContext& ctx) {
  const Dims& x = ctx.dims(0);
  absl::StatusOr<int64_t> axis = NormalizeAxis(ctx.node().GetInt("axis", -1),
                                               static_cast<int64_t>(x.size()));
  if (!axis.ok()) return axis.status();
  ctx.Set(0, ctx.dtype(0), x);
  Dims stats = x;
  for (size_t i = *axis; i < stats.size(); ++i) stats[i] = 1;
  DType stash = DTypeFromAttr(ctx.node().GetInt("stash_type", 1));
  if (stash == DType::kUndefined) stash = DType::kFloat32;
  for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.Set(i, stash, stats);
  return absl::OkStatus();
}

// SimplifiedLayerNormalization (Y, inv_std_var) and RMSNormalization.
absl::Status SimplifiedLayerNormShape(InferContext& ctx) {
  return LayerNormShape(ctx);
}

}  // namespace

void RegisterNormalizationShapes(ShapeRegistry* registry) {
  registry->Add(kOnnxDomain, "BatchNormalization", BatchNormShape);
  registry->Add(kOnnxDomain, "InstanceNormalization",
                [](InferContext& ctx) { return SameAsInput(ctx); });
  registry->Add(kOnnxDomain, "GroupNormalization",
                [](InferContext& ctx) { return SameAsInput(ctx); });
  registry->Add(kOnnxDomain, "LayerNormalization", LayerNormShape);
  registry->Add(kOnnxDomain, "SimplifiedLayerNormalization",
                SimplifiedLayerNormShape);
  registry->Add(kOnnxDomain, "RMSNormalization", SimplifiedLayerNormShape);
  registry->Add(kMicrosoftDomain, "LayerNormalization", LayerNormShape);
  registry->Add(kMicrosoftDomain, "SimplifiedLayerNormalization",
                SimplifiedLayerNormShape);
}

}  // namespace ridgeline::importers::shapes
