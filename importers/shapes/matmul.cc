// Shape functions of MatMul, MatMulInteger, QLinearMatMul, Gemm and Einsum.
#include <algorithm>
#include <map>
#include <string>
#include <string_view>

#include "fmt/format.h"
#include "graph/einsum.h"
#include "importers/shapes/registry.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::Dims;
using graph::DType;

absl::Status MatMulLike(InferContext& ctx, size_t a, size_t b, DType dtype) {
  absl::StatusOr<Dims> out = MatMulDims(ctx.dims(a), ctx.dims(b));
  if (!out.ok()) return out.status();
  ctx.Set(0, dtype, *std::move(out));
  return absl::OkStatus();
}

absl::Status MatMulShape(InferContext& ctx) {
  return MatMulLike(ctx, 0, 1, ctx.dtype(0));
}

absl::Status MatMulIntegerShape(InferContext& ctx) {
  return MatMulLike(ctx, 0, 1, DType::kInt32);
}

// a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
absl::Status QLinearMatMulShape(InferContext& ctx) {
  return MatMulLike(ctx, 0, 3, ctx.has_input(7) ? ctx.dtype(7) : ctx.dtype(0));
}

// A Gemm of inputs a and b, honoring transA/transB.
absl::Status GemmLike(InferContext& ctx, size_t a_index, size_t b_index,
                      DType dtype) {
  const Dims& a = ctx.dims(a_index);
  const Dims& b = ctx.dims(b_index);
  if (a.size() != 2 || b.size() != 2) {
    return Unresolved(fmt::format("{} of {} and {}: operands must be 2-D",
                                  ctx.node().op_type, DimsString(a),
                                  DimsString(b)));
  }
  const bool ta = ctx.node().GetInt("transA", 0) != 0;
  const bool tb = ctx.node().GetInt("transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0];
  const int64_t k1 = ta ? a[0] : a[1];
  const int64_t k2 = tb ? b[1] : b[0];
  const int64_t n = tb ? b[0] : b[1];
  if (k1 != k2) {
    return Unresolved(fmt::format("{} of {} and {}: inner dims differ",
                                  ctx.node().op_type, DimsString(a),
                                  DimsString(b)));
  }
  ctx.Set(0, dtype, {m, n});
  return absl::OkStatus();
}

absl::Status GemmShape(InferContext& ctx) {
  return GemmLike(ctx, 0, 1, ctx.dtype(0));
}

// com.microsoft QGemm: A, a_scale, a_zero_point, B, b_scale, b_zero_point,
// C, y_scale, y_zero_point; the output is float unless y_scale is given,
// then y_zero_point's type (uint8 when that is omitted, as in ONNX
// Runtime's schema default).
absl::Status QGemmShape(InferContext& ctx) {
  DType dtype = DType::kFloat32;
  if (ctx.has_input(7)) dtype = ctx.has_input(8) ? ctx.dtype(8) : DType::kUInt8;
  return GemmLike(ctx, 0, 3, dtype);
}

absl::Status EinsumShape(InferContext& ctx) {
  absl::StatusOr<graph::EinsumEquation> eq =
      graph::ParseEinsum(ctx.node().GetString("equation", ""));
  if (!eq.ok()) return Unresolved(std::string(eq.status().message()));
  if (eq->inputs.size() != ctx.num_inputs()) {
    return Unresolved(
        fmt::format("Einsum equation '{}' has {} operands, the node {}",
                    ctx.node().GetString("equation", ""), eq->inputs.size(),
                    ctx.num_inputs()));
  }
  std::map<char, int64_t> sizes;
  std::map<char, int> counts;
  Dims ellipsis;
  for (size_t t = 0; t < eq->inputs.size(); ++t) {
    const graph::EinsumTerm& term = eq->inputs[t];
    const Dims& d = ctx.dims(t);
    const size_t letters = term.letters.size();
    if (letters > d.size() || (!term.has_ellipsis() && letters != d.size())) {
      return Unresolved(
          fmt::format("Einsum term '{}' for rank {}", term.letters, d.size()));
    }
    const size_t ell_rank = d.size() - letters;
    size_t dim = 0;
    for (size_t i = 0; i <= letters; ++i) {
      if (static_cast<int>(i) == term.ellipsis_at) {
        absl::StatusOr<Dims> b = Broadcast(
            ellipsis, Dims(d.begin() + dim, d.begin() + dim + ell_rank));
        if (!b.ok()) return b.status();
        ellipsis = *std::move(b);
        dim += ell_rank;
      }
      if (i == letters) break;
      const char c = term.letters[i];
      const int64_t v = d[dim++];
      auto [it, inserted] = sizes.try_emplace(c, v);
      if (!inserted && it->second != v) {
        if (it->second == 1) {
          it->second = v;
        } else if (v != 1) {
          return Unresolved(
              fmt::format("Einsum label '{}' is {} and {}", c, it->second, v));
        }
      }
      ++counts[c];
    }
  }
  Dims out;
  if (eq->output.has_value()) {
    const graph::EinsumTerm& rhs = *eq->output;
    for (size_t i = 0; i <= rhs.letters.size(); ++i) {
      if (static_cast<int>(i) == rhs.ellipsis_at) {
        out.insert(out.end(), ellipsis.begin(), ellipsis.end());
      }
      if (i == rhs.letters.size()) break;
      auto it = sizes.find(rhs.letters[i]);
      if (it == sizes.end()) {
        return Unresolved(fmt::format(
            "Einsum output label '{}' is not an input label", rhs.letters[i]));
      }
      out.push_back(it->second);
    }
  } else {
    out = ellipsis;
    for (const auto& [c, n] : counts) {
      if (n == 1) out.push_back(sizes[c]);
    }
  }
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterMatMulShapes(ShapeRegistry* registry) {
  registry->Add(kOnnxDomain, "MatMul", MatMulShape);
  registry->Add(kOnnxDomain, "MatMulInteger", MatMulIntegerShape);
  registry->Add(kOnnxDomain, "QLinearMatMul", QLinearMatMulShape);
  registry->Add(kOnnxDomain, "Gemm", GemmShape);
  registry->Add(kMicrosoftDomain, "FusedGemm", GemmShape);
  registry->Add(kMicrosoftDomain, "QGemm", QGemmShape);
  registry->Add(kOnnxDomain, "Einsum", EinsumShape);
}

}  // namespace ridgeline::importers::shapes
