#include "bench/model_gen.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bench/onnx_builder.h"
#include "fmt/format.h"

namespace ridgeline::bench {
namespace {

constexpr int kF16 = onnx::TensorProto::FLOAT16;
constexpr int kF32 = onnx::TensorProto::FLOAT;
constexpr int kI64 = onnx::TensorProto::INT64;

// Builds the decoder one piece at a time; the shared constants are created
// once in the constructor.
class LlamaBuilder {
 public:
  explicit LlamaBuilder(const LlamaConfig& c)
      : c_(c),
        b_("llama3_8b_decoder", /*opset=*/17),
        head_dim_(c.hidden / c.heads) {
    b_.Int64Initializer("const/shape_q", {4}, {0, 0, c.heads, head_dim_});
    b_.Int64Initializer("const/shape_kv", {4}, {0, 0, c.kv_heads, head_dim_});
    b_.Int64Initializer("const/shape_merge", {3}, {0, 0, c.hidden});
    b_.Int64Initializer("const/expand_rep", {5},
                        {1, 1, c.heads / c.kv_heads, 1, 1});
    b_.Int64Initializer("const/shape_rep", {4}, {0, c.heads, -1, head_dim_});
    b_.Int64Initializer("const/axis1", {1}, {1});
    b_.Int64Initializer("const/axis2", {1}, {2});
    b_.Int64Initializer("const/axes12", {2}, {1, 2});
    b_.Int64Initializer("const/axis_last", {1}, {-1});
    b_.Int64Initializer("const/zero", {1}, {0});
    b_.Int64Initializer("const/half", {1}, {head_dim_ / 2});
    b_.Int64Initializer("const/end", {1},
                        {std::numeric_limits<int64_t>::max()});
    b_.FloatInitializer("const/two", {}, {2.0f});
    b_.FloatInitializer("const/eps", {}, {c.rms_eps});
    b_.FloatInitializer("const/one", {}, {1.0f});
    b_.FloatInitializer("const/mask_min", {}, {-65504.0f});  // fp16 lowest
    b_.FloatInitializer("const/scale", {},
                        {1.0f / std::sqrt(static_cast<float>(head_dim_))});
    std::vector<float> inv_freq;
    for (int64_t i = 0; i < head_dim_ / 2; ++i) {
      inv_freq.push_back(std::pow(
          c.rope_theta,
          -2.0f * static_cast<float>(i) / static_cast<float>(head_dim_)));
    }
    b_.FloatInitializer("rotary_emb.inv_freq", {head_dim_ / 2}, inv_freq);
  }

  onnx::ModelProto Build() {
    b_.Input("input_ids", kI64, {kBatchDim, kSequenceDim});
    b_.Input("attention_mask", kI64, {kBatchDim, kTotalDim});
    b_.Input("position_ids", kI64, {kBatchDim, kSequenceDim});
    for (int64_t i = 0; i < c_.layers; ++i) {
      for (const char* kv : {"key", "value"}) {
        b_.Input(fmt::format("past_key_values.{}.{}", i, kv), kF16,
                 {kBatchDim, c_.kv_heads, kPastDim, head_dim_});
      }
    }
    Weight("model.embed_tokens.weight", {c_.vocab, c_.hidden});
    std::string h =
        b_.Node("Gather", {"model.embed_tokens.weight", "input_ids"},
                {IntAttr("axis", 0)});
    RotaryTables();
    MaskBias();
    for (int64_t i = 0; i < c_.layers; ++i) h = Layer(i, h);
    b_.SetPrefix("model.norm/");
    h = RmsNorm(h, "model.norm.weight");
    b_.SetPrefix("lm_head/");
    Weight("lm_head.weight", {c_.hidden, c_.vocab});
    b_.Node("MatMul", {h, "lm_head.weight"}, {}, {"logits"});
    b_.Output("logits", kF16, {kBatchDim, kSequenceDim, c_.vocab});
    for (int64_t i = 0; i < c_.layers; ++i) {
      for (const char* kv : {"key", "value"}) {
        b_.Output(fmt::format("present.{}.{}", i, kv), kF16,
                  {kBatchDim, c_.kv_heads, kTotalDim, head_dim_});
      }
    }
    return std::move(b_.model());
  }

