// Sequence and optional ops. A sequence is a list of tensors, not a tensor:
// its own "tensor" stays without a shape, but what is known about its
// elements (dtype, common dims, length, and each element's dims while they
// are known) is tracked so that SequenceAt, SequenceLength and
// ConcatFromSequence outputs resolve.
#include "fmt/format.h"
#include "importers/shapes/registry.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::Dims;
using graph::DType;

// Merges one more element's dims into `info`.
void AddElement(SequenceInfo* info, const Dims& dims, bool first) {
  if (first) {
    info->elem_dims_known = true;
    info->elem_dims = dims;
  } else if (info->elem_dims_known && info->elem_dims != dims) {
    info->elem_dims_known = false;
  }
}

// Sets length and the common dims from the per-element list.
void Summarize(SequenceInfo* info) {
  info->length = static_cast<int64_t>(info->elems.size());
  info->elem_dims_known = false;
  for (size_t i = 0; i < info->elems.size(); ++i) {
    AddElement(info, info->elems[i], i == 0);
  }
}

// A folded scalar position in [-n, n - 1 + extra] made non-negative; false if
// unknown or out of range.
bool Position(const InferContext& ctx, size_t i, int64_t n, int64_t extra,
              int64_t* pos) {
  std::vector<int64_t> v;
  if (!ValuesAsInt(ctx, i, &v) || v.size() != 1) return false;
  int64_t p = v[0] < 0 ? v[0] + n : v[0];
  if (p < 0 || p > n - 1 + extra) return false;
  *pos = p;
  return true;
}

absl::Status SequenceConstructShape(InferContext& ctx) {
  SequenceInfo info;
  info.dtype = ctx.dtype(0);
  info.elems_known = true;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    info.elems.push_back(ctx.dims(i));
  }
  Summarize(&info);
  ctx.SetSequence(0, std::move(info));
  return absl::OkStatus();
}

absl::Status SequenceEmptyShape(InferContext& ctx) {
  SequenceInfo info;
  info.dtype = DTypeFromAttr(
      ctx.node().GetInt("dtype", static_cast<int64_t>(DType::kFloat32)));
  info.length = 0;
  info.elems_known = true;
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
  int64_t pos = info.length;
  if (info.elems_known &&
      (!ctx.has_input(2) || Position(ctx, 2, info.length, 1, &pos))) {
    info.elems.insert(info.elems.begin() + pos, ctx.dims(1));
    Summarize(&info);
  } else {
    info.elems_known = false;
    info.elems.clear();
    AddElement(&info, ctx.dims(1), seq->length == 0);
    if (info.length >= 0) ++info.length;
  }
  ctx.SetSequence(0, std::move(info));
  return absl::OkStatus();
}

absl::Status SequenceEraseShape(InferContext& ctx) {
  const SequenceInfo* seq = NeedSequence(ctx, 0);
  if (seq == nullptr) return Unresolved("input is not a known sequence");
  SequenceInfo info = *seq;
  int64_t pos = info.length - 1;
  if (info.elems_known && info.length > 0 &&
      (!ctx.has_input(1) || Position(ctx, 1, info.length, 0, &pos))) {
    info.elems.erase(info.elems.begin() + pos);
    Summarize(&info);
  } else {
    info.elems_known = false;
    info.elems.clear();
    if (info.length > 0) --info.length;
  }
  ctx.SetSequence(0, std::move(info));
  return absl::OkStatus();
}

absl::Status SequenceAtShape(InferContext& ctx) {
  const SequenceInfo* seq = NeedSequence(ctx, 0);
  if (seq == nullptr) return Unresolved("input is not a known sequence");
  ctx.SetDType(0, seq->dtype);
  int64_t pos = 0;
  if (seq->elems_known && Position(ctx, 1, seq->length, 0, &pos)) {
    ctx.Set(0, seq->dtype, seq->elems[pos]);
    return absl::OkStatus();
  }
  if (!seq->elem_dims_known) {
    return Unresolved(
        "data-dependent: the sequence's elements differ in shape and the "
        "position is not known");
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
  absl::StatusOr<int64_t> axis = NormalizeAxis(ctx.node().GetInt("axis", 0),
                                               static_cast<int64_t>(in.size()));
  if (!axis.ok()) return axis.status();
  const int64_t dim = in[*axis];
  SequenceInfo info;
  info.dtype = ctx.dtype(0);
  if (!ctx.has_input(1)) {
    Dims elem = in;
    if (ctx.node().GetInt("keepdims", 1) != 0) {
      elem[*axis] = 1;
    } else {
      elem.erase(elem.begin() + *axis);
    }
    info.elems_known = true;
    info.elems.assign(dim, elem);
    Summarize(&info);
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
    info.elems_known = true;
    for (int64_t part : parts) {
      Dims d = in;
      d[*axis] = part;
      info.elems.push_back(std::move(d));
    }
    Summarize(&info);
  }
  ctx.SetSequence(0, std::move(info));
  return absl::OkStatus();
}

absl::Status ConcatFromSequenceShape(InferContext& ctx) {
  const SequenceInfo* seq = NeedSequence(ctx, 0);
  if (seq == nullptr) return Unresolved("input is not a known sequence");
  ctx.SetDType(0, seq->dtype);
  const bool new_axis = ctx.node().GetInt("new_axis", 0) != 0;
  if (seq->length <= 0 ||
      (!seq->elem_dims_known && !(seq->elems_known && !new_axis))) {
    return Unresolved(
        "data-dependent: the sequence's length or element shapes are not "
        "known");
  }
  const Dims& first = seq->elems_known ? seq->elems[0] : seq->elem_dims;
  const int64_t rank = static_cast<int64_t>(first.size()) + (new_axis ? 1 : 0);
  absl::StatusOr<int64_t> axis =
      NormalizeAxis(ctx.node().GetInt("axis", 0), rank);
  if (!axis.ok()) return axis.status();
  Dims out = first;
  if (new_axis) {
    out.insert(out.begin() + *axis, seq->length);
  } else if (seq->elems_known) {
    for (size_t i = 1; i < seq->elems.size(); ++i) {
      const Dims& e = seq->elems[i];
      if (e.size() != out.size()) {
        return Unresolved("ConcatFromSequence of elements of different rank");
      }
      out[*axis] += e[*axis];
    }
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
