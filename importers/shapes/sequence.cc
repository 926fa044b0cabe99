// Sequence and optional ops. A sequence is a list of tensors, not a tensor:
// its own "tensor" stays without a shape, but what is known about its
// elements (dtype, common dims, length) is tracked so that SequenceAt,
// SequenceLength and ConcatFromSequence outputs resolve.
#include "fmt/format.h"
#include "importers/shapes/registry.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::DType;
using graph::Dims;

// Merges one more element's dims into `info`.
void AddElement(SequenceInfo* info, const Dims& dims, bool first) {
  if (first) {
    info->elem_dims_known = true;
    info->elem_dims = dims;
  } else if (info->elem_dims_known && info->elem_dims != dims) {
    info->elem_dims_known = false;
  }
}

absl::Status SequenceConstructShape(InferContext& ctx) {
  SequenceInfo info;
  info.dtype = ctx.dtype(0);
  info.length = static_cast<int64_t>(ctx.num_inputs());
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    AddElement(&info, ctx.dims(i), i == 0);
  }
  ctx.SetSequence(0, std::move(info));
  return absl::OkStatus();
}

absl::Status SequenceEmptyShape(InferContext& ctx) {
  SequenceInfo info;
  info.dtype = DTypeFromAttr(
      ctx.node().GetInt("dtype", static_cast<int64_t>(DType::kFloat32)));
  info.length = 0;
  ctx.SetSequence(0, std::move(info));
  return absl::OkStatus();
}

const SequenceInfo* NeedSequence(const InferContext& ctx, size_t i) {
  return ctx.sequence(i);
}

absl::Status SequenceInsertShape(InferContext& ctx) {
  const SequenceInfo* seq = NeedSequence(ctx, 0);
  if (seq == nullptr) return Unresolved("input is not a known sequence");
  SequenceInfo info = *seq;
  if (info.dtype == DType::kUndefined) info.dtype = ctx.dtype(1);
  AddElement(&info, ctx.dims(1), seq->length == 0);
  if (info.length >= 0) ++info.length;
  ctx.SetSequence(0, std::move(info));
  return absl::OkStatus();
}

absl::Status SequenceEraseShape(InferContext& ctx) {
  const SequenceInfo* seq = NeedSequence(ctx, 0);
  if (seq == nullptr) return Unresolved("input is not a known sequence");
  SequenceInfo info = *seq;
  if (info.length > 0) --info.length;
  ctx.SetSequence(0, std::move(info));
  return absl::OkStatus();
}

absl::Status SequenceAtShape(InferContext& ctx) {
  const SequenceInfo* seq = NeedSequence(ctx, 0);
  if (seq == nullptr) return Unresolved("input is not a known sequence");
  ctx.SetDType(0, seq->dtype);
  if (!seq->elem_dims_known) {
    return Unresolved(
        "data-dependent: the sequence's elements differ in shape");
  }
  ctx.Set(0, seq->dtype, seq->elem_dims);
  return absl::OkStatus();
}

absl::Status SequenceLengthShape(InferContext& ctx) {
  ctx.Set(0, DType::kInt64, {});
  const SequenceInfo* seq = NeedSequence(ctx, 0);
  if (seq != nullptr && seq->length >= 0) ctx.SetInts(0, {seq->length});
  return absl::OkStatus();
}

absl::Status SplitToSequenceShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  absl::StatusOr<int64_t> axis = NormalizeAxis(
      ctx.node().GetInt("axis", 0), static_cast<int64_t>(in.size()));
  if (!axis.ok()) return axis.status();
  const int64_t dim = in[*axis];
  SequenceInfo info;
  info.dtype = ctx.dtype(0);
  if (!ctx.has_input(1)) {
    info.length = dim;
    info.elem_dims_known = true;
    info.elem_dims = in;
    if (ctx.node().GetInt("keepdims", 1) != 0) {
      info.elem_dims[*axis] = 1;
    } else {
      info.elem_dims.erase(info.elem_dims.begin() + *axis);
    }
  } else {
    std::vector<int64_t> split;
    if (!ValuesAsInt(ctx, 1, &split)) return ctx.DataDependent(1);
    std::vector<int64_t> parts;
    if (ctx.rank(1) == 0) {
      if (split.size() != 1 || split[0] <= 0) {
        return Unresolved("SplitToSequence split is not positive");
      }
      for (int64_t done = 0; done < dim; done += split[0]) {
        parts.push_back(std::min(split[0], dim - done));
      }
    } else {
      parts = split;
    }
    info.length = static_cast<int64_t>(parts.size());
    for (size_t i = 0; i < parts.size(); ++i) {
      Dims d = in;
      d[*axis] = parts[i];
      AddElement(&info, d, i == 0);
    }
  }
  ctx.SetSequence(0, std::move(info));
  return absl::OkStatus();
}

