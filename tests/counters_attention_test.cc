// Fused attention counters; expected values computed by hand in the
// comments. Per score (one query-key pair of one head) the non-MAC cost is
// scale 1 + softmax 15 (+1 per mask), see cost_table.h.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using graph::DType;
using testing::CounterGraph;

TEST(AttentionCounterTest, MicrosoftAttentionWithPast) {
  CounterGraph g;
  // B=2, S=3, hidden_in=16, N=4 heads, D_q=D_k=D_v=16 (head 4), past P=5.
  int x = g.Input("x", {2, 3, 16});
  int w = g.Weight("w", {16, 48});
  int b = g.Weight("b", {48});
  int mask = g.Input("mask", {2, 8}, DType::kInt32);
  int past = g.Input("past", {2, 2, 4, 5, 4});
  int att =
      g.Op("Attention", {x, w, b, mask, past}, {{2, 3, 16}, {2, 2, 4, 8, 4}},
           {{"num_heads", int64_t{4}}}, "com.microsoft");
  Cost c = g.Count(att);
  // Projection: B*S*hidden_in*48 = 2*3*16*48 = 4608.
  // QK^T and AV with S_total = 5 + 3 = 8: 2 * (B*N*S*T*head) =
  // 2 * (2*4*3*8*4) = 2*768 = 1536. Total 6144.
  EXPECT_DOUBLE_EQ(c.macs, 6144);
  // Bias adds B*S*48 = 288; scores B*N*S*T = 192, each 1+15+1 (mask) = 17:
  // 3264. Total 3552.
  EXPECT_DOUBLE_EQ(c.other_flops, 3552);
  // Read: x 96*4=384, w 768*4=3072, b 48*4=192, mask 16*4=64,
  // past 320*4=1280 -> 4992. Written: 96*4=384 + present 512*4=2048.
  EXPECT_DOUBLE_EQ(c.bytes_read, 4992);
  EXPECT_DOUBLE_EQ(c.weight_bytes, 3072 + 192);
  EXPECT_DOUBLE_EQ(c.bytes_written, 2432);
}

// ONNX Runtime's quantize_dynamic turns Attention into QAttention: a uint8
// input, int8 weights, their scales and zero points, the mask at input 5
// and the past at input 8. The same shape as above.
TEST(AttentionCounterTest, MicrosoftQAttentionWithPast) {
  CounterGraph g;
  int x = g.Input("x", {2, 3, 16}, DType::kUInt8);
  int w = g.Weight("w", {16, 48}, DType::kInt8);
  int b = g.Weight("b", {48});
  int xs = g.Input("x_scale", {});
  int ws = g.Weight("w_scale", {});
  int mask = g.Input("mask", {2, 8}, DType::kInt32);
  int xz = g.Input("x_zero_point", {}, DType::kUInt8);
  int wz = g.Weight("w_zero_point", {}, DType::kInt8);
  int past = g.Input("past", {2, 2, 4, 5, 4});
  int att = g.Op("QAttention", {x, w, b, xs, ws, mask, xz, wz, past},
                 {{2, 3, 16}, {2, 2, 4, 8, 4}}, {{"num_heads", int64_t{4}}},
                 "com.microsoft");
  Cost c = g.Count(att);
  // MACs as Attention: 4608 + 1536 = 6144.
  EXPECT_DOUBLE_EQ(c.macs, 6144);
  // As Attention (bias 288 + scores 3264 = 3552) plus the dequantize of the
  // integer product, one multiply per element: B*S*48 = 288. Total 3840.
  EXPECT_DOUBLE_EQ(c.other_flops, 3840);
  // Read: x 96*1=96, w 768*1=768, b 48*4=192, scales 4+4, mask 16*4=64,
  // zero points 1+1, past 320*4=1280 -> 2410. Written: 96*4=384 + present
  // 512*4=2048.
  EXPECT_DOUBLE_EQ(c.bytes_read, 2410);
  EXPECT_DOUBLE_EQ(c.bytes_written, 2432);
}

