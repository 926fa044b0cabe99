// Shape functions of QuantizeLinear, DequantizeLinear and
// DynamicQuantizeLinear (default and com.microsoft domains).
#include "importers/shapes/registry.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::DType;

// y = x quantized: dtype of the zero point, or 'output_dtype' (opset 21), or
// uint8.
absl::Status QuantizeShape(InferContext& ctx) {
  DType dtype = DType::kUInt8;
  if (ctx.has_input(2)) {
    dtype = ctx.dtype(2);
  } else if (ctx.node().HasAttribute("output_dtype")) {
    dtype = DTypeFromAttr(ctx.node().GetInt("output_dtype", 2));
  }
  ctx.Set(0, dtype, ctx.dims(0));
  return absl::OkStatus();
}

// y = x dequantized, in the scale's dtype ('output_dtype' from opset 23).
absl::Status DequantizeShape(InferContext& ctx) {
  DType dtype = ctx.dtype(1);
  if (ctx.node().HasAttribute("output_dtype") &&
      ctx.node().GetInt("output_dtype", 0) != 0) {
    dtype = DTypeFromAttr(ctx.node().GetInt("output_dtype", 0));
  }
  ctx.Set(0, dtype, ctx.dims(0));
  return absl::OkStatus();
}

// y (uint8, like x), y_scale (float scalar), y_zero_point (uint8 scalar).
absl::Status DynamicQuantizeShape(InferContext& ctx) {
  ctx.Set(0, DType::kUInt8, ctx.dims(0));
  ctx.Set(1, DType::kFloat32, {});
  ctx.Set(2, DType::kUInt8, {});
  return absl::OkStatus();
}

}  // namespace

void RegisterQuantizeShapes(ShapeRegistry* registry) {
  for (std::string_view domain : {kOnnxDomain, kMicrosoftDomain}) {
    registry->Add(domain, "QuantizeLinear", QuantizeShape);
    registry->Add(domain, "DequantizeLinear", DequantizeShape);
  }
  registry->Add(kOnnxDomain, "DynamicQuantizeLinear", DynamicQuantizeShape);
}

}  // namespace ridgeline::importers::shapes