absl::Status ConcatFromSequenceShape(InferContext& ctx) {
  const SequenceInfo* seq = NeedSequence(ctx, 0);
  if (seq == nullptr) return Unresolved("input is not a known sequence");
  ctx.SetDType(0, seq->dtype);
  if (seq->length < 0 || !seq->elem_dims_known) {
    return Unresolved(
        "data-dependent: the sequence's length or element shapes are not "
        "known");
  }
  const bool new_axis = ctx.node().GetInt("new_axis", 0) != 0;
  Dims out = seq->elem_dims;
  const int64_t rank = static_cast<int64_t>(out.size()) + (new_axis ? 1 : 0);
  absl::StatusOr<int64_t> axis =
      NormalizeAxis(ctx.node().GetInt("axis", 0), rank);
  if (!axis.ok()) return axis.status();
  if (new_axis) {
    out.insert(out.begin() + *axis, seq->length);
  } else {
    out[*axis] *= seq->length;
  }
  ctx.Set(0, seq->dtype, std::move(out));
  return absl::OkStatus();
}

// Optional(x): tracked as a sequence of at most one element.
absl::Status OptionalShape(InferContext& ctx) {
  if (const SequenceInfo* inner = ctx.sequence(0)) {
    ctx.SetSequence(0, *inner);  // an optional sequence: the sequence
    return absl::OkStatus();
  }
  SequenceInfo info;
  info.is_optional = true;
  if (ctx.has_input(0)) {
    {
      info.dtype = ctx.dtype(0);
      info.length = 1;
      AddElement(&info, ctx.dims(0), true);
    }
  } else {
    info.length = 0;
  }
  ctx.SetSequence(0, std::move(info));
  return absl::OkStatus();
}

absl::Status OptionalHasElementShape(InferContext& ctx) {
  ctx.Set(0, DType::kBool, {});
  if (!ctx.has_input(0)) {
    ctx.SetInts(0, {0});
  } else if (const SequenceInfo* seq = ctx.sequence(0)) {
    if (seq->is_optional && seq->length >= 0) {
      ctx.SetInts(0, {seq->length > 0 ? 1 : 0});
    } else if (!seq->is_optional) {
      ctx.SetInts(0, {1});
    }
  } else if (ctx.input(0).shape_known) {
    ctx.SetInts(0, {1});
  }
  return absl::OkStatus();
}

absl::Status OptionalGetElementShape(InferContext& ctx) {
  if (const SequenceInfo* seq = ctx.sequence(0)) {
    if (seq->is_optional) {
      ctx.SetDType(0, seq->dtype);
      if (seq->elem_dims_known) {
        ctx.Set(0, seq->dtype, seq->elem_dims);
        return absl::OkStatus();
      }
      return Unresolved("the optional holds no tensor of known shape");
    }
    ctx.SetSequence(0, *seq);  // a sequence passed as an optional
    return absl::OkStatus();
  }
  if (!ctx.input(0).shape_known) {
    return Unresolved("the optional's element is not known");
  }
  return SameAsInput(ctx);
}

}  // namespace

void RegisterSequenceShapes(ShapeRegistry* registry) {
  registry->Add(kOnnxDomain, "SequenceConstruct", SequenceConstructShape);
  registry->Add(kOnnxDomain, "SequenceEmpty", SequenceEmptyShape);
  registry->Add(kOnnxDomain, "SequenceInsert", SequenceInsertShape);
  registry->Add(kOnnxDomain, "SequenceErase", SequenceEraseShape);
  registry->Add(kOnnxDomain, "SequenceAt", SequenceAtShape);
  registry->Add(kOnnxDomain, "SequenceLength", SequenceLengthShape);
  registry->Add(kOnnxDomain, "SplitToSequence", SplitToSequenceShape);
  registry->Add(kOnnxDomain, "ConcatFromSequence", ConcatFromSequenceShape);
  registry->Add(kOnnxDomain, "Optional", OptionalShape);
  registry->Add(kOnnxDomain, "OptionalHasElement", OptionalHasElementShape);
  registry->Add(kOnnxDomain, "OptionalGetElement", OptionalGetElementShape);
}

}  // namespace ridgeline::importers::shapes
