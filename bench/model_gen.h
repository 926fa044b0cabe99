// Generated benchmark models: a Llama-3.1-8B-sized decoder and synthetic graphs
// of a chosen node count. Weights are external-data references to a file that
// does not exist, so the models are small and the importer never reads 16 GB.
#ifndef RIDGELINE_BENCH_MODEL_GEN_H_
#define RIDGELINE_BENCH_MODEL_GEN_H_

#include <cstdint>
#include <string>

#include "onnx/onnx_pb.h"

namespace ridgeline::bench {

// Dims of the decoder. Defaults are Llama-3.1-8B's (config.json of
// meta-llama/Llama-3.1-8B: hidden_size 4096, num_hidden_layers 32,
// num_attention_heads 32, num_key_value_heads 8, intermediate_size 14336,
// vocab_size 128256, rms_norm_eps 1e-5, rope_theta 500000).
struct LlamaConfig {
  int64_t layers = 32;
  int64_t hidden = 4096;
  int64_t heads = 32;
  int64_t kv_heads = 8;
  int64_t ffn = 14336;
  int64_t vocab = 128256;
  float rms_eps = 1e-5f;
  float rope_theta = 500000.0f;
  // Name of the (absent) external data file.
  std::string data_file = "llama3_8b.onnx.data";
};

// The symbolic dims of BuildLlamaDecoder's inputs, with the values the
// benchmark binds: a decode step of 128 new tokens after 1920 cached ones.
inline constexpr char kBatchDim[] = "batch";
inline constexpr char kSequenceDim[] = "sequence_length";
inline constexpr char kPastDim[] = "past_sequence_length";
inline constexpr char kTotalDim[] = "total_sequence_length";

// A float16 decoder in the shape of a Hugging Face torch.onnx export with KV
// cache (opset 17): token embedding Gather; per layer a decomposed RMSNorm
// (Cast, Pow, ReduceMean, Add, Sqrt, Reciprocal, Mul, Cast, Mul), Q/K/V
// MatMuls, Reshape/Transpose to heads, rotary embedding (rotate_half via
// Slice/Neg/Concat), past/present KV Concat, grouped-query repeat_kv
// (Unsqueeze/Expand/Reshape), QK^T MatMul, scale, mask Add, Softmax, AV
// MatMul, o_proj, residual Add, RMSNorm, SwiGLU MLP (gate/up/down MatMuls,
// Sigmoid, Mul); final RMSNorm and lm_head. Inputs input_ids, attention_mask,
// position_ids, past_key_values.{i}.{key,value}; outputs logits and
// present.{i}.{key,value}. All weights are external data in
// `config.data_file`; 8.03e9 parameters with the default config.
onnx::ModelProto BuildLlamaDecoder(const LlamaConfig& config);

// A synthetic MLP-like graph of exactly `num_nodes` nodes (a multiple of 5):
// blocks of MatMul (own external [64,64] float weight) -> Add (bias) -> Relu
// -> Mul (scale) -> Add (residual), chained. Input "x" is float [batch, 64].
onnx::ModelProto BuildSyntheticGraph(int64_t num_nodes);

}  // namespace ridgeline::bench

#endif  // RIDGELINE_BENCH_MODEL_GEN_H_
