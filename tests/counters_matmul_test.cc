// MatMul, Gemm, FusedMatMul and Einsum counters; expected values computed by
// hand in the comments.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using testing::CounterGraph;

TEST(MatMulCounterTest, GemmTransBWithBias) {
  CounterGraph g;
  int a = g.Input("a", {4, 8});
  int b = g.Weight("b", {16, 8});  // transB: [N, K]
  int c = g.Weight("c", {16});
  int gemm = g.Op("Gemm", {a, b, c}, {{4, 16}}, {{"transB", int64_t{1}}});
  Cost cost = g.Count(gemm);
  EXPECT_DOUBLE_EQ(cost.macs, 4 * 16 * 8);     // M*N*K = 512
  EXPECT_DOUBLE_EQ(cost.other_flops, 4 * 16);  // C add per output = 64
  EXPECT_DOUBLE_EQ(cost.bytes_read, (32 + 128 + 16) * 4);  // 704
  EXPECT_DOUBLE_EQ(cost.weight_bytes, (128 + 16) * 4);     // 576
  EXPECT_DOUBLE_EQ(cost.bytes_written, 64 * 4);
}

TEST(MatMulCounterTest, GemmTransAAlphaBeta) {
  CounterGraph g;
  int a = g.Input("a", {8, 4});  // transA: [K, M]
  int b = g.Weight("b", {8, 16});
  int c = g.Input("c", {4, 16});
  int gemm = g.Op("Gemm", {a, b, c}, {{4, 16}},
                  {{"transA", int64_t{1}}, {"alpha", 0.5}, {"beta", 2.0}});
  Cost cost = g.Count(gemm);
  EXPECT_DOUBLE_EQ(cost.macs, 4 * 16 * 8);
  // alpha scale 64 + C add 64 + beta scale 64 = 192.
  EXPECT_DOUBLE_EQ(cost.other_flops, 192);
}

TEST(MatMulCounterTest, BatchedBroadcast) {
  CounterGraph g;
  int a = g.Input("a", {2, 1, 4, 8});
  int b = g.Input("b", {3, 8, 5});
  int mm = g.Op("MatMul", {a, b}, {{2, 3, 4, 5}});
  Cost cost = g.Count(mm);
  // Batch dims [2,1] x [3] broadcast to [2,3]: 6 * M*N*K = 6*4*5*8 = 960.
  EXPECT_DOUBLE_EQ(cost.macs, 960);
  // A 64, B 120 floats read; Y 120 floats written.
  EXPECT_DOUBLE_EQ(cost.bytes_read, (64 + 120) * 4);
  EXPECT_DOUBLE_EQ(cost.bytes_written, 120 * 4);
  EXPECT_DOUBLE_EQ(cost.weight_bytes, 0);
}

// A weight without batch dims: the rows of every batch are one GEMM (a
// decode batch of 8 one-token rows is m = 8, not 8 GEMMs of m = 1); a
// batched B keeps the batch.
TEST(MatMulCounterTest, BatchRowsFoldIntoMAgainstA2DWeight) {
  CounterGraph g;
  int a = g.Input("a", {8, 1, 64});
  int w = g.Weight("w", {64, 32});
  int mm = g.Op("MatMul", {a, w}, {{8, 1, 32}});
  Cost c = g.Count(mm);
  EXPECT_DOUBLE_EQ(c.macs, 8 * 64 * 32);
  EXPECT_DOUBLE_EQ(c.gemm.batch, 1);
  EXPECT_DOUBLE_EQ(c.gemm.m, 8);
  EXPECT_DOUBLE_EQ(c.gemm.n, 32);
  EXPECT_DOUBLE_EQ(c.gemm.k, 64);
  int b = g.Input("b", {8, 64, 32});
  int bmm = g.Op("MatMul", {a, b}, {{8, 1, 32}});
  Cost d = g.Count(bmm);
  EXPECT_DOUBLE_EQ(d.gemm.batch, 8);
  EXPECT_DOUBLE_EQ(d.gemm.m, 1);
}

TEST(MatMulCounterTest, OneDimensionalPromotion) {
  CounterGraph g;
  int v = g.Input("v", {8});
  int m = g.Weight("m", {8, 5});
  int vm = g.Op("MatMul", {v, m}, {{5}});
  int a = g.Input("a", {2, 3, 8});
  int av = g.Op("MatMul", {a, v}, {{2, 3}});
  EXPECT_DOUBLE_EQ(g.Count(vm).macs, 1 * 5 * 8);      // [1,8]x[8,5] = 40
  EXPECT_DOUBLE_EQ(g.Count(av).macs, 2 * 3 * 1 * 8);  // [2,3,8]x[8,1] = 48
}

TEST(MatMulCounterTest, InnerDimMismatchIsAnError) {
  CounterGraph g;
  int a = g.Input("a", {4, 8});
  int b = g.Input("b", {7, 5});
  int mm = g.Op("MatMul", {a, b}, {{4, 5}});
  EXPECT_FALSE(g.TryCount(mm).ok());
}

TEST(MatMulCounterTest, FusedMatMul) {
  CounterGraph g;
  int a = g.Input("a", {2, 8, 4});  // transA: [batch, K, M]
  int b = g.Input("b", {2, 8, 5});
  int mm = g.Op("FusedMatMul", {a, b}, {{2, 4, 5}},
                {{"transA", int64_t{1}}, {"alpha", 0.5}}, "com.microsoft");
  Cost cost = g.Count(mm);
  EXPECT_DOUBLE_EQ(cost.macs, 2 * 4 * 5 * 8);     // 320
  EXPECT_DOUBLE_EQ(cost.other_flops, 2 * 4 * 5);  // alpha per output = 40
}

