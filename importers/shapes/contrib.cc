// Shape functions of com.microsoft contrib ops used by exported LLMs and
// transformer models (onnxruntime's contrib operator schemas define them).
#include <algorithm>
#include <string_view>

#include "fmt/format.h"
#include "importers/shapes/registry.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::Dims;
using graph::DType;

int64_t NumHeads(const InferContext& ctx) {
  return ctx.node().GetInt("num_heads", 0);
}

// Attention: input [B, S, D_in], weights [D_in, D_q + D_k + D_v], optional
// past [2, B, N, P, H]. Output [B, S, D_v]; present [2, B, N, P + S, H] (the
// past's shape when past_present_share_buffer is set).
// com.microsoft Attention and QAttention: input [B,S,D], weights [D,
// D_q+D_k+D_v], past [2,B,N,P,H] at input `past` (4 and 8); the output has
// type `dtype` (the input's; QAttention's float bias type).
absl::Status AttentionLike(InferContext& ctx, size_t past, DType dtype) {
  const Dims& x = ctx.dims(0);
  const Dims& w = ctx.dims(1);
  const int64_t n = NumHeads(ctx);
  if (x.size() != 3 || w.size() != 2 || n <= 0) {
    return Unresolved(
        "Attention needs [B,S,D] input, 2-D weights and "
        "num_heads");
  }
  std::vector<int64_t> sizes = ctx.node().GetInts("qkv_hidden_sizes");
  if (sizes.size() != 3) sizes.assign(3, w[1] / 3);
  ctx.Set(0, dtype, {x[0], x[1], sizes[2]});
  if (!ctx.has_output(1)) return absl::OkStatus();
  const int64_t head = sizes[0] / n;
  if (ctx.has_input(past)) {
    Dims present = ctx.dims(past);
    if (present.size() != 5) return Unresolved("Attention past is not 5-D");
    if (ctx.node().GetInt("past_present_share_buffer", 0) == 0) {
      present[3] += x[1];
    }
    ctx.Set(1, ctx.dtype(past), std::move(present));
  } else {
    ctx.Set(1, dtype, {2, x[0], n, x[1], head});
  }
  return absl::OkStatus();
}

absl::Status AttentionShape(InferContext& ctx) {
  return AttentionLike(ctx, 4, ctx.dtype(0));
}

// com.microsoft QAttention (ONNX Runtime's quantize_dynamic of an
// Attention): input, weight, bias, input_scale, weight_scale, mask_index,
// input_zero_point, weight_zero_point, past; a float output.
absl::Status QAttentionShape(InferContext& ctx) {
  return AttentionLike(ctx, 8, ctx.dtype(2));
}

// com.microsoft DecoderMaskedSelfAttention: Attention's inputs; its present
// is the past buffer itself (always shared).
absl::Status DecoderMaskedSelfAttentionShape(InferContext& ctx) {
  if (absl::Status s = AttentionLike(ctx, 4, ctx.dtype(0)); !s.ok()) return s;
  if (ctx.has_input(4)) ctx.Set(1, ctx.dtype(4), ctx.dims(4));
  return absl::OkStatus();
}

// Sequence length and head size of a key or value input of
// MultiHeadAttention: [B, L, N*H], [B, N, L, H] or packed [B, L, N, 2, H].
bool KvGeometry(const Dims& d, int64_t n, int64_t* length, int64_t* head) {
  if (d.size() == 3 && n > 0) {
    *length = d[1];
    *head = d[2] / n;
  } else if (d.size() == 4) {
    *length = d[2];
    *head = d[3];
  } else if (d.size() == 5) {
    *length = d[1];
    *head = d[4];
  } else {
    return false;
  }
  return true;
}