// com.microsoft DecoderMaskedSelfAttention: one decode token over a shared
// past/present buffer of 10 positions, 5 in use (past_sequence_length).
TEST(AttentionCounterTest, DecoderMaskedSelfAttentionReadsTheRowsInUse) {
  CounterGraph g;
  int x = g.Input("x", {2, 1, 16});
  int w = g.Weight("w", {16, 48});
  int b = g.Weight("b", {48});
  int past = g.Input("past", {2, 2, 4, 10, 4});
  int len = g.IntConstant("past_len", {5}, /*scalar=*/true, DType::kInt32);
  int att = g.Op(
      "DecoderMaskedSelfAttention", {x, w, b, -1, past, -1, len},
      {{2, 1, 16}, {2, 2, 4, 10, 4}},
      {{"num_heads", int64_t{4}}, {"past_present_share_buffer", int64_t{1}}},
      "com.microsoft");
  Cost c = g.Count(att);
  // Projection 2*1*16*48 = 1536; QK^T and AV over 5 + 1 = 6 keys:
  // 2 * (2*4*1*6*4) = 384. 1920.
  EXPECT_DOUBLE_EQ(c.macs, 1920);
  // Bias 2*1*48 = 96; 48 scores x (scale 1 + softmax 15) = 768. 864.
  EXPECT_DOUBLE_EQ(c.other_flops, 864);
  // Read: x 128 B, w 3,072, b 192, the 5 rows in use of the buffer (each
  // row 2*2*4*4 = 64 elements: 320 x 4 B = 1,280), the int32 length 4:
  // 4,676. Written: the output 128 and the new row of the buffer 256: 384.
  EXPECT_DOUBLE_EQ(c.bytes_read, 4676);
  EXPECT_DOUBLE_EQ(c.bytes_written, 384);
  EXPECT_TRUE(c.note.empty()) << c.note;
  // Without a known length: the whole buffer, said in the note.
  int unknown = g.Input("unknown_len", {}, DType::kInt32);
  int upper =
      g.Op("DecoderMaskedSelfAttention", {x, w, b, -1, past, -1, unknown},
           {{2, 1, 16}, {2, 2, 4, 10, 4}}, {{"num_heads", int64_t{4}}},
           "com.microsoft");
  Cost u = g.Count(upper);
  // 10 keys: 1536 + 2 * (2*4*1*10*4) = 2176.
  EXPECT_DOUBLE_EQ(u.macs, 2176);
  EXPECT_NE(u.note.find("upper bound"), std::string::npos) << u.note;
}

TEST(AttentionCounterTest, GroupQueryAttentionDecodeWithPastKv) {
  CounterGraph g;
  // B=1, S=1 (decode), N=8 query heads, kvN=2, head 16, past 15 -> total 16.
  int q = g.Input("q", {1, 1, 128});
  int k = g.Input("k", {1, 1, 32});
  int v = g.Input("v", {1, 1, 32});
  int pk = g.Input("past_k", {1, 2, 15, 16});
  int pv = g.Input("past_v", {1, 2, 15, 16});
  int seqlens = g.Input("seqlens_k", {1}, DType::kInt32);
  int total = g.IntConstant("total", {16}, /*scalar=*/true, DType::kInt32);
  int gqa = g.Op("GroupQueryAttention", {q, k, v, pk, pv, seqlens, total},
                 {{1, 1, 128}, {1, 2, 16, 16}, {1, 2, 16, 16}},
                 {{"num_heads", int64_t{8}}, {"kv_num_heads", int64_t{2}}},
                 "com.microsoft");
  Cost c = g.Count(gqa);
  // QK^T: B*N*S*T*H = 1*8*1*16*16 = 2048; AV the same. 4096.
  EXPECT_DOUBLE_EQ(c.macs, 4096);
  // Scores 8*16 = 128, each scale 1 + softmax 15 + causal mask 1 = 17.
  EXPECT_DOUBLE_EQ(c.other_flops, 128 * 17);
  // Read: q 512, k 128, v 128, past 480*4 = 1920 each, seqlens 4, total 4
  // -> 4616. Written: 512 + 2 * (2*16*16*4 = 2048) = 4608.
  EXPECT_DOUBLE_EQ(c.bytes_read, 4616);
  EXPECT_DOUBLE_EQ(c.bytes_written, 4608);
  EXPECT_DOUBLE_EQ(c.attention_score_share, 1.0);
}