 private:
  void Weight(const std::string& name, const std::vector<int64_t>& dims) {
    b_.ExternalInitializer(name, kF16, dims, c_.data_file, /*element_bytes=*/2);
  }

  std::string CastTo(const std::string& x, int to) {
    return b_.Node("Cast", {x}, {IntAttr("to", to)});
  }

  // cos/sin of position * inv_freq, as [batch, 1, seq, head_dim] float16.
  void RotaryTables() {
    b_.SetPrefix("rotary_emb/");
    std::string pos = CastTo("position_ids", kF32);
    pos = b_.Node("Unsqueeze", {pos, "const/axis_last"});
    std::string freqs = b_.Node("Mul", {pos, "rotary_emb.inv_freq"});
    std::string emb = b_.Node("Concat", {freqs, freqs}, {IntAttr("axis", -1)});
    cos_ = b_.Node("Unsqueeze",
                   {CastTo(b_.Node("Cos", {emb}), kF16), "const/axis1"});
    sin_ = b_.Node("Unsqueeze",
                   {CastTo(b_.Node("Sin", {emb}), kF16), "const/axis1"});
  }

  // (1 - mask) * lowest, as [batch, 1, 1, total] float16; and the fp16 scale.
  void MaskBias() {
    b_.SetPrefix("mask/");
    std::string m = CastTo("attention_mask", kF16);
    std::string inv = b_.Node("Sub", {CastTo("const/one", kF16), m});
    std::string bias = b_.Node("Mul", {inv, CastTo("const/mask_min", kF16)});
    mask_bias_ = b_.Node("Unsqueeze", {bias, "const/axes12"});
    scale_ = CastTo("const/scale", kF16);
  }

  // x * rsqrt(mean(x^2) + eps) * weight, computed in float32 as HF does.
  std::string RmsNorm(const std::string& x, const std::string& weight) {
    Weight(weight, {c_.hidden});
    std::string x32 = CastTo(x, kF32);
    std::string sq = b_.Node("Pow", {x32, "const/two"});
    std::string mean = b_.Node(
        "ReduceMean", {sq}, {IntsAttr("axes", {-1}), IntAttr("keepdims", 1)});
    std::string var = b_.Node("Add", {mean, "const/eps"});
    std::string inv = b_.Node("Reciprocal", {b_.Node("Sqrt", {var})});
    std::string normed = CastTo(b_.Node("Mul", {x32, inv}), kF16);
    return b_.Node("Mul", {normed, weight});
  }

  // [b, s, heads*head_dim] -> [b, heads, s, head_dim]
  std::string ToHeads(const std::string& x, const std::string& shape) {
    std::string r = b_.Node("Reshape", {x, shape});
    return b_.Node("Transpose", {r}, {IntsAttr("perm", {0, 2, 1, 3})});
  }

  // x * cos + rotate_half(x) * sin
  std::string Rotary(const std::string& x) {
    std::string x1 =
        b_.Node("Slice", {x, "const/zero", "const/half", "const/axis_last"});
    std::string x2 =
        b_.Node("Slice", {x, "const/half", "const/end", "const/axis_last"});
    std::string rot =
        b_.Node("Concat", {b_.Node("Neg", {x2}), x1}, {IntAttr("axis", -1)});
    return b_.Node("Add",
                   {b_.Node("Mul", {x, cos_}), b_.Node("Mul", {rot, sin_})});
  }

  // [b, kv, T, d] -> [b, heads, T, d] (repeat_kv)
  std::string RepeatKv(const std::string& x) {
    std::string u = b_.Node("Unsqueeze", {x, "const/axis2"});
    std::string e = b_.Node("Expand", {u, "const/expand_rep"});
    return b_.Node("Reshape", {e, "const/shape_rep"});
  }