// MultiHeadAttention and DecoderMaskedMultiHeadAttention: query [B, S, D]
// (or packed [B, S, N, 3, H]); output [B, S, D_v]; present_key/value
// [B, N, P + L, H].
absl::Status MultiHeadAttentionShape(InferContext& ctx) {
  const Dims& q = ctx.dims(0);
  const int64_t n = NumHeads(ctx);
  const bool decoder = ctx.node().op_type == "DecoderMaskedMultiHeadAttention";
  const size_t past_key = decoder ? 5 : 6;
  if (q.size() != 3 && q.size() != 5) {
    return Unresolved("MultiHeadAttention query is not 3-D or 5-D");
  }
  int64_t kv_len = q[1], k_head = 0, v_head = 0, v_hidden = 0;
  if (q.size() == 5) {
    k_head = v_head = q[4];
    v_hidden = q[2] * q[4];
  } else if (ctx.has_input(2)) {
    const Dims& v = ctx.dims(2);
    if (!KvGeometry(v, n, &kv_len, &v_head)) {
      return Unresolved("MultiHeadAttention value is not 3-D or 4-D");
    }
    v_hidden = v.size() == 3 ? v[2] : v[1] * v[3];
    int64_t unused = 0;
    if (!ctx.has_input(1) || !KvGeometry(ctx.dims(1), n, &unused, &k_head)) {
      k_head = v_head;
    }
  } else if (ctx.has_input(1) && ctx.rank(1) == 5) {  // packed KV
    const Dims& kv = ctx.dims(1);
    kv_len = kv[1];
    k_head = v_head = kv[4];
    v_hidden = q[2];
  } else {
    // Decoder form with packed QKV [B, S, 3 * D].
    v_hidden = decoder ? q[2] / 3 : q[2];
    k_head = v_head = n > 0 ? v_hidden / n : 0;
  }
  ctx.Set(0, ctx.dtype(0), {q[0], q[1], v_hidden});
  if (ctx.num_outputs() < 3) return absl::OkStatus();
  if (ctx.has_input(past_key)) {
    const Dims& past = ctx.dims(past_key);
    if (past.size() != 4) return Unresolved("past_key is not 4-D");
    const bool shared =
        decoder || ctx.node().GetInt("past_present_share_buffer", 0) != 0;
    Dims pk = past;
    Dims pv = ctx.has_input(past_key + 1) ? ctx.dims(past_key + 1) : past;
    if (!shared) {
      pk[2] += kv_len;
      pv[2] += kv_len;
    }
    ctx.Set(1, ctx.dtype(past_key), std::move(pk));
    ctx.Set(2, ctx.dtype(past_key), std::move(pv));
  } else if (ctx.has_input(1) && ctx.rank(1) == 4) {  // key/value as BNSH
    ctx.Set(1, ctx.dtype(1), ctx.dims(1));
    ctx.Set(2, ctx.dtype(2), ctx.has_input(2) ? ctx.dims(2) : ctx.dims(1));
  } else {
    ctx.Set(1, ctx.dtype(0), {q[0], n, kv_len, k_head});
    ctx.Set(2, ctx.dtype(0), {q[0], n, kv_len, v_head});
  }
  return absl::OkStatus();
}

// GroupQueryAttention: query [B, S, N*H] (or packed QKV [B, S, (N+2K)*H]),
// key/value [B, S, K*H], past_key/value [B, K, P, H], total_sequence_length
// (input 6, a scalar). Output [B, S, N*H]; present [B, K, T, H] with
// T = max(P, total_sequence_length) when the latter is folded (onnxruntime's
// rule), else P + S (a cache that grows by the new tokens).
absl::Status GroupQueryAttentionShape(InferContext& ctx) {
  const Dims& q = ctx.dims(0);
  const int64_t n = NumHeads(ctx);
  const int64_t kv_heads = ctx.node().GetInt("kv_num_heads", 0);
  if (q.size() != 3 || n <= 0 || kv_heads <= 0) {
    return Unresolved(
        "GroupQueryAttention needs a 3-D query, num_heads and "
        "kv_num_heads");
  }
  const bool packed = !ctx.has_input(2);
  const int64_t head = packed ? q[2] / (n + 2 * kv_heads) : q[2] / n;
  const int64_t kv_len = packed ? q[1] : ctx.dims(2)[1];
  ctx.Set(0, ctx.dtype(0), {q[0], q[1], n * head});
  if (ctx.num_outputs() < 3) return absl::OkStatus();
  int64_t total = -1;
  if (std::vector<int64_t> v; ValuesAsInt(ctx, 6, &v) && v.size() == 1) {
    total = v[0];
  }
  Dims present = {q[0], kv_heads, kv_len, head};
  DType dtype = ctx.dtype(0);
  if (ctx.has_input(3)) {
    const Dims& past = ctx.dims(3);
    if (past.size() != 4) return Unresolved("past_key is not 4-D");
    dtype = ctx.dtype(3);
    present = past;
    if (ctx.node().GetInt("sliding_window_cache", 0) == 0) {
      present[2] = total > 0 ? std::max(past[2], total) : past[2] + kv_len;
    }
  } else if (total > 0) {
    present[2] = total;
  }
  ctx.Set(1, dtype, present);
  ctx.Set(2, dtype, std::move(present));
  return absl::OkStatus();
}

