// The shape math of contractions (convolutions and matrix products), shared by
// the float and the quantized counters: named dimension structs filled once
// from the resolved shapes, in the manner of grappler's MatMulDimensions.
#ifndef RIDGELINE_ENGINE_COUNTERS_CONTRACTION_H_
#define RIDGELINE_ENGINE_COUNTERS_CONTRACTION_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "engine/counter_registry.h"
#include "graph/graph.h"

namespace ridgeline::engine::counters {

// A batched matrix product: batch * (m x k) @ (k x n).
struct MatMulDims {
  double batch = 1;
  double m = 0;
  double n = 0;
  double k = 0;
  double Macs() const { return batch * m * n * k; }
  double OutputElements() const { return batch * m * n; }
  GemmShape Gemm() const { return {batch, m, n, k}; }
};

// numpy.matmul semantics on inputs a_index and b_index: a 1-D A is promoted
// to [1, K], a 1-D B to [K, 1]; the batch dims broadcast. Errors (naming the
// node) on a K mismatch or batch dims that do not broadcast.
absl::StatusOr<MatMulDims> MatMulDimsOf(const CountContext& ctx, size_t a_index,
                                        size_t b_index);

// Gemm semantics on 2-D inputs a_index and b_index with the node's transA and
// transB attributes.
absl::StatusOr<MatMulDims> GemmDimsOf(const CountContext& ctx, size_t a_index,
                                      size_t b_index);

// d's GEMM shape with the right operand (input b_index) described for a
// host GEMM library: whether it is a weight, and its element size.
GemmShape MatMulGemm(const CountContext& ctx, const MatMulDims& d,
                     size_t b_index);

// A convolution in either layout.
struct ConvDims {
  double output_elements = 0;  // N * C_out * prod(output spatial)
  double macs = 0;
  GemmShape gemm;  // implicit GEMM: m = N * out pixels, n = C_out / group
};

// Conv (gather form): X [N, C_in, spatial...], W [C_out, C_in/group,
// kernel...], Y [N, C_out, out spatial...]:
//   MACs = N * C_out * prod(out spatial) * (C_in/group) * prod(kernel).
// With channels_last (NhwcConv) X is [N, spatial..., C_in] and Y
// [N, out spatial..., C_out]. Checks that C_in / group equals W's dim 1.
absl::StatusOr<ConvDims> ConvDimsOf(const CountContext& ctx, size_t x_index,
                                    size_t w_index, bool channels_last);

// ConvTranspose (scatter form, counted on the input side): X [N, C_in,
// spatial...], W [C_in, C_out/group, kernel...]:
//   MACs = N * C_in * prod(in spatial) * (C_out/group) * prod(kernel).
absl::StatusOr<ConvDims> ConvTransposeDimsOf(const CountContext& ctx,
                                             size_t x_index, size_t w_index);

}  // namespace ridgeline::engine::counters

#endif  // RIDGELINE_ENGINE_COUNTERS_CONTRACTION_H_
