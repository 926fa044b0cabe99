// Shape functions of reductions: Reduce* (axes as attribute, or as input from
// opset 18 -- opset 13 for ReduceSum), ArgMax/ArgMin, TopK.
#include <string_view>

#include "fmt/format.h"
#include "importers/shapes/registry.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::Dims;
using graph::DType;

absl::Status ReduceShape(InferContext& ctx) {
  const int64_t since = ctx.node().op_type == "ReduceSum" ? 13 : 18;
  std::vector<int64_t> axes;
  bool present = false;
  if (absl::Status s =
          AxesFromAttrOrInput(ctx, "axes", 1, since, &axes, &present);
      !s.ok()) {
    return s;
  }
  const Dims& in = ctx.dims(0);
  const bool keepdims = ctx.node().GetInt("keepdims", 1) != 0;
  if (axes.empty()) {
    if (ctx.node().GetInt("noop_with_empty_axes", 0) != 0) {
      ctx.Set(0, ctx.dtype(0), in);
      return absl::OkStatus();
    }
    for (size_t i = 0; i < in.size(); ++i) {
      axes.push_back(static_cast<int64_t>(i));
    }
  }
  absl::StatusOr<std::vector<int64_t>> a =
      NormalizeAxes(axes, static_cast<int64_t>(in.size()));
  if (!a.ok()) return a.status();
  std::vector<bool> reduced(in.size(), false);
  for (int64_t i : *a) reduced[i] = true;
  Dims out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!reduced[i]) {
      out.push_back(in[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

absl::Status ArgReduceShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  absl::StatusOr<int64_t> axis = NormalizeAxis(ctx.node().GetInt("axis", 0),
                                               static_cast<int64_t>(in.size()));
  if (!axis.ok()) return axis.status();
  Dims out = in;
  if (ctx.node().GetInt("keepdims", 1) != 0) {
    out[*axis] = 1;
  } else {
    out.erase(out.begin() + *axis);
  }
  ctx.Set(0, DType::kInt64, std::move(out));
  return absl::OkStatus();
}

absl::Status TopKShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  ctx.SetDType(0, ctx.dtype(0));
  ctx.SetDType(1, DType::kInt64);
  int64_t k = 0;
  if (ctx.opset() < 10) {
    k = ctx.node().GetInt("k", 0);
  } else {
    std::vector<int64_t> v;
    if (!ValuesAsInt(ctx, 1, &v)) return ctx.DataDependent(1);
    if (v.size() != 1) return Unresolved("TopK k is not a single value");
    k = v[0];
  }
  absl::StatusOr<int64_t> axis = NormalizeAxis(ctx.node().GetInt("axis", -1),
                                               static_cast<int64_t>(in.size()));
  if (!axis.ok()) return axis.status();
  if (k < 0 || k > in[*axis]) {
    return Unresolved(fmt::format("TopK k={} for a dim of {}", k, in[*axis]));
  }
  Dims out = in;
  out[*axis] = k;
  ctx.Set(0, ctx.dtype(0), out);
  ctx.Set(1, DType::kInt64, std::move(out));
  return absl::OkStatus();
}

constexpr std::string_view kReduceOps[] = {
    "ReduceMean",      "ReduceSum",      "ReduceMax", "ReduceMin",
    "ReduceProd",      "ReduceL1",       "ReduceL2",  "ReduceLogSum",
    "ReduceLogSumExp", "ReduceSumSquare"};

}  // namespace

void RegisterReduceShapes(ShapeRegistry* registry) {
  for (std::string_view op : kReduceOps) {
    registry->Add(kOnnxDomain, op, ReduceShape);
  }
  registry->Add(kOnnxDomain, "ArgMax", ArgReduceShape);
  registry->Add(kOnnxDomain, "ArgMin", ArgReduceShape);
  registry->Add(kOnnxDomain, "TopK", TopKShape);
}

}  // namespace ridgeline::importers::shapes
