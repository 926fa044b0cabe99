#include "engine/counters/contraction.h"

#include <algorithm>
#include <vector>

#include "engine/counters/common.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {

absl::StatusOr<MatMulDims> MatMulDimsOf(const CountContext& ctx, size_t a_index,
                                        size_t b_index) {
  absl::StatusOr<const graph::Tensor*> a = RequireInputRank(ctx, a_index, 1);
  if (!a.ok()) return a.status();
  absl::StatusOr<const graph::Tensor*> b = RequireInputRank(ctx, b_index, 1);
  if (!b.ok()) return b.status();
  graph::Dims ad = (*a)->dims;
  graph::Dims bd = (*b)->dims;
  if (ad.size() == 1) ad.insert(ad.begin(), 1);  // [K] -> [1, K]
  if (bd.size() == 1) bd.push_back(1);           // [K] -> [K, 1]
  MatMulDims d;
  d.m = static_cast<double>(ad[ad.size() - 2]);
  d.k = static_cast<double>(ad[ad.size() - 1]);
  d.n = static_cast<double>(bd[bd.size() - 1]);
  if (ad[ad.size() - 1] != bd[bd.size() - 2]) {
    return NodeError(ctx, fmt::format("MatMul inner dims differ: A '{}' {} and "
                                      "B '{}' {}",
                                      (*a)->name, graph::ShapeString(**a),
                                      (*b)->name, graph::ShapeString(**b)));
  }
  // Broadcast the batch dims, right-aligned.
  const size_t ab = ad.size() - 2;
  const size_t bb = bd.size() - 2;
  const size_t rank = std::max(ab, bb);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < rank - ab ? 1 : ad[i - (rank - ab)];
    const int64_t y = i < rank - bb ? 1 : bd[i - (rank - bb)];
    if (x != y && x != 1 && y != 1) {
      return NodeError(
          ctx, fmt::format("MatMul batch dims do not broadcast: A '{}' "
                           "{} and B '{}' {}",
                           (*a)->name, graph::ShapeString(**a), (*b)->name,
                           graph::ShapeString(**b)));
    }
    d.batch *= static_cast<double>(x == 1 ? y : x);
  }
  // A B without batch dims (a weight [K, N]) is one GEMM over every row of
  // A: [..., M, K] x [K, N] runs as (batch x M) x K x N, as cuBLAS and
  // torch.matmul fold it (a decode batch [B, 1, K] is m = B, not B GEMMs of
  // one row). The MACs are the same either way; the shape sets tile and
  // wave quantization.
  if (bb == 0) {
    d.m *= d.batch;
    d.batch = 1;
  }
  return d;
}

absl::StatusOr<MatMulDims> GemmDimsOf(const CountContext& ctx, size_t a_index,
                                      size_t b_index) {
  absl::StatusOr<const graph::Tensor*> a = RequireInputRank(ctx, a_index, 2);
  if (!a.ok()) return a.status();
  absl::StatusOr<const graph::Tensor*> b = RequireInputRank(ctx, b_index, 2);
  if (!b.ok()) return b.status();
  if ((*a)->dims.size() != 2 || (*b)->dims.size() != 2) {
    return NodeError(
        ctx, fmt::format("Gemm needs 2-D inputs, got A {} and B {}",
                         graph::ShapeString(**a), graph::ShapeString(**b)));
  }
  const bool trans_a = ctx.node.GetInt("transA", 0) != 0;
  const bool trans_b = ctx.node.GetInt("transB", 0) != 0;
  const graph::Dims& ad = (*a)->dims;
  const graph::Dims& bd = (*b)->dims;
  const int64_t m = trans_a ? ad[1] : ad[0];
  const int64_t k = trans_a ? ad[0] : ad[1];
  const int64_t kb = trans_b ? bd[1] : bd[0];
  const int64_t n = trans_b ? bd[0] : bd[1];
  if (k != kb) {
    return NodeError(ctx,
                     fmt::format("Gemm inner dims differ: A {} (transA={}) "
                                 "and B {} (transB={})",
                                 graph::ShapeString(**a), trans_a ? 1 : 0,
                                 graph::ShapeString(**b), trans_b ? 1 : 0));
  }
  MatMulDims d;
  d.m = static_cast<double>(m);
  d.n = static_cast<double>(n);
  d.k = static_cast<double>(k);
  return d;
}

GemmShape MatMulGemm(const CountContext& ctx, const MatMulDims& d,
                     size_t b_index) {
  GemmShape g = d.Gemm();
  if (const graph::Tensor* b = ctx.input(b_index); b != nullptr) {
    g.b_is_weight = IsWeight(ctx.graph, *b);
    g.element_bytes = ctx.pricer.ElementBytes(ctx.graph, *b);
  }
  return g;
}

