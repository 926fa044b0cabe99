// Cost: what one operator costs, independent of any device. Counters fill it;
// the roofline turns it into time.
#ifndef RIDGELINE_ENGINE_COST_H_
#define RIDGELINE_ENGINE_COST_H_

#include <string>

namespace ridgeline::engine {

// The matrix product a contraction runs as (a convolution as an implicit
// GEMM: m = N * output pixels, n = C_out / group, k = C_in / group * kernel
// size, batch = group). batch == 0: not a contraction.
//
// How a host GEMM library (ONNX Runtime's MLAS) lays the same product out,
// for the host GEMM model of engine/timing.h:
//   conv: a convolution. The library computes W [n x k] x columns [k x m]
//     per group: the weight is the left operand, the input's column matrix
//     the right one. For a matrix product the right operand is B [k x n].
//   expanded: a convolution whose column matrix is materialized (im2col):
//     its kernel is not 1x1, or a stride or a pad is not trivial.
//   b_is_weight: a matrix product whose right operand is an initializer.
//   element_bytes: bytes per element of the right operand (0 unknown).
struct GemmShape {
  double batch = 0;
  double m = 0;
  double n = 0;
  double k = 0;
  bool conv = false;
  bool expanded = false;
  bool b_is_weight = false;
  double element_bytes = 0;
};

struct Cost {
  // Multiply-accumulates (Conv, Gemm, MatMul, attention products, ...).
  double macs = 0;
  // Floating-point operations that are not part of a MAC (elementwise ops,
  // activations, norms, softmax, reductions, pooling), already in FLOPs.
  double other_flops = 0;
  // Bytes read from and written to memory, at the element sizes chosen by the
  // TensorPricer. weight_bytes is the part of bytes_read that is initializers.
  double bytes_read = 0;
  double bytes_written = 0;
  double weight_bytes = 0;
  // True for ops with no counter (zero FLOPs, bytes of their tensors).
  bool unknown = false;
  // True for pure views (Reshape, Squeeze, ...): no work, no traffic.
  bool view = false;
  // Contractions: the GEMM shape (the largest one if a node runs several).
  GemmShape gemm;
  // Fused attention ops with a causal mask of their own (com.microsoft
  // GroupQueryAttention, Attention with unidirectional, ai.onnx Attention
  // with is_causal and no past): the share of the score rectangle a causal
  // kernel computes (CausalScoreShare); 1 = all of it. The counts above stay
  // the dense rectangle.
  double attention_score_share = 1;
  // Fused attention ops: the QK^T product (batch = sequences x query heads,
  // m = queries, n = keys, k = head dim), the shape the attention kernel's
  // thread blocks tile (engine/timing.h AttentionTileEfficiency).
  GemmShape attention_scores;
  // Why the count is approximate, for the report ("Loop trip count unknown:
  // body counted once"); empty when the count follows the documented rules.
  std::string note;

  double Flops(double flops_per_mac) const {
    return macs * flops_per_mac + other_flops;
  }
  double Bytes() const { return bytes_read + bytes_written; }

  Cost& operator+=(const Cost& other) {
    macs += other.macs;
    other_flops += other.other_flops;
    bytes_read += other.bytes_read;
    bytes_written += other.bytes_written;
    weight_bytes += other.weight_bytes;
    return *this;
  }
};

// The share of an m x n attention score rectangle (m query positions, the
// last m of n key positions) a causal kernel computes when it skips the
// tiles that are wholly masked: in tiles of 128 x 128 positions (the order
// of the blocks FlashAttention-2 and TensorRT-LLM's FMHA kernels step over,
// 64-128 positions at head dim 128), query tile i computes the key tiles up
// to its last position. 1 when m <= 1 or n < m.
double CausalScoreShare(double m, double n);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_COST_H_
