// Quantized contractions. MACs as for their float forms; integer zero-point
// corrections are folded into the accumulation (as integer GEMM kernels do)
// and not counted; a requantize (acc * scale + zero point, 2 FLOPs) is
// counted per output element where the op writes a quantized output, a
// dequantize scale where it writes floats. Bytes: every input (packed
// weights, scales and zero points included) at its priced element size, the
// outputs once.
#include <algorithm>
#include <string>

#include "engine/counters/common.h"
#include "engine/counters/contraction.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

// QLinearConv: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
// y_zero_point, B (int32 bias). The com.microsoft version (ONNX Runtime's
// NHWC transformer) is channels last when its channels_last attribute is
// set; the default-domain op has no such attribute.
absl::StatusOr<Cost> CountQLinearConv(const CountContext& ctx) {
  absl::StatusOr<ConvDims> d =
      ConvDimsOf(ctx, 0, 3, ctx.node.GetInt("channels_last", 0) != 0);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->macs;
  cost.other_flops = d->output_elements * cost::kRequantize;
  if (ctx.input(8) != nullptr)
    cost.other_flops += d->output_elements * cost::kAdd;
  return cost;
}

// ConvInteger: x, w, x_zero_point, w_zero_point; int32 output.
absl::StatusOr<Cost> CountConvInteger(const CountContext& ctx) {
  absl::StatusOr<ConvDims> d = ConvDimsOf(ctx, 0, 1, /*channels_last=*/false);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->macs;
  return cost;
}

// QLinearMatMul: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
// y_zero_point.
absl::StatusOr<Cost> CountQLinearMatMul(const CountContext& ctx) {
  absl::StatusOr<MatMulDims> d = MatMulDimsOf(ctx, 0, 3);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->Macs();
  cost.other_flops = d->OutputElements() * cost::kRequantize;
  return cost;
}

// MatMulInteger: A, B, a_zero_point, b_zero_point; int32 output. (onnx-tool
// adds one op per output element when a zero point is given; kernels fold it
// into the accumulation, so it is not counted here.)
absl::StatusOr<Cost> CountMatMulInteger(const CountContext& ctx) {
  absl::StatusOr<MatMulDims> d = MatMulDimsOf(ctx, 0, 1);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->Macs();
  return cost;
}

// com.microsoft MatMulIntegerToFloat: A, B, a_scale, b_scale, a_zero_point,
// b_zero_point, bias: a float output scaled once per element (+ bias).
absl::StatusOr<Cost> CountMatMulIntegerToFloat(const CountContext& ctx) {
  absl::StatusOr<MatMulDims> d = MatMulDimsOf(ctx, 0, 1);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->Macs();
  cost.other_flops = d->OutputElements() * cost::kMul;
  if (ctx.input(6) != nullptr)
    cost.other_flops += d->OutputElements() * cost::kAdd;
  return cost;
}

// com.microsoft DynamicQuantizeMatMul: A (float, quantized on the fly), B,
// b_scale, b_zero_point, bias.
absl::StatusOr<Cost> CountDynamicQuantizeMatMul(const CountContext& ctx) {
  absl::StatusOr<MatMulDims> d = MatMulDimsOf(ctx, 0, 1);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->Macs();
  cost.other_flops = Elements(*ctx.input(0)) * cost::kDynamicQuantize +
                     d->OutputElements() * cost::kMul;
  if (ctx.input(4) != nullptr)
    cost.other_flops += d->OutputElements() * cost::kAdd;
  return cost;
}

// com.microsoft QGemm: A, a_scale, a_zero_point, B, b_scale, b_zero_point, C,
// y_scale, y_zero_point (the output is quantized when y_scale is given).
absl::StatusOr<Cost> CountQGemm(const CountContext& ctx) {
  absl::StatusOr<MatMulDims> d = GemmDimsOf(ctx, 0, 3);
  if (!d.ok()) return d.status();
  Cost cost = DefaultTraffic(ctx);
  cost.macs = d->Macs();
  const double out = d->OutputElements();
  cost.other_flops = out * cost::kMul;  // alpha * a_scale * b_scale
  if (ctx.input(6) != nullptr) cost.other_flops += out * cost::kAdd;
  if (ctx.input(7) != nullptr) cost.other_flops += out * cost::kRequantize;
  return cost;
}