// SkipLayerNormalization, SkipSimplifiedLayerNormalization: output like the
// input; mean and inv_std_var [..., 1] in float32; input_skip_bias_sum like
// the input.
absl::Status SkipLayerNormShape(InferContext& ctx) {
  const Dims& x = ctx.dims(0);
  ctx.Set(0, ctx.dtype(0), x);
  Dims stats = x;
  if (!stats.empty()) stats.back() = 1;
  ctx.Set(1, DType::kFloat32, stats);
  ctx.Set(2, DType::kFloat32, std::move(stats));
  ctx.Set(3, ctx.dtype(0), x);
  return absl::OkStatus();
}

// FusedMatMul: MatMul with transA/transB (swap the last two dims) and
// transBatchA/transBatchB (the first dim moves behind the batch dims).
absl::Status FusedMatMulShape(InferContext& ctx) {
  auto arrange = [](Dims d, bool trans, bool trans_batch) {
    if (d.size() < 2) return d;
    const size_t r = d.size();
    Dims out;
    const size_t start = trans_batch ? 1 : 0;
    const size_t end = trans_batch ? r - 1 : r - 2;
    for (size_t i = start; i < end; ++i) out.push_back(d[i]);
    const int64_t rows = trans_batch ? d[0] : d[r - 2];
    const int64_t cols = d[r - 1];
    out.push_back(trans ? cols : rows);
    out.push_back(trans ? rows : cols);
    return out;
  };
  const graph::Node& node = ctx.node();
  Dims a = arrange(ctx.dims(0), node.GetInt("transA", 0) != 0,
                   node.GetInt("transBatchA", 0) != 0);
  Dims b = arrange(ctx.dims(1), node.GetInt("transB", 0) != 0,
                   node.GetInt("transBatchB", 0) != 0);
  absl::StatusOr<Dims> out = MatMulDims(a, b);
  if (!out.ok()) return out.status();
  ctx.Set(0, ctx.dtype(0), *std::move(out));
  return absl::OkStatus();
}

// MatMul-shaped contrib ops whose B operand is input 1 (GemmFastGelu,
// MatMulIntegerToFloat, DynamicQuantizeMatMul); dtype of A, or of the A
// scale for MatMulIntegerToFloat.
absl::Status ContribMatMulShape(InferContext& ctx) {
  absl::StatusOr<Dims> out = MatMulDims(ctx.dims(0), ctx.dims(1));
  if (!out.ok()) return out.status();
  const DType dtype = ctx.node().op_type == "MatMulIntegerToFloat"
                          ? ctx.dtype(2)
                          : ctx.dtype(0);
  ctx.Set(0, dtype, *std::move(out));
  return absl::OkStatus();
}