// A causal kernel computes the key tiles (of 128 positions) up to each
// query tile's last position. By hand: 2,048 x 2,048: 16 query tiles need
// 1, 2, ..., 16 of 16 key tiles: 136 / 256; 256 new after 1,792 cached
// (n 2,048): 15 + 16 of 2 x 16 = 31 / 32; 100 x 100: one tile, 1; 300 new
// after none: 3 query tiles of 3 key tiles: 1 + 2 + 3 = 6 / 9; one query
// position, or fewer keys than queries: 1.
TEST(AttentionCounterTest, CausalScoreShareCountsComputedTiles) {
  EXPECT_DOUBLE_EQ(CausalScoreShare(2048, 2048), 136.0 / 256);
  EXPECT_DOUBLE_EQ(CausalScoreShare(256, 2048), 31.0 / 32);
  EXPECT_DOUBLE_EQ(CausalScoreShare(100, 100), 1.0);
  EXPECT_DOUBLE_EQ(CausalScoreShare(300, 300), 6.0 / 9);
  EXPECT_DOUBLE_EQ(CausalScoreShare(1, 4096), 1.0);
  EXPECT_DOUBLE_EQ(CausalScoreShare(512, 256), 1.0);
}

// GroupQueryAttention is always causal: a 512-token prompt (no past)
// computes 4 query tiles x 1..4 key tiles = 10 / 16 of its scores; the
// counted MACs stay the dense rectangle. The decode above (one query
// position) computes all of them.
TEST(AttentionCounterTest, GroupQueryAttentionPromptIsCausal) {
  CounterGraph g;
  int q = g.Input("q", {1, 512, 128});
  int k = g.Input("k", {1, 512, 32});
  int v = g.Input("v", {1, 512, 32});
  int gqa = g.Op("GroupQueryAttention", {q, k, v},
                 {{1, 512, 128}, {1, 2, 512, 16}, {1, 2, 512, 16}},
                 {{"num_heads", int64_t{8}}, {"kv_num_heads", int64_t{2}}},
                 "com.microsoft");
  Cost c = g.Count(gqa);
  // 2 * B*N*S*T*H = 2 * 8*512*512*16.
  EXPECT_DOUBLE_EQ(c.macs, 2.0 * 8 * 512 * 512 * 16);
  EXPECT_DOUBLE_EQ(c.attention_score_share, 10.0 / 16);
  // The QK^T product its kernel tiles: 1 x 8 query heads, 512 queries, 512
  // keys, head dim 128 / 8 = 16.
  EXPECT_DOUBLE_EQ(c.attention_scores.batch, 8);
  EXPECT_DOUBLE_EQ(c.attention_scores.m, 512);
  EXPECT_DOUBLE_EQ(c.attention_scores.n, 512);
  EXPECT_DOUBLE_EQ(c.attention_scores.k, 16);
}

