// Shape functions of ops that rearrange or build tensors: Constant, Shape,
// Size, Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Concat, Split, Slice,
// Gather*, Expand, Tile, Pad, ConstantOfShape, Range, OneHot, Compress,
// NonZero, Unique, DepthToSpace, SpaceToDepth.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string_view>

#include "fmt/format.h"
#include "importers/shapes/registry.h"
#include "importers/shapes/slice.h"
#include "importers/shapes/util.h"
#include "importers/tensor_proto.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::Dims;
using graph::DType;

const onnx::AttributeProto* FindAttr(const InferContext& ctx,
                                     std::string_view name) {
  if (ctx.proto() == nullptr) return nullptr;
  for (const auto& a : ctx.proto()->attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

// Sets output `out` from a TensorProto value, with its values folded when
// small.
absl::Status SetFromTensorProto(InferContext& ctx, size_t out,
                                const onnx::TensorProto& value) {
  DType dtype;
  Dims dims;
  if (absl::Status s = TensorProtoInfo(value, &dtype, &dims); !s.ok()) {
    return Unresolved(std::string(s.message()));
  }
  ctx.Set(out, dtype, dims);
  if (graph::IsFloating(dtype)) {
    if (auto v = TensorProtoFloats(value, kMaxFoldedElements)) {
      ctx.SetFloats(out, *std::move(v));
    }
  } else if (auto v = TensorProtoInts(value, kMaxFoldedElements)) {
    ctx.SetInts(out, *std::move(v));
  }
  return absl::OkStatus();
}

absl::Status ConstantShape(InferContext& ctx) {
  const graph::Node& n = ctx.node();
  if (const onnx::AttributeProto* a = FindAttr(ctx, "value")) {
    return SetFromTensorProto(ctx, 0, a->t());
  }
  if (n.HasAttribute("value_int")) {
    ctx.Set(0, DType::kInt64, {});
    ctx.SetInts(0, {n.GetInt("value_int", 0)});
  } else if (n.HasAttribute("value_ints")) {
    std::vector<int64_t> v = n.GetInts("value_ints");
    ctx.Set(0, DType::kInt64, {static_cast<int64_t>(v.size())});
    ctx.SetInts(0, std::move(v));
  } else if (n.HasAttribute("value_float")) {
    ctx.Set(0, DType::kFloat32, {});
    ctx.SetFloats(0, {n.GetFloat("value_float", 0)});
  } else if (n.HasAttribute("value_floats")) {
    std::vector<double> v = n.GetFloats("value_floats");
    ctx.Set(0, DType::kFloat32, {static_cast<int64_t>(v.size())});
    ctx.SetFloats(0, std::move(v));
  } else if (n.HasAttribute("value_string")) {
    ctx.Set(0, DType::kString, {});
  } else if (const onnx::AttributeProto* s = FindAttr(ctx, "value_strings")) {
    ctx.Set(0, DType::kString, {s->strings_size()});
  } else if (const onnx::AttributeProto* sp = FindAttr(ctx, "sparse_value")) {
    DType dtype = DTypeFromAttr(sp->sparse_tensor().values().data_type());
    ctx.Set(0, dtype,
            Dims(sp->sparse_tensor().dims().begin(),
                 sp->sparse_tensor().dims().end()));
  } else {
    return Unresolved("Constant has no value attribute");
  }
  return absl::OkStatus();
}

absl::Status ShapeShape(InferContext& ctx) {
  const int64_t rank = ctx.rank(0);
  int64_t start = ctx.node().GetInt("start", 0);
  int64_t end = ctx.node().GetInt("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  std::vector<int64_t> values;
  for (int64_t i = start; i < end; ++i) values.push_back(ctx.dims(0)[i]);
  ctx.Set(0, DType::kInt64, {static_cast<int64_t>(values.size())});
  ctx.SetInts(0, std::move(values));
  return absl::OkStatus();
}

absl::Status SizeShape(InferContext& ctx) {
  ctx.Set(0, DType::kInt64, {});
  ctx.SetInts(0, {ctx.numel(0)});
  return absl::OkStatus();
}

absl::Status ReshapeShape(InferContext& ctx) {
  std::vector<int64_t> shape;
  if (ctx.opset() < 5 && ctx.node().HasAttribute("shape")) {
    shape = ctx.node().GetInts("shape");
  } else {
    const std::vector<int64_t>* v = nullptr;
    if (absl::Status s = ctx.NeedInts(1, &v); !s.ok()) return s;
    shape = *v;
  }
  const bool allowzero = ctx.node().GetInt("allowzero", 0) != 0;
  const Dims& in = ctx.dims(0);
  Dims out(shape.size());
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0 && !allowzero) {
      if (i >= in.size()) {
        return Unresolved(fmt::format(
            "Reshape copies dim {} (0 in the shape) of a rank-{} input", i,
            in.size()));
      }
      d = in[i];
    } else if (d == -1) {
      if (infer >= 0) return Unresolved("Reshape shape has two -1 dims");
      infer = static_cast<int>(i);
      continue;
    } else if (d < 0) {
      return Unresolved(fmt::format("Reshape shape has dim {}", d));
    }
    out[i] = d;
    if (d != 0 && known > INT64_MAX / d) {
      return Unresolved("Reshape target shape overflows int64");
    }
    known *= d;
  }
  const int64_t total = ctx.numel(0);
  if (infer >= 0) {
    if (known == 0) {
      out[infer] = 0;
    } else if (total % known != 0) {
      return Unresolved(
          fmt::format("Reshape of {} ({} elements) to {} is inconsistent",
                      DimsString(in), total, DimsString(shape)));
    } else {
      out[infer] = total / known;
    }
  } else if (known != total) {
    return Unresolved(
        fmt::format("Reshape of {} ({} elements) to {} is inconsistent",
                    DimsString(in), total, DimsString(shape)));
  }
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

absl::Status FlattenShape(InferContext& ctx) {
  const int64_t rank = ctx.rank(0);
  int64_t axis = ctx.node().GetInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) {
    return Unresolved(fmt::format("Flatten axis {} out of range", axis));
  }
  const Dims& in = ctx.dims(0);
  ctx.Set(0, ctx.dtype(0),
          {Product(in, 0, axis), Product(in, axis, in.size())});
  return absl::OkStatus();
}

absl::Status TransposeShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  std::vector<int64_t> perm = ctx.node().GetInts("perm");
  if (perm.empty()) {
    for (int64_t i = static_cast<int64_t>(in.size()) - 1; i >= 0; --i) {
      perm.push_back(i);
    }
  }
  if (perm.size() != in.size()) {
    return Unresolved(fmt::format("Transpose perm has {} entries for rank {}",
                                  perm.size(), in.size()));
  }
  absl::StatusOr<std::vector<int64_t>> p =
      NormalizeAxes(perm, static_cast<int64_t>(in.size()));
  if (!p.ok()) return p.status();
  Dims out(in.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = in[(*p)[i]];
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

absl::Status SqueezeShape(InferContext& ctx) {
  std::vector<int64_t> axes;
  bool present = false;
  if (absl::Status s = AxesFromAttrOrInput(ctx, "axes", 1, 13, &axes, &present);
      !s.ok()) {
    return s;
  }
  const Dims& in = ctx.dims(0);
  std::vector<bool> drop(in.size(), false);
  if (!present || axes.empty()) {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  } else {
    absl::StatusOr<std::vector<int64_t>> a =
        NormalizeAxes(axes, static_cast<int64_t>(in.size()));
    if (!a.ok()) return a.status();
    for (int64_t i : *a) {
      if (in[i] != 1) {
        return Unresolved(
            fmt::format("Squeeze of axis {} whose dim is {}", i, in[i]));
      }
      drop[i] = true;
    }
  }
  Dims out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

absl::Status UnsqueezeShape(InferContext& ctx) {
  std::vector<int64_t> axes;
  bool present = false;
  if (absl::Status s = AxesFromAttrOrInput(ctx, "axes", 1, 13, &axes, &present);
      !s.ok()) {
    return s;
  }
  const Dims& in = ctx.dims(0);
  const int64_t out_rank = static_cast<int64_t>(in.size() + axes.size());
  absl::StatusOr<std::vector<int64_t>> a = NormalizeAxes(axes, out_rank);
  if (!a.ok()) return a.status();
  std::vector<bool> inserted(out_rank, false);
  for (int64_t i : *a) inserted[i] = true;
  Dims out(out_rank);
  size_t j = 0;
  for (int64_t i = 0; i < out_rank; ++i) out[i] = inserted[i] ? 1 : in[j++];
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

// Concat of the inputs first, first + step, ... along `axis`.
absl::Status ConcatLike(InferContext& ctx, size_t first, size_t step,
                        DType dtype) {
  while (first < ctx.num_inputs() && !ctx.has_input(first)) first += step;
  if (first >= ctx.num_inputs()) {
    return Unresolved(fmt::format("{} has no inputs", ctx.node().op_type));
  }
  const int64_t rank = ctx.rank(first);
  absl::StatusOr<int64_t> axis =
      NormalizeAxis(ctx.node().GetInt("axis", 0), rank);
  if (!axis.ok()) return axis.status();
  Dims out = ctx.dims(first);
  for (size_t i = first + step; i < ctx.num_inputs(); i += step) {
    if (!ctx.has_input(i)) continue;
    const Dims& d = ctx.dims(i);
    if (static_cast<int64_t>(d.size()) != rank) {
      return Unresolved(fmt::format("{} of ranks {} and {}", ctx.node().op_type,
                                    rank, d.size()));
    }
    for (int64_t k = 0; k < rank; ++k) {
      if (k == *axis) continue;
      if (d[k] != out[k]) {
        return Unresolved(fmt::format("{} of {} and {} along axis {}",
                                      ctx.node().op_type, DimsString(out),
                                      DimsString(d), *axis));
      }
    }
    out[*axis] += d[*axis];
  }
  ctx.Set(0, dtype == DType::kUndefined ? ctx.dtype(first) : dtype,
          std::move(out));
  return absl::OkStatus();
}

absl::Status ConcatShape(InferContext& ctx) {
  return ConcatLike(ctx, 0, 1, DType::kUndefined);
}

// com.microsoft QLinearConcat: Y_scale, Y_zero_point, then (X, X_scale,
// X_zero_point) per input; the output has Y_zero_point's type.
absl::Status QLinearConcatShape(InferContext& ctx) {
  return ConcatLike(ctx, 2, 3, ctx.dtype(1));
}

absl::Status SplitShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  absl::StatusOr<int64_t> axis = NormalizeAxis(ctx.node().GetInt("axis", 0),
                                               static_cast<int64_t>(in.size()));
  if (!axis.ok()) return axis.status();
  const int64_t dim = in[*axis];
  const int64_t n = static_cast<int64_t>(ctx.num_outputs());
  std::vector<int64_t> split;
  if (ctx.node().HasAttribute("split")) {
    split = ctx.node().GetInts("split");
  } else if (ctx.opset() >= 13 && ctx.has_input(1)) {
    const std::vector<int64_t>* v = nullptr;
    if (absl::Status s = ctx.NeedInts(1, &v); !s.ok()) return s;
    split = *v;
  }
  if (split.empty()) {
    // Equal parts; from opset 18 (num_outputs) the last may be smaller.
    const int64_t parts = ctx.node().GetInt("num_outputs", n);
    if (parts <= 0) return Unresolved("Split into zero parts");
    const int64_t chunk = CeilDiv(dim, parts);
    for (int64_t i = 0; i < parts; ++i) {
      split.push_back(std::clamp<int64_t>(dim - chunk * i, 0, chunk));
    }
  }
  if (static_cast<int64_t>(split.size()) != n) {
    return Unresolved(
        fmt::format("Split into {} parts with {} outputs", split.size(), n));
  }
  int64_t sum = 0;
  for (int64_t s : split) sum += s;
  if (sum != dim) {
    return Unresolved(
        fmt::format("Split sizes sum to {}, the dim is {}", sum, dim));
  }
  for (int64_t i = 0; i < n; ++i) {
    Dims out = in;
    out[*axis] = split[i];
    ctx.Set(i, ctx.dtype(0), std::move(out));
  }
  return absl::OkStatus();
}

absl::Status SliceShape(InferContext& ctx) {
  SliceSpec spec;
  if (absl::Status s = ComputeSlice(ctx, &spec); !s.ok()) return s;
  ctx.Set(0, ctx.dtype(0), std::move(spec.out_dims));
  return absl::OkStatus();
}

absl::Status GatherShape(InferContext& ctx) {
  const Dims& data = ctx.dims(0);
  absl::StatusOr<int64_t> axis = NormalizeAxis(
      ctx.node().GetInt("axis", 0), static_cast<int64_t>(data.size()));
  if (!axis.ok()) return axis.status();
  Dims out(data.begin(), data.begin() + *axis);
  out.insert(out.end(), ctx.dims(1).begin(), ctx.dims(1).end());
  out.insert(out.end(), data.begin() + *axis + 1, data.end());
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

absl::Status GatherElementsShape(InferContext& ctx) {
  ctx.Set(0, ctx.dtype(0), ctx.dims(1));
  return absl::OkStatus();
}

absl::Status GatherNDShape(InferContext& ctx) {
  const Dims& data = ctx.dims(0);
  const Dims& indices = ctx.dims(1);
  const int64_t b = ctx.node().GetInt("batch_dims", 0);
  if (indices.empty()) return Unresolved("GatherND indices are a scalar");
  const int64_t last = indices.back();
  if (b + last > static_cast<int64_t>(data.size())) {
    return Unresolved(fmt::format(
        "GatherND index depth {} + batch_dims {} exceeds data rank {}", last, b,
        data.size()));
  }
  Dims out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), data.begin() + b + last, data.end());
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

absl::Status ExpandShape(InferContext& ctx) {
  const std::vector<int64_t>* shape = nullptr;
  if (absl::Status s = ctx.NeedInts(1, &shape); !s.ok()) return s;
  absl::StatusOr<Dims> out = Broadcast(ctx.dims(0), *shape);
  if (!out.ok()) return out.status();
  ctx.Set(0, ctx.dtype(0), *std::move(out));
  return absl::OkStatus();
}

absl::Status TileShape(InferContext& ctx) {
  const std::vector<int64_t>* repeats = nullptr;
  if (absl::Status s = ctx.NeedInts(1, &repeats); !s.ok()) return s;
  const Dims& in = ctx.dims(0);
  if (repeats->size() != in.size()) {
    return Unresolved(fmt::format("Tile has {} repeats for rank {}",
                                  repeats->size(), in.size()));
  }
  Dims out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if ((*repeats)[i] < 0) return Unresolved("Tile repeat is negative");
    if ((*repeats)[i] != 0 && in[i] > graph::kMaxDim / (*repeats)[i]) {
      return absl::InvalidArgumentError(
          fmt::format("Tile output dim {} x {} is above the limit 2^40", in[i],
                      (*repeats)[i]));
    }
    out[i] = in[i] * (*repeats)[i];
  }
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

absl::Status PadShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> pads;
  if (ctx.opset() < 11) {
    pads = ctx.node().GetInts(ctx.node().HasAttribute("pads") ? "pads"
                                                              : "paddings");
  } else {
    const std::vector<int64_t>* v = nullptr;
    if (absl::Status s = ctx.NeedInts(1, &v); !s.ok()) return s;
    pads = *v;
  }
  std::vector<int64_t> axes;
  if (ctx.opset() >= 18 && ctx.has_input(3)) {
    if (!ValuesAsInt(ctx, 3, &axes)) return ctx.DataDependent(3);
    absl::StatusOr<std::vector<int64_t>> a = NormalizeAxes(axes, rank);
    if (!a.ok()) return a.status();
    axes = *std::move(a);
  } else {
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
  }
  const size_t n = axes.size();
  if (pads.size() != 2 * n) {
    return Unresolved(
        fmt::format("Pad has {} pads for {} axes", pads.size(), n));
  }
  Dims out = in;
  for (size_t i = 0; i < n; ++i) {
    out[axes[i]] = in[axes[i]] + pads[i] + pads[i + n];
  }
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

absl::Status ConstantOfShapeShape(InferContext& ctx) {
  const std::vector<int64_t>* shape = nullptr;
  if (absl::Status s = ctx.NeedInts(0, &shape); !s.ok()) return s;
  DType dtype = DType::kFloat32;
  double fill = 0;
  if (const onnx::AttributeProto* a = FindAttr(ctx, "value")) {
    dtype = DTypeFromAttr(a->t().data_type());
    if (graph::IsFloating(dtype)) {
      if (auto v = TensorProtoFloats(a->t(), 1); v && !v->empty()) {
        fill = (*v)[0];
      }
    } else if (auto v = TensorProtoInts(a->t(), 1); v && !v->empty()) {
      fill = static_cast<double>((*v)[0]);
    }
  }
  for (int64_t d : *shape) {
    if (d < 0) return Unresolved(fmt::format("ConstantOfShape dim {}", d));
  }
  ctx.Set(0, dtype, *shape);
  const int64_t n = Product(*shape, 0, shape->size());
  if (shape->size() <= 8 && n >= 0 && n <= kMaxFoldedElements) {
    if (graph::IsFloating(dtype)) {
      ctx.SetFloats(0, std::vector<double>(n, fill));
    } else {
      ctx.SetInts(0, std::vector<int64_t>(n, static_cast<int64_t>(fill)));
    }
  }
  return absl::OkStatus();
}

absl::Status RangeShape(InferContext& ctx) {
  std::vector<double> start, limit, delta;
  if (!ctx.ValuesAsDouble(0, &start)) return ctx.DataDependent(0);
  if (!ctx.ValuesAsDouble(1, &limit)) return ctx.DataDependent(1);
  if (!ctx.ValuesAsDouble(2, &delta)) return ctx.DataDependent(2);
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1) {
    return Unresolved("Range operands are not scalars");
  }
  if (delta[0] == 0) return Unresolved("Range delta is 0");
  const double count =
      std::max(std::ceil((limit[0] - start[0]) / delta[0]), 0.0);
  if (count > static_cast<double>(graph::kMaxDim)) {
    return absl::InvalidArgumentError(
        fmt::format("Range has {} elements, above the limit 2^40", count));
  }
  ctx.Set(0, ctx.dtype(0), {static_cast<int64_t>(count)});
  return absl::OkStatus();
}

absl::Status OneHotShape(InferContext& ctx) {
  std::vector<int64_t> depth;
  if (!ValuesAsInt(ctx, 1, &depth)) return ctx.DataDependent(1);
  if (depth.size() != 1) return Unresolved("OneHot depth is not a scalar");
  const Dims& in = ctx.dims(0);
  absl::StatusOr<int64_t> axis = NormalizeAxis(
      ctx.node().GetInt("axis", -1), static_cast<int64_t>(in.size()) + 1);
  if (!axis.ok()) return axis.status();
  Dims out = in;
  out.insert(out.begin() + *axis, depth[0]);
  ctx.Set(0, ctx.dtype(2), std::move(out));
  return absl::OkStatus();
}

absl::Status CompressShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  int64_t limit = ctx.numel(0);
  std::optional<int64_t> axis;
  if (ctx.node().HasAttribute("axis")) {
    absl::StatusOr<int64_t> a = NormalizeAxis(ctx.node().GetInt("axis", 0),
                                              static_cast<int64_t>(in.size()));
    if (!a.ok()) return a.status();
    axis = *a;
    limit = in[*axis];
  }
  auto shape = [&](int64_t count) {
    Dims out = {count};
    if (axis) {
      out = in;
      out[*axis] = count;
    }
    return out;
  };
  const std::vector<int64_t>* cond = ctx.ints(1);
  if (cond == nullptr) {
    // Data-dependent: at most every slice the condition covers is kept.
    ctx.SetUpperBound(0, ctx.dtype(0), shape(std::min(limit, ctx.numel(1))));
    return absl::OkStatus();
  }
  int64_t count = 0;
  for (size_t i = 0; i < cond->size() && static_cast<int64_t>(i) < limit; ++i) {
    count += (*cond)[i] != 0;
  }
  ctx.Set(0, ctx.dtype(0), shape(count));
  return absl::OkStatus();
}

absl::Status NonZeroShape(InferContext& ctx) {
  ctx.SetDType(0, DType::kInt64);
  std::vector<double> values;
  if (!ctx.ValuesAsDouble(0, &values)) {
    // Data-dependent: at most every element is non-zero.
    ctx.SetUpperBound(0, DType::kInt64, {ctx.rank(0), ctx.numel(0)});
    return absl::OkStatus();
  }
  int64_t count = 0;
  for (double v : values) count += v != 0;
  ctx.Set(0, DType::kInt64, {ctx.rank(0), count});
  return absl::OkStatus();
}

// Data-dependent: sized as if every value (or every slice along `axis`) were
// distinct, the most Unique can return.
absl::Status UniqueShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  int64_t count = ctx.numel(0);
  Dims y = {count};
  if (ctx.node().HasAttribute("axis")) {
    absl::StatusOr<int64_t> axis = NormalizeAxis(
        ctx.node().GetInt("axis", 0), static_cast<int64_t>(in.size()));
    if (!axis.ok()) return axis.status();
    count = in[*axis];
    y = in;
  }
  ctx.SetUpperBound(0, ctx.dtype(0), std::move(y));
  for (size_t i = 1; i < 4; ++i) {
    // indices and counts: one per distinct value; inverse_indices: one per
    // input value (exact, not a bound).
    if (i == 2) {
      ctx.Set(i, DType::kInt64, {count});
    } else {
      ctx.SetUpperBound(i, DType::kInt64, {count});
    }
  }
  return absl::OkStatus();
}

