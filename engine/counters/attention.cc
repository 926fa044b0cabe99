// Fused attention. Per head, with S_q query positions attending to S_total
// key positions (past + new):
//   MACs  = S_q * S_total * head_dim (Q K^T) + S_q * S_total * v_head_dim (AV)
//   FLOPs = per score: scale (1) + softmax (15) + 1 per additive mask/bias or
//           causal mask (+ softcap when set)
// The dense rectangle is counted even when a causal mask zeroes half of it
// (as torch's FlopCounterMode does). com.microsoft Attention also carries the
// Q/K/V projection weights: B * S * hidden_in * (D_q + D_k + D_v) MACs plus
// the bias adds. Bytes: inputs read once in full (past KV included), outputs
// written once in full (present KV included); rotary cos/sin caches are read
// only for the positions used.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

struct AttentionShape {
  double batch = 0;
  double q_heads = 0;
  double q_len = 0;
  double kv_len = 0;  // key positions each query attends to (S_total)
  double qk_head = 0;
  double v_head = 0;
};

void AddAttentionCore(const AttentionShape& s, int mask_terms, double softcap,
                      Cost* cost) {
  const double scores = s.batch * s.q_heads * s.q_len * s.kv_len;
  cost->attention_scores = {.batch = s.batch * s.q_heads,
                            .m = s.q_len,
                            .n = s.kv_len,
                            .k = s.qk_head};
  cost->macs += scores * s.qk_head + scores * s.v_head;
  cost->other_flops += scores * (cost::kAttentionScale + cost::kSoftmax +
                                 mask_terms * cost::kAttentionMask +
                                 (softcap > 0 ? cost::kSoftcap : 0));
}

absl::StatusOr<int64_t> PositiveAttr(const CountContext& ctx,
                                     std::string_view name) {
  const int64_t v = ctx.node.GetInt(name, 0);
  if (v <= 0) {
    return NodeError(ctx, fmt::format("attribute {} must be positive", name));
  }
  return v;
}

// Reads the inputs in `full` in full and cos/sin caches (`caches`) only for
// `tokens` positions; writes every output.
Cost TrafficWithCaches(const CountContext& ctx, std::vector<size_t> caches,
                       double tokens) {
  Cost cost;
  std::vector<int> seen;
  for (size_t i = 0; i < ctx.node.inputs.size(); ++i) {
    const int t = ctx.node.inputs[i];
    if (t < 0 || std::find(seen.begin(), seen.end(), t) != seen.end()) {
      continue;
    }
    seen.push_back(t);
    const graph::Tensor& tensor = ctx.graph.tensor(t);
    if (std::find(caches.begin(), caches.end(), i) != caches.end() &&
        !tensor.dims.empty()) {
      const double row = static_cast<double>(tensor.dims.back());
      AddRead(ctx, tensor, std::min(Elements(tensor), tokens * row), &cost);
    } else {
      AddReadAll(ctx, tensor, &cost);
    }
  }
  for (int t : ctx.node.outputs) {
    if (t >= 0) AddWritten(ctx, ctx.graph.tensor(t), &cost);
  }
  return cost;
}

// The traffic of a decode kernel on a shared past/present KV buffer whose
// second-to-last dim holds the positions: every input read and every output
// written in full, except the buffer inputs (is_buffer_input), read for
// `rows_read` positions, and the buffer outputs (is_buffer_output), written
// for `rows_written` positions (the new tokens').
template <typename IsBufferInput, typename IsBufferOutput>
Cost SharedBufferTraffic(const CountContext& ctx, IsBufferInput is_buffer_input,
                         double rows_read, IsBufferOutput is_buffer_output,
                         double rows_written) {
  auto elements = [](const graph::Tensor& t, double rows) {
    const double positions =
        t.dims.size() >= 2 ? static_cast<double>(t.dims[t.dims.size() - 2]) : 1;
    return std::min(Elements(t), Elements(t) / std::max(1.0, positions) * rows);
  };
  Cost cost;
  for (size_t i = 0; i < ctx.node.inputs.size(); ++i) {
    const graph::Tensor* t = ctx.input(i);
    if (t == nullptr) continue;
    if (is_buffer_input(i, *t)) {
      AddRead(ctx, *t, elements(*t, rows_read), &cost);
    } else {
      AddReadAll(ctx, *t, &cost);
    }
  }
  for (size_t i = 0; i < ctx.node.outputs.size(); ++i) {
    const graph::Tensor* t = ctx.output(i);
    if (t == nullptr) continue;
    if (is_buffer_output(i, *t)) {
      cost.bytes_written +=
          elements(*t, rows_written) * ctx.pricer.ElementBytes(ctx.graph, *t);
    } else {
      AddWritten(ctx, *t, &cost);
    }
  }
  return cost;
}

