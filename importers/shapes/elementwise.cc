// Shape functions of elementwise ops: unary (same shape and dtype), binary and
// variadic with numpy broadcasting, comparisons (bool), Where, Cast.
#include <string_view>

#include "importers/shapes/registry.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::DType;

absl::Status UnaryShape(InferContext& ctx) { return SameAsInput(ctx); }

// Identity also forwards sequences and optionals.
absl::Status IdentityShape(InferContext& ctx) {
  if (const SequenceInfo* seq = ctx.sequence(0)) {
    ctx.SetSequence(0, *seq);
    return absl::OkStatus();
  }
  return SameAsInput(ctx);
}

absl::Status BoolUnaryShape(InferContext& ctx) {
  ctx.Set(0, DType::kBool, ctx.dims(0));
  return absl::OkStatus();
}

// Dropout: output, and an optional bool mask of the same shape.
absl::Status DropoutShape(InferContext& ctx) {
  ctx.Set(0, ctx.dtype(0), ctx.dims(0));
  ctx.Set(1, DType::kBool, ctx.dims(0));
  return absl::OkStatus();
}

absl::Status BroadcastShape(InferContext& ctx) {
  absl::StatusOr<graph::Dims> dims = BroadcastInputs(ctx);
  if (!dims.ok()) return dims.status();
  size_t first = 0;
  while (first < ctx.num_inputs() && !ctx.has_input(first)) ++first;
  ctx.Set(0, ctx.dtype(first), *std::move(dims));
  return absl::OkStatus();
}

absl::Status CompareShape(InferContext& ctx) {
  absl::StatusOr<graph::Dims> dims = BroadcastInputs(ctx);
  if (!dims.ok()) return dims.status();
  ctx.Set(0, DType::kBool, *std::move(dims));
  return absl::OkStatus();
}

absl::Status WhereShape(InferContext& ctx) {
  absl::StatusOr<graph::Dims> dims = BroadcastInputs(ctx);
  if (!dims.ok()) return dims.status();
  ctx.Set(0, ctx.dtype(1), *std::move(dims));
  return absl::OkStatus();
}

absl::Status CastShape(InferContext& ctx) {
  DType to = DTypeFromAttr(ctx.node().GetInt("to", 0));
  if (to == DType::kUndefined) return Unresolved("Cast has no valid 'to'");
  ctx.Set(0, to, ctx.dims(0));
  return absl::OkStatus();
}

absl::Status CastLikeShape(InferContext& ctx) {
  ctx.Set(0, ctx.dtype(1), ctx.dims(0));
  return absl::OkStatus();
}

// RandomUniformLike, RandomNormalLike, Bernoulli, EyeLike: input shape, dtype
// from the 'dtype' attribute or else the input's.
absl::Status LikeShape(InferContext& ctx) {
  DType dtype = ctx.node().HasAttribute("dtype")
                    ? DTypeFromAttr(ctx.node().GetInt("dtype", 0))
                    : ctx.dtype(0);
  ctx.Set(0, dtype, ctx.dims(0));
  return absl::OkStatus();
}

// RandomUniform, RandomNormal: shape and dtype (float by default) attributes.
absl::Status RandomShape(InferContext& ctx) {
  DType dtype = DTypeFromAttr(
      ctx.node().GetInt("dtype", static_cast<int64_t>(DType::kFloat32)));
  ctx.Set(0, dtype, ctx.node().GetInts("shape"));
  return absl::OkStatus();
}

constexpr std::string_view kUnaryOps[] = {"Abs",
                                          "Acos",
                                          "Acosh",
                                          "Asin",
                                          "Asinh",
                                          "Atan",
                                          "Atanh",
                                          "Ceil",
                                          "Cos",
                                          "Cosh",
                                          "Elu",
                                          "Erf",
                                          "Exp",
                                          "Floor",
                                          "HardSigmoid",
                                          "HardSwish",
                                          "Log",
                                          "Neg",
                                          "Reciprocal",
                                          "Relu",
                                          "Round",
                                          "Selu",
                                          "Sigmoid",
                                          "Sign",
                                          "Sin",
                                          "Sinh",
                                          "Softplus",
                                          "Softsign",
                                          "Sqrt",
                                          "Tan",
                                          "Tanh",
                                          "ThresholdedRelu",
                                          "Celu",
                                          "Shrink",
                                          "Mish",
                                          "Gelu",
                                          "Not",
                                          "BitwiseNot",
                                          "Clip",
                                          "Hardmax",
                                          "Softmax",
                                          "LogSoftmax",
                                          "LpNormalization",
                                          "MeanVarianceNormalization",
                                          "LRN",
                                          "CumSum",
                                          "Trilu",
                                          "ReverseSequence",
                                          "Scatter",
                                          "ScatterElements",
                                          "ScatterND",
                                          "ImageScaler",
                                          "Swish"};

constexpr std::string_view kBroadcastOps[] = {
    "Add",        "Sub",   "Mul",      "Div",        "Pow",
    "Mod",        "PRelu", "BitShift", "BitwiseAnd", "BitwiseOr",
    "BitwiseXor", "Max",   "Min",      "Sum",        "Mean"};

constexpr std::string_view kCompareOps[] = {
    "Equal",          "Less", "LessOrEqual", "Greater",
    "GreaterOrEqual", "And",  "Or",          "Xor"};

}  // namespace

void RegisterElementwiseShapes(ShapeRegistry* registry) {
  for (std::string_view op : kUnaryOps) {
    registry->Add(kOnnxDomain, op, UnaryShape);
  }
  for (std::string_view op : kBroadcastOps) {
    registry->Add(kOnnxDomain, op, BroadcastShape);
  }
  for (std::string_view op : kCompareOps) {
    registry->Add(kOnnxDomain, op, CompareShape);
  }
  registry->Add(kOnnxDomain, "Identity", IdentityShape);
  registry->Add(kOnnxDomain, "IsInf", BoolUnaryShape);
  registry->Add(kOnnxDomain, "IsNaN", BoolUnaryShape);
  registry->Add(kOnnxDomain, "Dropout", DropoutShape);
  registry->Add(kOnnxDomain, "Where", WhereShape);
  registry->Add(kOnnxDomain, "Cast", CastShape);
  registry->Add(kOnnxDomain, "CastLike", CastLikeShape);
  registry->Add(kOnnxDomain, "RandomUniformLike", LikeShape);
  registry->Add(kOnnxDomain, "RandomNormalLike", LikeShape);
  registry->Add(kOnnxDomain, "Bernoulli", LikeShape);
  registry->Add(kOnnxDomain, "EyeLike", LikeShape);
  registry->Add(kOnnxDomain, "RandomUniform", RandomShape);
  registry->Add(kOnnxDomain, "RandomNormal", RandomShape);
}

}  // namespace ridgeline::importers::shapes