// com.microsoft MatMulNBits: A [..., K] (float), B packed [N, K/block_size,
// block_size*bits/8] (uint8), scales [N * K/block_size], zero_points
// (optional, packed or float), g_idx (optional), bias (optional [N]).
// MACs = M * N * K with M = elements of A / K. The packed weight is read at
// its stored size (N * K * bits / 8 bytes for a uint8 B), scales and zero
// points per block. Dequantizing the weight costs 2 FLOPs per weight element
// (subtract zero point, scale), counted once per call.
absl::StatusOr<Cost> CountMatMulNBits(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> a = RequireInputRank(ctx, 0, 1);
  if (!a.ok()) return a.status();
  absl::StatusOr<const graph::Tensor*> b = RequireInput(ctx, 1);
  if (!b.ok()) return b.status();
  const int64_t k = ctx.node.GetInt("K", 0);
  const int64_t n = ctx.node.GetInt("N", 0);
  if (k <= 0 || n <= 0)
    return NodeError(ctx, "attributes K and N must be positive");
  if ((*a)->dims.back() != k) {
    return NodeError(ctx, fmt::format("A {} does not end in K = {}",
                                      graph::ShapeString(**a), k));
  }
  const double m = Elements(**a) / static_cast<double>(k);
  Cost cost = DefaultTraffic(ctx);
  cost.macs = m * static_cast<double>(n) * static_cast<double>(k);
  cost.other_flops =
      static_cast<double>(n) * static_cast<double>(k) * cost::kDequantize;
  if (ctx.input(5) != nullptr) {
    cost.other_flops += m * static_cast<double>(n) * cost::kAdd;
  }
  return cost;
}

// com.microsoft GatherBlockQuantized: data [.., K] block-quantized along its
// last axis (a uint8 data with bits < 8 packs 8 / bits values a byte),
// indices, scales [.., K / block_size], zero_points (optional, packed like
// data when uint8). Reads the gathered rows of data, scales and zero points
// (at most all of each) and the indices, writes Y and dequantizes each of
// its elements ((q - zero point) * scale, 2 FLOPs), as Gather reads only
// what it gathers.
absl::StatusOr<Cost> CountGatherBlockQuantized(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> data = RequireInput(ctx, 0);
  if (!data.ok()) return data.status();
  absl::StatusOr<const graph::Tensor*> indices = RequireInput(ctx, 1);
  if (!indices.ok()) return indices.status();
  absl::StatusOr<const graph::Tensor*> scales = RequireInput(ctx, 2);
  if (!scales.ok()) return scales.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  const int64_t bits = ctx.node.GetInt("bits", 4);
  const int64_t block = ctx.node.GetInt("block_size", 128);
  if (bits < 1 || bits > 8 || block < 1) {
    return NodeError(
        ctx, fmt::format("bits {} or block_size {} out of range", bits, block));
  }
  const double out = Elements(**y);
  auto per_element = [bits](const graph::Tensor& t) {
    return t.dtype == graph::DType::kUInt8 && bits < 8 ? 8.0 / bits : 1.0;
  };
  const double blocks = out / static_cast<double>(block);
  Cost cost;
  AddRead(ctx, **data, std::min(Elements(**data), out / per_element(**data)),
          &cost);
  AddReadAll(ctx, **indices, &cost);
  AddRead(ctx, **scales, std::min(Elements(**scales), blocks), &cost);
  if (const graph::Tensor* zp = ctx.input(3); zp != nullptr) {
    AddRead(ctx, *zp, std::min(Elements(*zp), blocks / per_element(*zp)),
            &cost);
  }
  AddWritten(ctx, **y, &cost);
  cost.other_flops = out * cost::kDequantize;
  return cost;
}

}  // namespace

void RegisterQuantizedCounters(CounterRegistry& registry) {
  registry.Register("", "QLinearConv", CountQLinearConv);
  registry.Register("com.microsoft", "QLinearConv", CountQLinearConv);
  registry.Register("", "ConvInteger", CountConvInteger);
  registry.Register("", "QLinearMatMul", CountQLinearMatMul);
  registry.Register("", "MatMulInteger", CountMatMulInteger);
  registry.Register("com.microsoft", "MatMulIntegerToFloat",
                    CountMatMulIntegerToFloat);
  registry.Register("com.microsoft", "DynamicQuantizeMatMul",
                    CountDynamicQuantizeMatMul);
  registry.Register("com.microsoft", "QGemm", CountQGemm);
  registry.Register("com.microsoft", "MatMulNBits", CountMatMulNBits);
  // bitsandbytes' 4-bit weights (A, packed B, absmax; attributes K, N,
  // block_size): the same count, a table lookup and an absmax scale per
  // weight element in place of MatMulNBits' zero point and scale.
  registry.Register("com.microsoft", "MatMulBnb4", CountMatMulNBits);
  registry.Register("com.microsoft", "GatherBlockQuantized",
                    CountGatherBlockQuantized);
}

}  // namespace ridgeline::engine::counters