// Input positions of com.microsoft Attention and QAttention beyond input,
// weights and bias (0, 1, 2); -1 where the op has no such input.
struct MsAttentionSlots {
  int mask = 3;
  int past = 4;
  int attention_bias = 5;
  int past_sequence_length = 6;
  // QAttention's QKV product is an integer GEMM, its result dequantized:
  // one scale multiply per product element.
  bool dequantize = false;
  // DecoderMaskedSelfAttention: past and present always share one buffer.
  bool shared_buffer = false;
};

// com.microsoft Attention: input [B,S,hidden_in], weights [hidden_in,
// D_q+D_k+D_v], bias, mask_index, past [2,B,N,P,H], attention_bias,
// past_sequence_length; outputs output [B,S,D_v], present [2,B,N,T,H].
// QAttention: input, weight, bias, input_scale, weight_scale, mask_index,
// input_zero_point, weight_zero_point, past.
absl::StatusOr<Cost> CountMsAttentionLike(const CountContext& ctx,
                                          const MsAttentionSlots& slots) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 3);
  if (!x.ok()) return x.status();
  absl::StatusOr<const graph::Tensor*> w = RequireInputRank(ctx, 1, 2);
  if (!w.ok()) return w.status();
  absl::StatusOr<int64_t> heads = PositiveAttr(ctx, "num_heads");
  if (!heads.ok()) return heads.status();
  const double b = static_cast<double>((*x)->dims[0]);
  const double s = static_cast<double>((*x)->dims[1]);
  const double hidden_in = static_cast<double>((*x)->dims[2]);
  std::vector<int64_t> qkv = ctx.node.GetInts("qkv_hidden_sizes");
  if (qkv.size() != 3) {
    const int64_t d = (*w)->dims[1] / 3;
    qkv = {d, d, d};
  }
  const double n = static_cast<double>(*heads);
  AttentionShape shape{.batch = b,
                       .q_heads = n,
                       .q_len = s,
                       .kv_len = s,
                       .qk_head = static_cast<double>(qkv[0]) / n,
                       .v_head = static_cast<double>(qkv[2]) / n};
  auto input = [&](int i) { return i < 0 ? nullptr : ctx.input(i); };
  const graph::Tensor* past = input(slots.past);
  const graph::Tensor* present = ctx.output(1);
  const std::optional<int64_t> past_len =
      FoldedScalar(input(slots.past_sequence_length));
  // A shared past/present buffer [2, B, N, max, H] (past_present_share_
  // buffer; always for DecoderMaskedSelfAttention): the kernel reads the
  // past_sequence_length rows in use and writes the new tokens' rows.
  const bool shared = (slots.shared_buffer ||
                       ctx.node.GetInt("past_present_share_buffer", 0) != 0) &&
                      past != nullptr && past->dims.size() == 5;
  std::string note;
  double past_rows = 0;
  if (shared) {
    const double max_len = static_cast<double>(past->dims[3]);
    if (past_len.has_value()) {
      shape.kv_len = std::min(max_len, static_cast<double>(*past_len) + s);
      past_rows = shape.kv_len - s;
    } else {
      shape.kv_len = max_len;
      past_rows = max_len;
      note = fmt::format(
          "past_sequence_length unknown: the query attends to the whole "
          "{}-position KV buffer (an upper bound; bind it with --input-value)",
          past->dims[3]);
    }
  } else if (present != nullptr && present->dims.size() == 5) {
    shape.kv_len = static_cast<double>(present->dims[3]);
  } else if (past != nullptr && past->dims.size() == 5) {
    shape.kv_len = static_cast<double>(past->dims[3]) + s;
  }
  const double qkv_width = static_cast<double>(qkv[0] + qkv[1] + qkv[2]);
  // The buffer [2, B, N, max, H]: past at its slot, present at output 1.
  Cost cost =
      shared
          ? SharedBufferTraffic(
                ctx, [&](size_t, const graph::Tensor& t) { return &t == past; },
                past_rows,
                [&](size_t i, const graph::Tensor&) { return i == 1; }, s)
          : DefaultTraffic(ctx);
  cost.note = note;
  cost.macs = b * s * hidden_in * qkv_width;
  if (ctx.input(2) != nullptr) cost.other_flops += b * s * qkv_width;
  if (slots.dequantize) cost.other_flops += b * s * qkv_width * cost::kMul;
  // Rotary (do_rotary): 3 per rotated query and key element, as
  // GroupQueryAttention's.
  if (ctx.node.GetInt("do_rotary", 0) != 0) {
    cost.other_flops +=
        b * s * static_cast<double>(qkv[0] + qkv[1]) * cost::kRotary;
  }
  const int masks = (input(slots.mask) != nullptr ||
                     ctx.node.GetInt("unidirectional", 0) != 0) +
                    (input(slots.attention_bias) != nullptr);
  AddAttentionCore(shape, masks, 0, &cost);
  return cost;
}

