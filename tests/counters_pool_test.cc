// Pooling and Resize counters; expected values computed by hand in the
// comments.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using testing::CounterGraph;
using V = std::vector<int64_t>;

TEST(PoolCounterTest, MaxPool3DUsesEveryKernelDim) {
  CounterGraph g;
  int x = g.Input("x", {1, 2, 8, 8, 8});
  int pool = g.Op("MaxPool", {x}, {{1, 2, 4, 4, 4}},
                  {{"kernel_shape", V{2, 2, 2}}, {"strides", V{2, 2, 2}}});
  Cost c = g.Count(pool);
  // 128 outputs * (2*2*2 = 8) = 1024 (onnx-tool: 128 * 2*2 = 512).
  EXPECT_DOUBLE_EQ(c.other_flops, 1024);
  EXPECT_DOUBLE_EQ(c.bytes_read, 1024 * 4);
  EXPECT_DOUBLE_EQ(c.bytes_written, 128 * 4);
}

TEST(PoolCounterTest, AveragePool3D) {
  CounterGraph g;
  int x = g.Input("x", {1, 2, 8, 8, 8});
  int pool =
      g.Op("AveragePool", {x}, {{1, 2, 8, 8, 8}},
           {{"kernel_shape", V{3, 3, 3}}, {"pads", V{1, 1, 1, 1, 1, 1}}});
  // 1024 outputs * (27 adds + 1 multiply by 1/count) = 28672.
  EXPECT_DOUBLE_EQ(g.Count(pool).other_flops, 28672);
}

TEST(PoolCounterTest, MaxPool2D) {
  CounterGraph g;
  int x = g.Input("x", {1, 1, 4, 4});
  int pool = g.Op("MaxPool", {x}, {{1, 1, 2, 2}},
                  {{"kernel_shape", V{2, 2}}, {"strides", V{2, 2}}});
  EXPECT_DOUBLE_EQ(g.Count(pool).other_flops, 16);  // 4 outputs * 4
}

TEST(PoolCounterTest, MissingKernelShapeIsAnError) {
  CounterGraph g;
  int x = g.Input("x", {1, 1, 4, 4});
  int pool = g.Op("MaxPool", {x}, {{1, 1, 2, 2}});
  EXPECT_FALSE(g.TryCount(pool).ok());
}

TEST(PoolCounterTest, GlobalAveragePool) {
  CounterGraph g;
  int x = g.Input("x", {1, 16, 7, 7});
  int gap = g.Op("GlobalAveragePool", {x}, {{1, 16, 1, 1}});
  // 784 adds + 16 multiplies by 1/49.
  EXPECT_DOUBLE_EQ(g.Count(gap).other_flops, 800);
}

TEST(ResizeCounterTest, Modes) {
  CounterGraph g;
  int x = g.Input("x", {1, 3, 4, 4});
  int scales = g.Weight("scales", {4});
  auto resize = [&](const char* mode) {
    return g.Op("Resize", {x, -1, scales}, {{1, 3, 8, 8}},
                {{"mode", std::string(mode)}});
  };
  int nearest = resize("nearest");
  int linear = resize("linear");
  int cubic = resize("cubic");
  // 192 outputs, k = 2 resized axes.
  EXPECT_DOUBLE_EQ(g.Count(nearest).other_flops, 0);
  // Bilinear: (2^2 - 1) = 3 lerps * 3 FLOPs = 9 per output: 1728.
  EXPECT_DOUBLE_EQ(g.Count(linear).other_flops, 1728);
  // Bicubic: (4^2 - 1)/3 = 5 four-tap filters * 7 FLOPs = 35: 6720.
  EXPECT_DOUBLE_EQ(g.Count(cubic).other_flops, 6720);
  // X read (48 floats), the scales parameter not counted; Y written.
  Cost c = g.Count(linear);
  EXPECT_DOUBLE_EQ(c.bytes_read, 192);
  EXPECT_DOUBLE_EQ(c.bytes_written, 768);
}

}  // namespace
}  // namespace ridgeline::engine