// MatMulNBits / MatMulBnb4: A [..., K] times a packed [K, N] weight; the
// 'N' attribute gives the output's last dim.
absl::Status MatMulNBitsShape(InferContext& ctx) {
  Dims out = ctx.dims(0);
  const int64_t k = ctx.node().GetInt("K", -1);
  const int64_t n = ctx.node().GetInt("N", -1);
  if (out.empty() || n < 0) return Unresolved("MatMulNBits needs K and N");
  if (k >= 0 && out.back() != k) {
    return Unresolved(fmt::format("MatMulNBits input last dim {} is not K={}",
                                  out.back(), k));
  }
  out.back() = n;
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

// EmbedLayerNormalization: input_ids [B, S], word_embedding [V, H]. Output
// [B, S, H] in the embedding dtype, mask_index [B] int32, optional
// embedding_sum [B, S, H].
absl::Status EmbedLayerNormShape(InferContext& ctx) {
  const Dims& ids = ctx.dims(0);
  const Dims& emb = ctx.dims(2);
  if (ids.size() != 2 || emb.size() != 2) {
    return Unresolved(
        "EmbedLayerNormalization needs [B,S] ids and [V,H] "
        "embeddings");
  }
  const Dims out = {ids[0], ids[1], emb[1]};
  ctx.Set(0, ctx.dtype(2), out);
  ctx.Set(1, DType::kInt32, {ids[0]});
  ctx.Set(2, ctx.dtype(2), out);
  return absl::OkStatus();
}

// BiasSplitGelu: [N, HW, 2D] -> [N, HW, D].
absl::Status BiasSplitGeluShape(InferContext& ctx) {
  Dims out = ctx.dims(0);
  if (out.empty() || out.back() % 2 != 0) {
    return Unresolved("BiasSplitGelu last dim is not even");
  }
  out.back() /= 2;
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

// BiasDropout: output like the input, mask bool.
absl::Status BiasDropoutShape(InferContext& ctx) {
  ctx.Set(0, ctx.dtype(0), ctx.dims(0));
  ctx.Set(1, DType::kBool, ctx.dims(0));
  return absl::OkStatus();
}

// GatherBlockQuantized: data [.., K packed], indices, scales. Output: Gather
// along gather_axis with the packed last dim unpacked (8/bits values per
// uint8 byte), in the scales' dtype.
absl::Status GatherBlockQuantizedShape(InferContext& ctx) {
  const Dims& data = ctx.dims(0);
  absl::StatusOr<int64_t> axis = NormalizeAxis(
      ctx.node().GetInt("gather_axis", 0), static_cast<int64_t>(data.size()));
  if (!axis.ok()) return axis.status();
  Dims unpacked = data;
  const int64_t bits = ctx.node().GetInt("bits", 4);
  if (ctx.dtype(0) == DType::kUInt8 && bits > 0 && bits < 8 &&
      !unpacked.empty()) {
    unpacked.back() *= 8 / bits;
  }
  Dims out(unpacked.begin(), unpacked.begin() + *axis);
  out.insert(out.end(), ctx.dims(1).begin(), ctx.dims(1).end());
  out.insert(out.end(), unpacked.begin() + *axis + 1, unpacked.end());
  ctx.Set(0, ctx.dtype(2), std::move(out));
  return absl::OkStatus();
}

// QLinearAdd/QLinearMul: A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp.
absl::Status QLinearBinaryShape(InferContext& ctx) {
  absl::StatusOr<Dims> out = Broadcast(ctx.dims(0), ctx.dims(3));
  if (!out.ok()) return out.status();
  ctx.Set(0, ctx.dtype(0), *std::move(out));
  return absl::OkStatus();
}

constexpr std::string_view kSameShapeOps[] = {
    "Gelu",    "FastGelu",       "QuickGelu",        "BiasGelu",
    "BiasAdd", "BiasSoftmax",    "RotaryEmbedding",  "Trilu",
    "Inverse", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax",
    "MoE",     "QMoE",           "GroupNorm",        "SkipGroupNorm"};

// Every output like input 0 (SkipGroupNorm also returns the sum).
absl::Status SameShape(InferContext& ctx) {
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    ctx.Set(i, ctx.dtype(0), ctx.dims(0));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterContribShapes(ShapeRegistry* registry) {
  for (std::string_view op : kSameShapeOps) {
    registry->Add(kMicrosoftDomain, op, SameShape);
  }
  registry->Add(kMicrosoftDomain, "Attention", AttentionShape);
  registry->Add(kMicrosoftDomain, "QAttention", QAttentionShape);
  registry->Add(kMicrosoftDomain, "DecoderMaskedSelfAttention",
                DecoderMaskedSelfAttentionShape);
  registry->Add(kMicrosoftDomain, "MultiHeadAttention",
                MultiHeadAttentionShape);
  registry->Add(kMicrosoftDomain, "DecoderMaskedMultiHeadAttention",
                MultiHeadAttentionShape);
  registry->Add(kMicrosoftDomain, "GroupQueryAttention",
                GroupQueryAttentionShape);
  registry->Add(kMicrosoftDomain, "SkipLayerNormalization", SkipLayerNormShape);
  registry->Add(kMicrosoftDomain, "SkipSimplifiedLayerNormalization",
                SkipLayerNormShape);
  registry->Add(kMicrosoftDomain, "FusedMatMul", FusedMatMulShape);
  registry->Add(kMicrosoftDomain, "GemmFastGelu", ContribMatMulShape);
  registry->Add(kMicrosoftDomain, "MatMulIntegerToFloat", ContribMatMulShape);
  registry->Add(kMicrosoftDomain, "DynamicQuantizeMatMul", ContribMatMulShape);
  registry->Add(kMicrosoftDomain, "MatMulNBits", MatMulNBitsShape);
  registry->Add(kMicrosoftDomain, "MatMulBnb4", MatMulNBitsShape);
  registry->Add(kMicrosoftDomain, "EmbedLayerNormalization",
                EmbedLayerNormShape);
  registry->Add(kMicrosoftDomain, "BiasSplitGelu", BiasSplitGeluShape);
  registry->Add(kMicrosoftDomain, "BiasDropout", BiasDropoutShape);
  registry->Add(kMicrosoftDomain, "GatherBlockQuantized",
                GatherBlockQuantizedShape);
  registry->Add(kMicrosoftDomain, "QLinearAdd", QLinearBinaryShape);
  registry->Add(kMicrosoftDomain, "QLinearMul", QLinearBinaryShape);
}

}  // namespace ridgeline::importers::shapes