absl::StatusOr<Cost> CountMsAttention(const CountContext& ctx) {
  return CountMsAttentionLike(ctx, MsAttentionSlots{});
}

// com.microsoft DecoderMaskedSelfAttention (one decode step of ONNX
// Runtime's GPT-style beam search): Attention's inputs, then beam_width and
// cache_indirection; the past/present buffer is shared.
absl::StatusOr<Cost> CountDecoderMaskedSelfAttention(const CountContext& ctx) {
  return CountMsAttentionLike(ctx, MsAttentionSlots{.shared_buffer = true});
}

absl::StatusOr<Cost> CountQAttention(const CountContext& ctx) {
  return CountMsAttentionLike(ctx, MsAttentionSlots{.mask = 5,
                                                    .past = 8,
                                                    .attention_bias = -1,
                                                    .past_sequence_length = -1,
                                                    .dequantize = true});
}

// com.microsoft MultiHeadAttention: query [B,S,D] or packed QKV
// [B,S,N,3,H]; key [B,L,D] / [B,N,L,H] / packed KV [B,L,N,2,H] / absent;
// value; bias; key_padding_mask; attention_bias; past_key [B,N,P,H];
// past_value; outputs output [B,S,D_v], present_key [B,N,T,H], ...
absl::StatusOr<Cost> CountMultiHeadAttention(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> q = RequireInputRank(ctx, 0, 3);
  if (!q.ok()) return q.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  absl::StatusOr<int64_t> heads = PositiveAttr(ctx, "num_heads");
  if (!heads.ok()) return heads.status();
  const double n = static_cast<double>(*heads);
  const graph::Dims& qd = (*q)->dims;
  const double b = static_cast<double>(qd[0]);
  const double s = static_cast<double>(qd[1]);
  const double head = qd.size() == 5 ? static_cast<double>(qd[4])
                                     : static_cast<double>(qd.back()) / n;
  double kv = s;
  bool key_is_bnsh = false;
  if (const graph::Tensor* k = ctx.input(1); k != nullptr) {
    if (k->dims.size() == 4) {
      kv = static_cast<double>(k->dims[2]);
      key_is_bnsh = true;
    } else if (k->dims.size() >= 2) {
      kv = static_cast<double>(k->dims[1]);
    }
  }
  const double new_kv = kv;
  const graph::Tensor* present = ctx.output(1);
  const graph::Tensor* past = ctx.input(6);
  if (present != nullptr && present->dims.size() == 4) {
    kv = static_cast<double>(present->dims[2]);
  } else if (past != nullptr && past->dims.size() == 4 && !key_is_bnsh) {
    kv += static_cast<double>(past->dims[2]);
  }
  if ((*y)->dims.size() != 3) {
    return NodeError(ctx, fmt::format("output {} is not [B, S, D_v]",
                                      graph::ShapeString(**y)));
  }
  const double v_head = static_cast<double>((*y)->dims[2]) / n;
  AttentionShape shape{.batch = b,
                       .q_heads = n,
                       .q_len = s,
                       .kv_len = kv,
                       .qk_head = head,
                       .v_head = v_head};
  Cost cost = DefaultTraffic(ctx);
  if (ctx.input(3) != nullptr) {
    cost.other_flops += b * s * n * head + b * new_kv * n * (head + v_head);
  }
  const bool causal = ctx.node.GetInt("unidirectional", 0) != 0;
  const int masks =
      (ctx.input(4) != nullptr) + (ctx.input(5) != nullptr) + causal;
  AddAttentionCore(shape, masks, 0, &cost);
  if (causal) cost.attention_score_share = CausalScoreShare(s, kv);
  return cost;
}