  std::string Layer(int64_t i, const std::string& h) {
    const std::string p = fmt::format("model.layers.{}.", i);
    b_.SetPrefix(fmt::format("model.layers.{}/", i));
    const int64_t kv_dim = c_.kv_heads * head_dim_;
    Weight(p + "self_attn.q_proj.weight", {c_.hidden, c_.hidden});
    Weight(p + "self_attn.k_proj.weight", {c_.hidden, kv_dim});
    Weight(p + "self_attn.v_proj.weight", {c_.hidden, kv_dim});
    Weight(p + "self_attn.o_proj.weight", {c_.hidden, c_.hidden});
    Weight(p + "mlp.gate_proj.weight", {c_.hidden, c_.ffn});
    Weight(p + "mlp.up_proj.weight", {c_.hidden, c_.ffn});
    Weight(p + "mlp.down_proj.weight", {c_.ffn, c_.hidden});

    std::string x = RmsNorm(h, p + "input_layernorm.weight");
    std::string q = b_.Node("MatMul", {x, p + "self_attn.q_proj.weight"});
    std::string k = b_.Node("MatMul", {x, p + "self_attn.k_proj.weight"});
    std::string v = b_.Node("MatMul", {x, p + "self_attn.v_proj.weight"});
    q = Rotary(ToHeads(q, "const/shape_q"));
    k = Rotary(ToHeads(k, "const/shape_kv"));
    v = ToHeads(v, "const/shape_kv");
    const std::string past = fmt::format("past_key_values.{}.", i);
    const std::string present = fmt::format("present.{}.", i);
    k = b_.Node("Concat", {past + "key", k}, {IntAttr("axis", 2)},
                {present + "key"});
    v = b_.Node("Concat", {past + "value", v}, {IntAttr("axis", 2)},
                {present + "value"});
    std::string kt =
        b_.Node("Transpose", {RepeatKv(k)}, {IntsAttr("perm", {0, 1, 3, 2})});
    std::string scores = b_.Node("MatMul", {q, kt});
    scores = b_.Node("Add", {b_.Node("Mul", {scores, scale_}), mask_bias_});
    std::string probs = b_.Node("Softmax", {scores}, {IntAttr("axis", -1)});
    std::string ctx = b_.Node("MatMul", {probs, RepeatKv(v)});
    ctx = b_.Node("Transpose", {ctx}, {IntsAttr("perm", {0, 2, 1, 3})});
    ctx = b_.Node("Reshape", {ctx, "const/shape_merge"});
    std::string o = b_.Node("MatMul", {ctx, p + "self_attn.o_proj.weight"});
    std::string h1 = b_.Node("Add", {h, o});

    x = RmsNorm(h1, p + "post_attention_layernorm.weight");
    std::string gate = b_.Node("MatMul", {x, p + "mlp.gate_proj.weight"});
    std::string silu = b_.Node("Mul", {gate, b_.Node("Sigmoid", {gate})});
    std::string up = b_.Node("MatMul", {x, p + "mlp.up_proj.weight"});
    std::string down = b_.Node(
        "MatMul", {b_.Node("Mul", {silu, up}), p + "mlp.down_proj.weight"});
    return b_.Node("Add", {h1, down});
  }

  const LlamaConfig& c_;
  OnnxBuilder b_;
  const int64_t head_dim_;
  std::string cos_, sin_, mask_bias_, scale_;
};

}  // namespace

onnx::ModelProto BuildLlamaDecoder(const LlamaConfig& config) {
  return LlamaBuilder(config).Build();
}

onnx::ModelProto BuildSyntheticGraph(int64_t num_nodes) {
  constexpr int64_t kWidth = 64;
  constexpr int64_t kNodesPerBlock = 5;
  OnnxBuilder b(fmt::format("synthetic_{}", num_nodes), /*opset=*/17);
  b.Input("x", kF32, {"batch", kWidth});
  b.FloatInitializer("bias", {kWidth}, std::vector<float>(kWidth, 0.5f));
  b.FloatInitializer("scale", {}, {0.9f});
  std::string h = "x";
  for (int64_t i = 0; i < num_nodes / kNodesPerBlock; ++i) {
    const std::string w = fmt::format("blocks.{}.weight", i);
    b.ExternalInitializer(w, kF32, {kWidth, kWidth}, "synthetic.onnx.data",
                          /*element_bytes=*/4);
    std::string y = b.Node("MatMul", {h, w});
    y = b.Node("Relu", {b.Node("Add", {y, "bias"})});
    h = b.Node("Add", {h, b.Node("Mul", {y, "scale"})});
  }
  b.Output(h);
  return std::move(b.model());
}

}  // namespace ridgeline::bench