TEST(EinsumCounterTest, BatchedContraction) {
  CounterGraph g;
  int a = g.Input("a", {2, 3, 4});
  int b = g.Input("b", {2, 4, 5});
  int e = g.Op("Einsum", {a, b}, {{2, 3, 5}},
               {{"equation", std::string("bij,bjk->bik")}});
  // Distinct labels b=2, i=3, j=4, k=5: 2*3*4*5 = 120.
  EXPECT_DOUBLE_EQ(g.Count(e).macs, 120);
}

TEST(EinsumCounterTest, ABatchedProductRecordsItsGemm) {
  CounterGraph g;
  // Attention's QK^T as MaxViT exports it: batch b h = 2 x 4, M i = 16,
  // N j = 16, K d = 8; the right operand is an activation.
  int q = g.Input("q", {2, 4, 16, 8});
  int k = g.Input("k", {2, 4, 16, 8});
  int qk = g.Op("Einsum", {q, k}, {{2, 4, 16, 16}},
                {{"equation", std::string("bhid,bhjd->bhij")}});
  const GemmShape gemm = g.Count(qk).gemm;
  EXPECT_DOUBLE_EQ(gemm.batch, 8);
  EXPECT_DOUBLE_EQ(gemm.m, 16);
  EXPECT_DOUBLE_EQ(gemm.n, 16);
  EXPECT_DOUBLE_EQ(gemm.k, 8);
  EXPECT_FALSE(gemm.b_is_weight);
  EXPECT_DOUBLE_EQ(gemm.element_bytes, 4);
  // A linear layer "bsd,df->bsf" with a weight: M b s = 6, N f = 5, K d = 4.
  int x = g.Input("x", {2, 3, 4});
  int w = g.Weight("w", {4, 5});
  int lin = g.Op("Einsum", {x, w}, {{2, 3, 5}},
                 {{"equation", std::string("bsd,df->bsf")}});
  const GemmShape lg = g.Count(lin).gemm;
  EXPECT_DOUBLE_EQ(lg.batch, 1);
  EXPECT_DOUBLE_EQ(lg.m, 6);
  EXPECT_DOUBLE_EQ(lg.n, 5);
  EXPECT_DOUBLE_EQ(lg.k, 4);
  EXPECT_TRUE(lg.b_is_weight);
  // Not a GEMM: j summed out of the second operand alone ("ij,jk->i"), or a
  // diagonal ("ii,ij->j").
  int a = g.Input("a", {3, 4});
  int b = g.Input("b", {4, 5});
  int rowsum =
      g.Op("Einsum", {a, b}, {{3}}, {{"equation", std::string("ij,jk->i")}});
  EXPECT_DOUBLE_EQ(g.Count(rowsum).gemm.batch, 0);
  int sq = g.Input("sq", {4, 4});
  int diag =
      g.Op("Einsum", {sq, b}, {{5}}, {{"equation", std::string("ii,ij->j")}});
  EXPECT_DOUBLE_EQ(g.Count(diag).gemm.batch, 0);
}

TEST(EinsumCounterTest, ImplicitOutputAndSpaces) {
  CounterGraph g;
  int a = g.Input("a", {3, 4});
  int b = g.Input("b", {4, 6});
  int e =
      g.Op("Einsum", {a, b}, {{3, 6}}, {{"equation", std::string("ij, jk")}});
  EXPECT_DOUBLE_EQ(g.Count(e).macs, 3 * 4 * 6);  // 72
}

TEST(EinsumCounterTest, ThreeOperandsPairwiseLeftToRight) {
  CounterGraph g;
  int a = g.Input("a", {2, 3});
  int b = g.Input("b", {3, 4});
  int c = g.Input("c", {4, 5});
  int e = g.Op("Einsum", {a, b, c}, {{2, 5}},
               {{"equation", std::string("ij,jk,kl->il")}});
  // Step 1: ij,jk over {i,j,k} = 2*3*4 = 24, keeps {i,k};
  // step 2: ik,kl over {i,k,l} = 2*4*5 = 40. Total 64.
  EXPECT_DOUBLE_EQ(g.Count(e).macs, 64);
}

TEST(EinsumCounterTest, EllipsisBroadcasts) {
  CounterGraph g;
  int a = g.Input("a", {6, 2, 3});
  int b = g.Input("b", {3, 4});
  int e = g.Op("Einsum", {a, b}, {{6, 2, 4}},
               {{"equation", std::string("...ij,...jk->...ik")}});
  // "..." = one dim of 6 (B has none): 6*2*3*4 = 144.
  EXPECT_DOUBLE_EQ(g.Count(e).macs, 144);
}

TEST(EinsumCounterTest, SingleOperandSum) {
  CounterGraph g;
  int a = g.Input("a", {3, 4});
  int e = g.Op("Einsum", {a}, {{}}, {{"equation", std::string("ij->")}});
  Cost cost = g.Count(e);
  EXPECT_DOUBLE_EQ(cost.macs, 0);
  EXPECT_DOUBLE_EQ(cost.other_flops, 12);  // one add per input element
}

}  // namespace
}  // namespace ridgeline::engine
