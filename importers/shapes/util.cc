#include "importers/shapes/util.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_join.h"
#include "fmt/format.h"

namespace ridgeline::importers::shapes {

std::string DimsString(const graph::Dims& dims) {
  return fmt::format("[{}]", absl::StrJoin(dims, ","));
}

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  // A scalar has no axis: rank 0 leaves the range [-0, 0) empty.
  if (axis < -rank || axis >= rank) {
    return Unresolved(
        fmt::format("axis {} is out of range for rank {}", axis, rank));
  }
  return axis < 0 ? axis + rank : axis;
}

absl::StatusOr<std::vector<int64_t>> NormalizeAxes(
    const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return Unresolved(
          fmt::format("axis {} is out of range for rank {}", a, rank));
    }
    int64_t n = a < 0 ? a + rank : a;
    if (std::find(out.begin(), out.end(), n) != out.end()) {
      return Unresolved(fmt::format("axis {} is repeated", a));
    }
    out.push_back(n);
  }
  return out;
}

absl::StatusOr<graph::Dims> Broadcast(const graph::Dims& a,
                                      const graph::Dims& b) {
  if (a == b) return a;
  const size_t rank = std::max(a.size(), b.size());
  graph::Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return Unresolved(fmt::format("shapes {} and {} do not broadcast",
                                    DimsString(a), DimsString(b)));
    }
  }
  return out;
}

absl::StatusOr<graph::Dims> BroadcastInputs(const InferContext& ctx,
                                            size_t first) {
  graph::Dims out;
  bool any = false;
  for (size_t i = first; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    if (!any) {
      out = ctx.dims(i);
      any = true;
      continue;
    }
    absl::StatusOr<graph::Dims> b = Broadcast(out, ctx.dims(i));
    if (!b.ok()) return b.status();
    out = *std::move(b);
  }
  if (!any) return Unresolved("the node has no inputs to broadcast");
  return out;
}

absl::Status SameAsInput(InferContext& ctx, size_t input, size_t output) {
  if (!ctx.has_input(input)) {
    return Unresolved(fmt::format("input {} is omitted", input));
  }
  ctx.Set(output, ctx.dtype(input), ctx.dims(input));
  return absl::OkStatus();
}

absl::Status AxesFromAttrOrInput(const InferContext& ctx, std::string_view attr,
                                 size_t input, int64_t input_since_opset,
                                 std::vector<int64_t>* axes, bool* present) {
  *present = false;
  axes->clear();
  if (ctx.opset() < input_since_opset || ctx.node().HasAttribute(attr)) {
    if (ctx.node().HasAttribute(attr)) {
      *axes = ctx.node().GetInts(attr);
      *present = true;
    }
    return absl::OkStatus();
  }
  if (!ctx.has_input(input)) return absl::OkStatus();
  if (!ValuesAsInt(ctx, input, axes)) return ctx.DataDependent(input);
  *present = true;
  return absl::OkStatus();
}

bool ValuesAsInt(const InferContext& ctx, size_t i, std::vector<int64_t>* out) {
  if (const std::vector<int64_t>* v = ctx.ints(i)) {
    *out = *v;
    return true;
  }
  if (const std::vector<double>* f = ctx.floats(i)) {
    out->clear();
    out->reserve(f->size());
    for (double x : *f) {
      if (!std::isfinite(x)) return false;
      out->push_back(static_cast<int64_t>(x));
    }
    return true;
  }
  return false;
}

absl::StatusOr<graph::Dims> MatMulDims(const graph::Dims& a,
                                       const graph::Dims& b) {
  if (a.empty() || b.empty()) return Unresolved("MatMul of a scalar");
  graph::Dims x = a.size() == 1 ? graph::Dims{1, a[0]} : a;
  graph::Dims y = b.size() == 1 ? graph::Dims{b[0], 1} : b;
  const int64_t k1 = x.back();
  const int64_t k2 = y[y.size() - 2];
  if (k1 != k2) {
    return Unresolved(fmt::format("MatMul of {} and {}: inner dims differ",
                                  DimsString(a), DimsString(b)));
  }
  absl::StatusOr<graph::Dims> batch = Broadcast(
      graph::Dims(x.begin(), x.end() - 2), graph::Dims(y.begin(), y.end() - 2));
  if (!batch.ok()) return batch.status();
  graph::Dims out = *std::move(batch);
  if (a.size() > 1) out.push_back(x[x.size() - 2]);
  if (b.size() > 1) out.push_back(y.back());
  return out;
}

int64_t Product(const graph::Dims& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < dims.size(); ++i) p *= dims[i];
  return p;
}

graph::DType DTypeFromAttr(int64_t onnx_type) {
  std::optional<graph::DType> d =
      graph::DTypeFromOnnx(static_cast<int32_t>(onnx_type));
  return d.has_value() ? *d : graph::DType::kUndefined;
}

}  // namespace ridgeline::importers::shapes
