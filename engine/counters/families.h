// The built-in counter families. Each Register*Counters adds the counters of
// one family to a registry; CounterRegistry::Default() calls every one of
// them explicitly (no static initializers). The counting conventions are in
// engine/counters/COUNTING.md and the per-element costs in cost_table.h.
#ifndef RIDGELINE_ENGINE_COUNTERS_FAMILIES_H_
#define RIDGELINE_ENGINE_COUNTERS_FAMILIES_H_

#include "engine/counter_registry.h"

namespace ridgeline::engine::counters {

// Conv, ConvTranspose, com.microsoft FusedConv and NhwcConv (conv.cc).
void RegisterConvCounters(CounterRegistry& registry);
// MatMul, Gemm, com.microsoft FusedMatMul and FusedGemm (matmul.cc).
void RegisterMatMulCounters(CounterRegistry& registry);
// Einsum (einsum.cc).
void RegisterEinsumCounters(CounterRegistry& registry);
// Table-driven unary/binary/variadic elementwise ops (elementwise.cc).
void RegisterElementwiseCounters(CounterRegistry& registry);
// Batch/Layer/RMS/Instance/Group/Lp norms, LRN, SkipLayerNorm, ... (norm.cc).
void RegisterNormCounters(CounterRegistry& registry);
// Max/Average/Lp/Global pooling (pool.cc).
void RegisterPoolCounters(CounterRegistry& registry);
// Reduce*, ArgMax/ArgMin, Softmax, LogSoftmax, Hardmax, CumSum, TopK
// (reduce.cc).
void RegisterReduceCounters(CounterRegistry& registry);
// Views, metadata ops and data movement (movement.cc).
void RegisterMovementCounters(CounterRegistry& registry);
// Resize and Upsample (resize.cc).
void RegisterResizeCounters(CounterRegistry& registry);
// GridSample, AffineGrid, RoiAlign (sampling.cc).
void RegisterSamplingCounters(CounterRegistry& registry);
// DFT, STFT, the window generators, MelWeightMatrix (signal.cc).
void RegisterSignalCounters(CounterRegistry& registry);
// Attention, MultiHeadAttention, GroupQueryAttention, RotaryEmbedding
// (attention.cc).
void RegisterAttentionCounters(CounterRegistry& registry);
// QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger, MatMulNBits, ...
// (quantized.cc).
void RegisterQuantizedCounters(CounterRegistry& registry);
// com.microsoft MoE: mixture-of-experts layers (moe.cc, engine/moe.h).
void RegisterMoeCounters(CounterRegistry& registry);
// LSTM, GRU, RNN (rnn.cc).
void RegisterRnnCounters(CounterRegistry& registry);
// ai.onnx.ml: scalers, linear and SVM models, tree ensembles (ml.cc).
void RegisterMlCounters(CounterRegistry& registry);
// If/Loop/Scan containers and generators (Range, ConstantOfShape, ...)
// (misc.cc).
void RegisterMiscCounters(CounterRegistry& registry);

}  // namespace ridgeline::engine::counters

#endif  // RIDGELINE_ENGINE_COUNTERS_FAMILIES_H_