absl::StatusOr<ConvDims> ConvDimsOf(const CountContext& ctx, size_t x_index,
                                    size_t w_index, bool channels_last) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, x_index, 3);
  if (!x.ok()) return x.status();
  absl::StatusOr<const graph::Tensor*> w = RequireInputRank(ctx, w_index, 3);
  if (!w.ok()) return w.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  const graph::Dims& xd = (*x)->dims;
  const graph::Dims& wd = (*w)->dims;
  const graph::Dims& yd = (*y)->dims;
  if (wd.size() != xd.size() || yd.size() != xd.size()) {
    return NodeError(
        ctx, fmt::format("conv ranks differ: X {}, W {}, Y {}",
                         graph::ShapeString(**x), graph::ShapeString(**w),
                         graph::ShapeString(**y)));
  }
  const int64_t group = ctx.node.GetInt("group", 1);
  const int64_t c_in = channels_last ? xd.back() : xd[1];
  const size_t rank = xd.size();
  // A channels-last convolution may keep its weight channels last too
  // (com.microsoft NhwcConv: [M, k..., C/group]) or in the ONNX layout
  // (com.microsoft QLinearConv with channels_last: [M, C/group, k...]);
  // either way a weight row holds (C_in/group) x prod(kernel) elements.
  const bool weight_channels_last =
      channels_last && group > 0 && c_in % group == 0 &&
      wd.back() == c_in / group && wd[1] != c_in / group;
  const int64_t weight_channels = weight_channels_last ? wd.back() : wd[1];
  if (group <= 0 || c_in % group != 0 || c_in / group != weight_channels) {
    return NodeError(
        ctx, fmt::format("conv input channels {} / group {} do not match "
                         "weight '{}' {} (dim {} must be C_in/group)",
                         c_in, group, (*w)->name, graph::ShapeString(**w),
                         channels_last ? "1 or the last" : "1"));
  }
  const int64_t c_out = channels_last ? yd.back() : yd[1];
  if (c_out != wd[0]) {
    return NodeError(ctx,
                     fmt::format("conv output channels {} do not match "
                                 "weight '{}' {}",
                                 c_out, (*w)->name, graph::ShapeString(**w)));
  }
  const double out_spatial =
      channels_last ? DimProduct(yd, 1, rank - 1) : DimProduct(yd, 2, rank);
  const double kernel = weight_channels_last ? DimProduct(wd, 1, rank - 1)
                                             : DimProduct(wd, 2, rank);
  ConvDims d;
  d.output_elements =
      static_cast<double>(yd[0]) * static_cast<double>(c_out) * out_spatial;
  d.macs = d.output_elements * static_cast<double>(c_in / group) * kernel;
  d.gemm = {static_cast<double>(group),
            static_cast<double>(yd[0]) * out_spatial,
            static_cast<double>(c_out / group),
            static_cast<double>(c_in / group) * kernel};
  d.gemm.conv = true;
  // A pointwise convolution with unit strides and no padding reads its input
  // as the column matrix; any other one expands it (im2col).
  bool trivial = kernel == 1;
  for (int64_t s : ctx.node.GetInts("strides")) trivial = trivial && s == 1;
  for (int64_t p : ctx.node.GetInts("pads")) trivial = trivial && p == 0;
  d.gemm.expanded = !trivial;
  d.gemm.element_bytes = ctx.pricer.ElementBytes(ctx.graph, **x);
  return d;
}

absl::StatusOr<ConvDims> ConvTransposeDimsOf(const CountContext& ctx,
                                             size_t x_index, size_t w_index) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, x_index, 3);
  if (!x.ok()) return x.status();
  absl::StatusOr<const graph::Tensor*> w = RequireInputRank(ctx, w_index, 3);
  if (!w.ok()) return w.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  const graph::Dims& xd = (*x)->dims;
  const graph::Dims& wd = (*w)->dims;
  if (wd.size() != xd.size() || wd[0] != xd[1]) {
    return NodeError(ctx,
                     fmt::format("ConvTranspose weight '{}' {} does not "
                                 "match input {} (W is [C_in, C_out/group, "
                                 "kernel...])",
                                 (*w)->name, graph::ShapeString(**w),
                                 graph::ShapeString(**x)));
  }
  ConvDims d;
  d.output_elements = Elements(**y);
  // N * C_in * prod(in spatial) = all of X; (C_out/group) * prod(kernel) =
  // W's dims after the first.
  d.macs = Elements(**x) * DimProduct(wd, 1, wd.size());
  return d;
}

}  // namespace ridgeline::engine::counters
