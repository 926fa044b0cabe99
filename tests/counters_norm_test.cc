// Normalization counters; expected values computed by hand from cost_table.h:
// mean/variance norms 7 per element (6 without a shift) + 11 per row
// (2 mul + add eps + sqrt 4 + reciprocal 4); RMS norms 4 per element + 10 per
// row; BatchNorm inference 2 per element.
#include <vector>

#include "gtest/gtest.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using testing::CounterGraph;

TEST(NormCounterTest, LayerNormalization) {
  CounterGraph g;
  int x = g.Input("x", {2, 5, 16});
  int scale = g.Weight("scale", {16});
  int bias = g.Weight("bias", {16});
  int ln = g.Op("LayerNormalization", {x, scale, bias}, {{2, 5, 16}});
  Cost c = g.Count(ln);
  // 160 elements * 7 + 10 rows * 11 = 1120 + 110.
  EXPECT_DOUBLE_EQ(c.other_flops, 1230);
  EXPECT_DOUBLE_EQ(c.bytes_read, (160 + 16 + 16) * 4);
  EXPECT_DOUBLE_EQ(c.weight_bytes, 32 * 4);
  EXPECT_DOUBLE_EQ(c.bytes_written, 160 * 4);
}

TEST(NormCounterTest, LayerNormalizationNoBiasAndAxis) {
  CounterGraph g;
  int x = g.Input("x", {2, 5, 16});
  int scale = g.Weight("scale", {5, 16});
  int ln = g.Op("LayerNormalization", {x, scale}, {{2, 5, 16}},
                {{"axis", int64_t{1}}});
  // 160 * 6 + 2 rows * 11 = 960 + 22.
  EXPECT_DOUBLE_EQ(g.Count(ln).other_flops, 982);
}

TEST(NormCounterTest, BatchNormalizationInference) {
  CounterGraph g;
  int x = g.Input("x", {1, 4, 5, 5});
  int s = g.Weight("s", {4});
  int b = g.Weight("b", {4});
  int m = g.Weight("m", {4});
  int v = g.Weight("v", {4});
  int bn = g.Op("BatchNormalization", {x, s, b, m, v}, {{1, 4, 5, 5}});
  Cost c = g.Count(bn);
  EXPECT_DOUBLE_EQ(c.other_flops, 200);          // 100 elements * 2
  EXPECT_DOUBLE_EQ(c.bytes_read, 400 + 4 * 16);  // X + 4 params of 4 floats
  EXPECT_DOUBLE_EQ(c.weight_bytes, 64);
}

TEST(NormCounterTest, RmsNorms) {
  CounterGraph g;
  int x = g.Input("x", {3, 8});
  int scale = g.Weight("scale", {8});
  int simplified = g.Op("SimplifiedLayerNormalization", {x, scale}, {{3, 8}});
  int rms = g.Op("RMSNormalization", {x, scale}, {{3, 8}});
  // 24 * 4 + 3 rows * 10 = 126.
  EXPECT_DOUBLE_EQ(g.Count(simplified).other_flops, 126);
  EXPECT_DOUBLE_EQ(g.Count(rms).other_flops, 126);
}

TEST(NormCounterTest, SkipLayerNormalization) {
  CounterGraph g;
  int x = g.Input("x", {2, 4, 8});
  int skip = g.Input("skip", {2, 4, 8});
  int gamma = g.Weight("gamma", {8});
  int beta = g.Weight("beta", {8});
  int bias = g.Weight("bias", {8});
  int sln = g.Op("SkipLayerNormalization", {x, skip, gamma, beta, bias},
                 {{2, 4, 8}}, {}, "com.microsoft");
  // 64 elements * (skip 1 + bias 1 + 7) + 8 rows * 11 = 576 + 88.
  EXPECT_DOUBLE_EQ(g.Count(sln).other_flops, 664);
}

TEST(NormCounterTest, InstanceAndGroupNormalization) {
  CounterGraph g;
  int x = g.Input("x", {2, 3, 4, 4});
  int s3 = g.Weight("s3", {3});
  int in = g.Op("InstanceNormalization", {x, s3, s3}, {{2, 3, 4, 4}});
  // 96 * 7 + (2*3 = 6 rows) * 11 = 672 + 66.
  EXPECT_DOUBLE_EQ(g.Count(in).other_flops, 738);

  int y = g.Input("y", {2, 8, 4, 4});
  int s8 = g.Weight("s8", {8});
  int gn = g.Op("GroupNormalization", {y, s8, s8}, {{2, 8, 4, 4}},
                {{"num_groups", int64_t{4}}});
  // 256 * 7 + (2*4 = 8 rows) * 11 = 1792 + 88.
  EXPECT_DOUBLE_EQ(g.Count(gn).other_flops, 1880);
}

}  // namespace
}  // namespace ridgeline::engine