// com.microsoft DecoderMaskedMultiHeadAttention (the one-token decode step
// of ONNX Runtime's beam-search decoders): query [B,1,D] (packed QKV
// [B,1,3D] without key and value), key/value (the new token's [B,1,D], or
// a cross-attention's whole [B,N,L,H]), mask_index, attention_bias,
// past_key/past_value [B,N,max_len,H] one buffer with the present
// (past_present_share_buffer), past_sequence_length, beam_width,
// cache_indirection, bias. The query attends to past_sequence_length + 1
// keys (when folded; else the buffer's max_len, an upper bound said in the
// note), of which it reads the K and V rows; it writes the new token's.
absl::StatusOr<Cost> CountDecoderMaskedMha(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> q = RequireInputRank(ctx, 0, 3);
  if (!q.ok()) return q.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  absl::StatusOr<int64_t> heads = PositiveAttr(ctx, "num_heads");
  if (!heads.ok()) return heads.status();
  if ((*y)->dims.size() != 3) {
    return NodeError(ctx, fmt::format("output {} is not [B, S, D]",
                                      graph::ShapeString(**y)));
  }
  const double n = static_cast<double>(*heads);
  const double b = static_cast<double>((*q)->dims[0]);
  const double s = static_cast<double>((*q)->dims[1]);
  const double head = static_cast<double>((*y)->dims.back()) / n;
  const graph::Tensor* key = ctx.input(1);
  const graph::Tensor* past_key = ctx.input(5);
  const bool cross = key != nullptr && key->dims.size() == 4;
  Cost cost;
  double kv = s;
  double buffer_rows = 0;  // rows of the past buffers the kernel reads
  if (cross) {
    kv = static_cast<double>(key->dims[2]);
  } else if (past_key != nullptr && past_key->dims.size() == 4) {
    const double max_len = static_cast<double>(past_key->dims[2]);
    const std::optional<int64_t> past_len = FoldedScalar(ctx.input(7));
    if (past_len.has_value()) {
      kv = std::min(max_len, static_cast<double>(*past_len) + s);
      buffer_rows = kv - s;
    } else {
      kv = max_len;
      buffer_rows = max_len;
      cost.note = fmt::format(
          "past_sequence_length unknown: the query attends to the whole "
          "{}-position KV buffer (an upper bound; bind it with --input-value)",
          past_key->dims[2]);
    }
  }
  // past_key/past_value [B, N, max, H] (inputs 5, 6) read for the rows in
  // use; the shared present buffers (outputs 1, 2) take the new tokens' rows.
  const Cost traffic = SharedBufferTraffic(
      ctx,
      [](size_t i, const graph::Tensor& t) {
        return (i == 5 || i == 6) && t.dims.size() == 4;
      },
      buffer_rows,
      [&](size_t i, const graph::Tensor& t) {
        return (i == 1 || i == 2) && past_key != nullptr && t.dims.size() == 4;
      },
      s);
  cost.bytes_read += traffic.bytes_read;
  cost.bytes_written += traffic.bytes_written;
  cost.weight_bytes += traffic.weight_bytes;
  if (ctx.input(10) != nullptr) cost.other_flops += b * s * 3 * n * head;
  const int masks = (ctx.input(3) != nullptr) + (ctx.input(4) != nullptr);
  AddAttentionCore({.batch = b,
                    .q_heads = n,
                    .q_len = s,
                    .kv_len = kv,
                    .qk_head = head,
                    .v_head = head},
                   masks, 0, &cost);
  return cost;
}