TEST(AttentionCounterTest, GroupQueryAttentionRotaryReadsUsedCacheRows) {
  CounterGraph g;
  int q = g.Input("q", {1, 1, 128});
  int k = g.Input("k", {1, 1, 32});
  int v = g.Input("v", {1, 1, 32});
  int cos = g.Weight("cos", {32, 8});  // rotary dim 16 = head size
  int sin = g.Weight("sin", {32, 8});
  // No past: total = present length = 1. Inputs 3..6 omitted.
  int gqa = g.Op("GroupQueryAttention", {q, k, v, -1, -1, -1, -1, cos, sin},
                 {{1, 1, 128}, {1, 2, 1, 16}, {1, 2, 1, 16}},
                 {{"num_heads", int64_t{8}},
                  {"kv_num_heads", int64_t{2}},
                  {"do_rotary", int64_t{1}}},
                 "com.microsoft");
  Cost c = g.Count(gqa);
  // Cores: 2 * B*N*S*T*H = 2 * 8*1*1*16 = 256 MACs.
  EXPECT_DOUBLE_EQ(c.macs, 256);
  // Scores 8 * 17 = 136; rotary B*S*(N+kvN)*16*3 = 10*16*3 = 480.
  EXPECT_DOUBLE_EQ(c.other_flops, 136 + 480);
  // Caches: 1 position * 8 values * 4 bytes each = 32 + 32 (not 32*8*4).
  EXPECT_DOUBLE_EQ(c.weight_bytes, 64);
  EXPECT_DOUBLE_EQ(c.bytes_read, (128 + 32 + 32) * 4 + 64);
}

TEST(AttentionCounterTest, MultiHeadAttentionCrossLengths) {
  CounterGraph g;
  int q = g.Input("q", {2, 5, 32});
  int k = g.Input("k", {2, 7, 32});
  int v = g.Input("v", {2, 7, 32});
  int mask = g.Input("mask", {2, 7}, DType::kInt32);
  int mha = g.Op("MultiHeadAttention", {q, k, v, -1, mask}, {{2, 5, 32}},
                 {{"num_heads", int64_t{4}}}, "com.microsoft");
  Cost c = g.Count(mha);
  // head 32/4 = 8: 2 * B*N*S*L*H = 2 * 2*4*5*7*8 = 4480.
  EXPECT_DOUBLE_EQ(c.macs, 4480);
  // Scores 2*4*5*7 = 280, each 1 + 15 + 1 (key padding mask) = 17: 4760.
  EXPECT_DOUBLE_EQ(c.other_flops, 4760);
}

TEST(AttentionCounterTest, OnnxAttentionWithPastAndCausal) {
  CounterGraph g;
  int q = g.Input("q", {1, 4, 6, 8});
  int k = g.Input("k", {1, 2, 6, 8});
  int v = g.Input("v", {1, 2, 6, 8});
  int pk = g.Input("pk", {1, 2, 4, 8});
  int pv = g.Input("pv", {1, 2, 4, 8});
  int att = g.Op("Attention", {q, k, v, -1, pk, pv},
                 {{1, 4, 6, 8}, {1, 2, 10, 8}, {1, 2, 10, 8}},
                 {{"is_causal", int64_t{1}}});
  Cost c = g.Count(att);
  // T = 4 + 6 = 10: 2 * B*Nq*S*T*H = 2 * 1*4*6*10*8 = 3840.
  EXPECT_DOUBLE_EQ(c.macs, 3840);
  // Scores 240, each 1 + 15 + 1 (causal) = 17: 4080.
  EXPECT_DOUBLE_EQ(c.other_flops, 4080);
}

TEST(AttentionCounterTest, MicrosoftRotaryEmbeddingPartialRotation) {
  CounterGraph g;
  int x = g.Input("x", {2, 3, 64});  // 4 heads of 16
  int pos = g.Input("pos", {2, 3}, DType::kInt64);
  int cos = g.Weight("cos", {32, 4});  // rotary dim 8 = half the head
  int sin = g.Weight("sin", {32, 4});
  int rot = g.Op("RotaryEmbedding", {x, pos, cos, sin}, {{2, 3, 64}},
                 {{"num_heads", int64_t{4}}}, "com.microsoft");
  Cost c = g.Count(rot);
  // 384 elements * (8/16 rotated) * 3 = 576.
  EXPECT_DOUBLE_EQ(c.other_flops, 576);
  // x 1536 + position ids 6*8 = 48 + caches min(128, 6 tokens*4) = 24
  // values * 4 bytes * 2 caches = 192 -> 1776.
  EXPECT_DOUBLE_EQ(c.bytes_read, 1776);
  EXPECT_DOUBLE_EQ(c.bytes_written, 1536);
}