absl::Status DepthToSpaceShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  const int64_t b = ctx.node().GetInt("blocksize", 1);
  if (in.size() != 4 || b <= 0 || in[1] % (b * b) != 0) {
    return Unresolved(
        "DepthToSpace needs NCHW input with C divisible by "
        "blocksize^2");
  }
  ctx.Set(0, ctx.dtype(0), {in[0], in[1] / (b * b), in[2] * b, in[3] * b});
  return absl::OkStatus();
}

absl::Status SpaceToDepthShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  const int64_t b = ctx.node().GetInt("blocksize", 1);
  if (in.size() != 4 || b <= 0 || in[2] % b != 0 || in[3] % b != 0) {
    return Unresolved(
        "SpaceToDepth needs NCHW input with H, W divisible by "
        "blocksize");
  }
  ctx.Set(0, ctx.dtype(0), {in[0], in[1] * b * b, in[2] / b, in[3] / b});
  return absl::OkStatus();
}

absl::Status CenterCropPadShape(InferContext& ctx) {
  const std::vector<int64_t>* shape = nullptr;
  if (absl::Status s = ctx.NeedInts(1, &shape); !s.ok()) return s;
  Dims out = ctx.dims(0);
  const int64_t rank = static_cast<int64_t>(out.size());
  std::vector<int64_t> axes = ctx.node().GetInts("axes");
  if (axes.empty()) {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  absl::StatusOr<std::vector<int64_t>> a = NormalizeAxes(axes, rank);
  if (!a.ok()) return a.status();
  if (a->size() != shape->size()) return Unresolved("CenterCropPad axes");
  for (size_t i = 0; i < a->size(); ++i) out[(*a)[i]] = (*shape)[i];
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

}  // namespace

absl::Status ComputeSlice(const InferContext& ctx, SliceSpec* spec) {
  const Dims& in = ctx.dims(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.node().GetInts("starts");
    ends = ctx.node().GetInts("ends");
    axes = ctx.node().GetInts("axes");
  } else {
    if (!ValuesAsInt(ctx, 1, &starts)) return ctx.DataDependent(1);
    if (!ValuesAsInt(ctx, 2, &ends)) return ctx.DataDependent(2);
    if (ctx.has_input(3) && !ValuesAsInt(ctx, 3, &axes)) {
      return ctx.DataDependent(3);
    }
    if (ctx.has_input(4) && !ValuesAsInt(ctx, 4, &steps)) {
      return ctx.DataDependent(4);
    }
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) {
      axes.push_back(static_cast<int64_t>(i));
    }
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return Unresolved("Slice starts/ends/axes/steps differ in length");
  }
  absl::StatusOr<std::vector<int64_t>> norm = NormalizeAxes(axes, rank);
  if (!norm.ok()) return norm.status();
  spec->start.assign(rank, 0);
  spec->step.assign(rank, 1);
  spec->out_dims = in;
  for (size_t i = 0; i < norm->size(); ++i) {
    const int64_t a = (*norm)[i];
    const int64_t dim = in[a];
    const int64_t step = steps[i];
    if (step == 0) return Unresolved("Slice step is 0");
    int64_t start = starts[i];
    int64_t end = ends[i];
    if (start < 0) start = start < -dim ? -1 : start + dim;
    if (end < 0) end = end < -dim ? -1 : end + dim;
    int64_t count;
    if (dim == 0) {
      start = 0;
      count = 0;
    } else if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      count = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      count = start > end ? (start - end - 1) / (-step) + 1 : 0;
    }
    spec->start[a] = start;
    spec->step[a] = step;
    spec->out_dims[a] = count;
  }
  return absl::OkStatus();
}