// com.microsoft GroupQueryAttention: query [B,S,N*H] (or packed QKV
// [B,S,(N+2*kvN)*H] with key/value absent), key, value [B,S,kvN*H],
// past_key/past_value [B,kvN,P,H], seqlens_k, total_sequence_length,
// cos_cache, sin_cache, position_ids, attention_bias; every query head
// attends to its shared KV head. Always causal.
absl::StatusOr<Cost> CountGroupQueryAttention(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> q = RequireInputRank(ctx, 0, 3);
  if (!q.ok()) return q.status();
  absl::StatusOr<int64_t> heads = PositiveAttr(ctx, "num_heads");
  if (!heads.ok()) return heads.status();
  absl::StatusOr<int64_t> kv_heads = PositiveAttr(ctx, "kv_num_heads");
  if (!kv_heads.ok()) return kv_heads.status();
  const double n = static_cast<double>(*heads);
  const double kvn = static_cast<double>(*kv_heads);
  const graph::Dims& qd = (*q)->dims;
  const double b = static_cast<double>(qd[0]);
  const double s = static_cast<double>(qd[1]);
  const bool packed = ctx.input(1) == nullptr;
  const double head = static_cast<double>(qd[2]) / (packed ? n + 2 * kvn : n);
  double total = s;
  const std::optional<int64_t> total_len = FoldedScalar(ctx.input(6));
  const graph::Tensor* present = ctx.output(1);
  const graph::Tensor* past = ctx.input(3);
  if (total_len.has_value() && *total_len > 0) {
    total = static_cast<double>(*total_len);
  } else if (present != nullptr && present->dims.size() == 4) {
    total = static_cast<double>(present->dims[2]);
  } else if (past != nullptr && past->dims.size() == 4) {
    total = static_cast<double>(past->dims[2]) + s;
  }
  const int64_t window = ctx.node.GetInt("local_window_size", -1);
  if (window > 0) total = std::min(total, static_cast<double>(window + 1));
  AttentionShape shape{.batch = b,
                       .q_heads = n,
                       .q_len = s,
                       .kv_len = total,
                       .qk_head = head,
                       .v_head = head};
  Cost cost = TrafficWithCaches(ctx, {7, 8}, b * s);
  const int masks = 1 + (ctx.input(10) != nullptr);  // causal (+ bias)
  AddAttentionCore(shape, masks, ctx.node.GetFloat("softcap", 0), &cost);
  cost.attention_score_share = CausalScoreShare(s, total);
  if (ctx.node.GetInt("do_rotary", 0) != 0) {
    double rotary = head;
    if (const graph::Tensor* cos = ctx.input(7);
        cos != nullptr && !cos->dims.empty()) {
      rotary = std::min(head, 2 * static_cast<double>(cos->dims.back()));
    }
    cost.other_flops += b * s * (n + kvn) * rotary * cost::kRotary;
  }
  return cost;
}

// ai.onnx Attention (opset 23): Q [B,Nq,S,H] or [B,S,Nq*H]; K [B,Nkv,L,H]
// or [B,L,Nkv*H]; V likewise with its own head size; attn_mask; past_key /
// past_value [B,Nkv,P,H]; outputs Y, present_key [B,Nkv,T,H], ...
absl::StatusOr<Cost> CountOnnxAttention(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> q = RequireInputRank(ctx, 0, 3);
  if (!q.ok()) return q.status();
  absl::StatusOr<const graph::Tensor*> k = RequireInputRank(ctx, 1, 3);
  if (!k.ok()) return k.status();
  absl::StatusOr<const graph::Tensor*> v = RequireInputRank(ctx, 2, 3);
  if (!v.ok()) return v.status();
  const graph::Dims& qd = (*q)->dims;
  const graph::Dims& kd = (*k)->dims;
  const graph::Dims& vd = (*v)->dims;
  AttentionShape shape;
  shape.batch = static_cast<double>(qd[0]);
  if (qd.size() == 4) {
    shape.q_heads = static_cast<double>(qd[1]);
    shape.q_len = static_cast<double>(qd[2]);
    shape.qk_head = static_cast<double>(qd[3]);
  } else {
    absl::StatusOr<int64_t> nq = PositiveAttr(ctx, "q_num_heads");
    if (!nq.ok()) return nq.status();
    shape.q_heads = static_cast<double>(*nq);
    shape.q_len = static_cast<double>(qd[1]);
    shape.qk_head = static_cast<double>(qd[2]) / shape.q_heads;
  }
  shape.kv_len = static_cast<double>(kd.size() == 4 ? kd[2] : kd[1]);
  if (vd.size() == 4) {
    shape.v_head = static_cast<double>(vd[3]);
  } else {
    absl::StatusOr<int64_t> nkv = PositiveAttr(ctx, "kv_num_heads");
    if (!nkv.ok()) return nkv.status();
    shape.v_head = static_cast<double>(vd[2]) / static_cast<double>(*nkv);
  }
  const graph::Tensor* present = ctx.output(1);
  const graph::Tensor* past = ctx.input(4);
  if (present != nullptr && present->dims.size() == 4) {
    shape.kv_len = static_cast<double>(present->dims[2]);
  } else if (past != nullptr && past->dims.size() == 4) {
    shape.kv_len += static_cast<double>(past->dims[2]);
  }
  Cost cost = DefaultTraffic(ctx);
  const bool causal = ctx.node.GetInt("is_causal", 0) != 0;
  const int masks = (ctx.input(3) != nullptr) + causal;
  AddAttentionCore(shape, masks, ctx.node.GetFloat("softcap", 0), &cost);
  // Without a past the causal mask's alignment does not matter; with one
  // the spec's alignment is not assumed.
  if (causal && shape.kv_len == shape.q_len) {
    cost.attention_score_share = CausalScoreShare(shape.q_len, shape.kv_len);
  }
  return cost;
}

