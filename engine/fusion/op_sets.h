// Which operators each fusion rule may take (internal to engine/fusion).
// Op types are matched with their domain: "" is the ONNX default domain,
// "com.microsoft" the ONNX Runtime contrib domain.
#ifndef RIDGELINE_ENGINE_FUSION_OP_SETS_H_
#define RIDGELINE_ENGINE_FUSION_OP_SETS_H_

#include "graph/graph.h"

namespace ridgeline::engine::fusion {

// Pure views: no work and no traffic (Reshape, Squeeze, Unsqueeze, Flatten,
// Identity). Their output aliases their first input.
bool IsPureView(const graph::Node& node);

// Ops that read only the shape of their input, never its data (Shape,
// Size). An edge into one is not a data dependency: the runtime knows the
// shape before the producer runs, so it puts no order between kernels.
bool ReadsShapeOnly(const graph::Node& node);

// Anchors of an epilogue: Conv, ConvTranspose, Gemm, MatMul, FusedMatMul,
// MatMulNBits, QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger.
bool IsEpilogueAnchor(const graph::Node& node);

// Ops an epilogue may take after its anchor: bias/residual Add (and Sub, Mul,
// Div by a broadcast operand), BatchNormalization, activations (Relu, Clip,
// Sigmoid, Tanh, Gelu, Erf, HardSwish, ...), QuantizeLinear /
// DequantizeLinear, Cast, and pure views.
bool IsEpilogueOp(const graph::Node& node);

// Elementwise and broadcast ops (unary, binary, Where, comparisons, Cast,
// Q/DQ, Expand), norms (BatchNormalization, LayerNormalization, RMS norms,
// InstanceNormalization, GroupNormalization and the contrib ones), Softmax /
// LogSoftmax, keep-dims reductions (the reductions of a decomposed norm), and
// pure views.
bool IsElementwiseGroupOp(const graph::Node& node);

// Ops that may sit between the two MatMuls of an attention pattern, on the
// score tensor: scale (Mul, Div), mask (Add, Sub, Where), Cast, Tanh
// soft-capping.
bool IsScoreOp(const graph::Node& node);

// A plain (batched) matrix product usable as the QK^T or AV product: MatMul,
// a two-operand Einsum, com.microsoft FusedMatMul.
bool IsAttentionMatMul(const graph::Node& node);

// com.microsoft attention kernels: Attention, MultiHeadAttention,
// GroupQueryAttention, PackedAttention, PackedMultiHeadAttention,
// DecoderMaskedMultiHeadAttention, DecoderMaskedSelfAttention,
// SparseAttention.
bool IsContribAttention(const graph::Node& node);

// DequantizeLinear of the default or com.microsoft domain.
bool IsDequantize(const graph::Node& node);

// An op that is the identity at inference: Identity, or a Dropout that
// passes its input through (counters::DropoutIsIdentity; priced as a view).
bool IsInferenceIdentity(const graph::Graph& graph, const graph::Node& node);

// Layout ops a fused attention kernel reads through (strided loads, GQA head
// sharing): Transpose, Expand, pure views, Cast.
bool IsAttentionLayoutOp(const graph::Node& node);

}  // namespace ridgeline::engine::fusion

#endif  // RIDGELINE_ENGINE_FUSION_OP_SETS_H_