void RegisterTensorShapes(ShapeRegistry* registry) {
  registry->Add(kOnnxDomain, "Constant", ConstantShape);
  registry->Add(kOnnxDomain, "Shape", ShapeShape);
  registry->Add(kOnnxDomain, "Size", SizeShape);
  registry->Add(kOnnxDomain, "Reshape", ReshapeShape);
  registry->Add(kOnnxDomain, "Flatten", FlattenShape);
  registry->Add(kOnnxDomain, "Transpose", TransposeShape);
  registry->Add(kOnnxDomain, "Squeeze", SqueezeShape);
  registry->Add(kOnnxDomain, "Unsqueeze", UnsqueezeShape);
  registry->Add(kOnnxDomain, "Concat", ConcatShape);
  registry->Add(kMicrosoftDomain, "QLinearConcat", QLinearConcatShape);
  registry->Add(kOnnxDomain, "Split", SplitShape);
  registry->Add(kOnnxDomain, "Slice", SliceShape);
  registry->Add(kOnnxDomain, "Gather", GatherShape);
  registry->Add(kOnnxDomain, "GatherElements", GatherElementsShape);
  registry->Add(kOnnxDomain, "GatherND", GatherNDShape);
  registry->Add(kOnnxDomain, "Expand", ExpandShape);
  registry->Add(kOnnxDomain, "Tile", TileShape);
  registry->Add(kOnnxDomain, "Pad", PadShape);
  registry->Add(kOnnxDomain, "ConstantOfShape", ConstantOfShapeShape);
  registry->Add(kOnnxDomain, "Range", RangeShape);
  registry->Add(kOnnxDomain, "OneHot", OneHotShape);
  registry->Add(kOnnxDomain, "Compress", CompressShape);
  registry->Add(kOnnxDomain, "NonZero", NonZeroShape);
  registry->Add(kOnnxDomain, "Unique", UniqueShape);
  registry->Add(kOnnxDomain, "DepthToSpace", DepthToSpaceShape);
  registry->Add(kOnnxDomain, "SpaceToDepth", SpaceToDepthShape);
  registry->Add(kOnnxDomain, "CenterCropPad", CenterCropPadShape);
}

}  // namespace ridgeline::importers::shapes