TEST(DecoderMaskedMhaCounterTest, ReadsThePastRowsItAttendsTo) {
  CounterGraph g;
  // B 2, N 4 heads of 8, one new token; a shared 16-position KV buffer of
  // which 5 positions are past: the query attends to 6 keys.
  int q = g.Input("q", {2, 1, 32});
  int k = g.Input("k", {2, 1, 32});
  int v = g.Input("v", {2, 1, 32});
  int pk = g.Input("past_key", {2, 4, 16, 8});
  int pv = g.Input("past_value", {2, 4, 16, 8});
  int len =
      g.IntConstant("past_len", {5}, /*scalar=*/true, graph::DType::kInt32);
  int op =
      g.Op("DecoderMaskedMultiHeadAttention", {q, k, v, -1, -1, pk, pv, len},
           {{2, 1, 32}, {2, 4, 16, 8}, {2, 4, 16, 8}},
           {{"num_heads", int64_t{4}}, {"past_present_share_buffer", 1}},
           "com.microsoft");
  Cost c = g.Count(op);
  // 2 x 4 x 1 x 6 = 48 scores: MACs 48 x 8 (QK^T) + 48 x 8 (AV) = 768;
  // per score scale 1 + softmax 15 = 16: 768.
  EXPECT_DOUBLE_EQ(c.macs, 768);
  EXPECT_DOUBLE_EQ(c.other_flops, 768);
  // q, k, v 3 x 64 floats = 768 B; 5 past rows of K and V: 2 x 2 x 4 x 5 x
  // 8 = 640 floats = 2560 B; the int32 length 4 B.
  EXPECT_DOUBLE_EQ(c.bytes_read, 768 + 2560 + 4);
  // Output 64 floats; the new token's K and V rows 2 x 64 floats.
  EXPECT_DOUBLE_EQ(c.bytes_written, 3 * 64 * 4);
  EXPECT_TRUE(c.note.empty()) << c.note;
}

TEST(DecoderMaskedMhaCounterTest, AnUnknownPastLengthAttendsToTheWholeBuffer) {
  CounterGraph g;
  int q = g.Input("q", {1, 1, 96});  // packed QKV, 2 heads of 16
  int pk = g.Input("past_key", {1, 2, 10, 16});
  int pv = g.Input("past_value", {1, 2, 10, 16});
  int op = g.Op("DecoderMaskedMultiHeadAttention", {q, -1, -1, -1, -1, pk, pv},
                {{1, 1, 32}, {1, 2, 10, 16}, {1, 2, 10, 16}},
                {{"num_heads", int64_t{2}}}, "com.microsoft");
  Cost c = g.Count(op);
  // 1 x 2 x 1 x 10 = 20 scores x (16 + 16) = 640 MACs.
  EXPECT_DOUBLE_EQ(c.macs, 640);
  EXPECT_NE(c.note.find("past_sequence_length unknown"), std::string::npos);
}

TEST(DecoderMaskedMhaCounterTest, AScalarOutputIsAnErrorNotACrash) {
  CounterGraph g;
  int q = g.Input("q", {1, 1, 32});
  int op = g.Op("DecoderMaskedMultiHeadAttention", {q}, {{}},
                {{"num_heads", int64_t{2}}}, "com.microsoft");
  EXPECT_FALSE(g.TryCount(op).ok());
}

}  // namespace
}  // namespace ridgeline::engine