// RotaryEmbedding: x*cos + rotate(x)*sin on the rotated part of each head
// (3 FLOPs per rotated element); the cos/sin caches are read only for the
// positions used. `onnx_order`: ai.onnx (X, cos, sin, position_ids) vs
// com.microsoft (input, position_ids, cos, sin).
absl::StatusOr<Cost> CountRotary(const CountContext& ctx, bool onnx_order) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 3);
  if (!x.ok()) return x.status();
  const size_t cos_index = onnx_order ? 1 : 2;
  const size_t sin_index = onnx_order ? 2 : 3;
  absl::StatusOr<const graph::Tensor*> cos =
      RequireInputRank(ctx, cos_index, 1);
  if (!cos.ok()) return cos.status();
  const graph::Dims& xd = (*x)->dims;
  double rotary =
      static_cast<double>(ctx.node.GetInt("rotary_embedding_dim", 0));
  if (rotary <= 0) rotary = 2 * static_cast<double>((*cos)->dims.back());
  double head = rotary;
  double tokens = 0;
  if (xd.size() == 4) {  // [B, N, S, H]
    head = static_cast<double>(xd[3]);
    tokens = static_cast<double>(xd[0] * xd[2]);
  } else {  // [B, S, hidden]
    tokens = static_cast<double>(xd[0] * xd[1]);
    const int64_t heads = ctx.node.GetInt("num_heads", 0);
    if (heads > 0)
      head = static_cast<double>(xd[2]) / static_cast<double>(heads);
  }
  const double fraction = head > 0 ? std::min(1.0, rotary / head) : 1.0;
  Cost cost = TrafficWithCaches(ctx, {cos_index, sin_index}, tokens);
  cost.other_flops = Elements(**x) * fraction * cost::kRotary;
  return cost;
}

}  // namespace

void RegisterAttentionCounters(CounterRegistry& registry) {
  registry.Register("com.microsoft", "Attention", CountMsAttention);
  registry.Register("com.microsoft", "QAttention", CountQAttention);
  registry.Register("com.microsoft", "DecoderMaskedSelfAttention",
                    CountDecoderMaskedSelfAttention);
  registry.Register("com.microsoft", "MultiHeadAttention",
                    CountMultiHeadAttention);
  registry.Register("com.microsoft", "GroupQueryAttention",
                    CountGroupQueryAttention);
  registry.Register("com.microsoft", "DecoderMaskedMultiHeadAttention",
                    CountDecoderMaskedMha);
  registry.Register("", "Attention", CountOnnxAttention);
  registry.Register("", "RotaryEmbedding", [](const CountContext& ctx) {
    return CountRotary(ctx, /*onnx_order=*/true);
  });
  registry.Register("com.microsoft", "RotaryEmbedding",
                    [](const CountContext& ctx) {
                      return CountRotary(ctx, /*onnx_order=*/false);
                    });
}

}  // namespace ridgeline::engine::counters
