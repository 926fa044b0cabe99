// Convolution counters; every expected value is computed by hand in the
// comment next to it.
#include <vector>

#include "gtest/gtest.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using graph::DType;
using testing::CounterGraph;
using V = std::vector<int64_t>;

TEST(ConvCounterTest, GroupedDilatedStrided2D) {
  CounterGraph g;
  int x = g.Input("x", {2, 8, 17, 17});
  int w = g.Weight("w", {12, 4, 3, 3});  // group 2: C_in/group = 8/2 = 4
  int b = g.Weight("b", {12});
  // Out = floor((17 + 1 + 1 - 2*(3-1) - 1) / 2) + 1 = floor(14/2) + 1 = 8.
  int conv = g.Op("Conv", {x, w, b}, {{2, 12, 8, 8}},
                  {{"group", int64_t{2}},
                   {"dilations", V{2, 2}},
                   {"strides", V{2, 2}},
                   {"pads", V{1, 1, 1, 1}},
                   {"kernel_shape", V{3, 3}}});
  Cost c = g.Count(conv);
  // N*C_out*H*W*(C_in/g)*kh*kw = 2*12*8*8*4*3*3 = 1536*36 = 55296.
  EXPECT_DOUBLE_EQ(c.macs, 55296);
  // Bias: one add per output element = 2*12*8*8 = 1536.
  EXPECT_DOUBLE_EQ(c.other_flops, 1536);
  // X 2*8*17*17 = 4624, W 12*4*9 = 432, B 12 floats: (4624+432+12)*4 = 20272.
  EXPECT_DOUBLE_EQ(c.bytes_read, 20272);
  EXPECT_DOUBLE_EQ(c.weight_bytes, (432 + 12) * 4);
  EXPECT_DOUBLE_EQ(c.bytes_written, 1536 * 4);
  EXPECT_FALSE(c.unknown);
  EXPECT_FALSE(c.view);
}

TEST(ConvCounterTest, Conv3D) {
  CounterGraph g;
  int x = g.Input("x", {1, 4, 8, 16, 16});
  int w = g.Weight("w", {8, 4, 3, 3, 3});
  int conv = g.Op("Conv", {x, w}, {{1, 8, 8, 16, 16}},
                  {{"pads", V{1, 1, 1, 1, 1, 1}}});
  // 1*8*(8*16*16)*4*27 = 8*2048*108 = 1769472; no bias.
  Cost c = g.Count(conv);
  EXPECT_DOUBLE_EQ(c.macs, 1769472);
  EXPECT_DOUBLE_EQ(c.other_flops, 0);
}

TEST(ConvCounterTest, Depthwise) {
  CounterGraph g;
  int x = g.Input("x", {1, 32, 56, 56});
  int w = g.Weight("w", {32, 1, 3, 3});
  int conv = g.Op("Conv", {x, w}, {{1, 32, 56, 56}},
                  {{"group", int64_t{32}}, {"pads", V{1, 1, 1, 1}}});
  // 1*32*56*56*(32/32)*9 = 32*3136*9 = 903168.
  EXPECT_DOUBLE_EQ(g.Count(conv).macs, 903168);
}

TEST(ConvCounterTest, Conv1D) {
  CounterGraph g;
  int x = g.Input("x", {2, 6, 100});
  int w = g.Weight("w", {10, 6, 5});
  int conv = g.Op("Conv", {x, w}, {{2, 10, 96}});
  // 2*10*96*6*5 = 57600.
  EXPECT_DOUBLE_EQ(g.Count(conv).macs, 57600);
}

TEST(ConvCounterTest, ConvTransposeScatterForm) {
  CounterGraph g;
  int x = g.Input("x", {1, 16, 8, 8});
  int w = g.Weight("w", {16, 4, 4, 4});  // [C_in, C_out/group, kh, kw]
  int b = g.Weight("b", {8});
  // group 2: C_out = 4*2 = 8; out = (8-1)*2 - 2 + 4 = 16.
  int deconv = g.Op(
      "ConvTranspose", {x, w, b}, {{1, 8, 16, 16}},
      {{"group", int64_t{2}}, {"strides", V{2, 2}}, {"pads", V{1, 1, 1, 1}}});
  Cost c = g.Count(deconv);
  // Input side: N*C_in*H_in*W_in*(C_out/g)*kh*kw = 1*16*64*4*16 = 65536.
  // (The gather form over the output, vol(Y)*prod(W[1:]) = 2048*64 = 131072,
  // is onnx-tool's 2x over-count.)
  EXPECT_DOUBLE_EQ(c.macs, 65536);
  EXPECT_DOUBLE_EQ(c.other_flops, 8 * 16 * 16);  // bias per output element
}

TEST(ConvCounterTest, NhwcConv) {
  CounterGraph g;
  int x = g.Input("x", {1, 10, 10, 3});
  int w = g.Weight("w", {16, 3, 3, 3});
  int conv = g.Op("NhwcConv", {x, w}, {{1, 8, 8, 16}}, {}, "com.microsoft");
  // 1*16*(8*8)*3*9 = 27648.
  EXPECT_DOUBLE_EQ(g.Count(conv).macs, 27648);
}

// ONNX Runtime's NhwcConv keeps its weight channels last, [M, kH, kW,
// C/group] (its symbolic shape inference reads the kernel from W[1:-1]);
// 8 channels and a 3x3 kernel tell the two layouts apart.
TEST(ConvCounterTest, NhwcConvWithChannelsLastWeight) {
  CounterGraph g;
  int x = g.Input("x", {1, 10, 10, 8});
  int w = g.Weight("w", {16, 3, 3, 8});
  int conv = g.Op("NhwcConv", {x, w}, {{1, 8, 8, 16}}, {}, "com.microsoft");
  // 16 output channels x 64 positions x (8 x 9) = 73,728.
  EXPECT_DOUBLE_EQ(g.Count(conv).macs, 73728);
}

// com.microsoft QLinearConv with channels_last: NHWC activations, the ONNX
// weight layout [M, C/group, kH, kW] (ONNX Runtime's kernel reads the
// kernel dims from W[2:]).
TEST(ConvCounterTest, ContribQLinearConvChannelsLast) {
  CounterGraph g;
  int x = g.Input("x", {1, 10, 10, 8}, DType::kUInt8);
  int xs = g.Weight("xs", {});
  int xz = g.Weight("xz", {}, DType::kUInt8);
  int w = g.Weight("w", {16, 8, 3, 3}, DType::kInt8);
  int ws = g.Weight("ws", {});
  int wz = g.Weight("wz", {}, DType::kInt8);
  int ys = g.Weight("ys", {});
  int yz = g.Weight("yz", {}, DType::kUInt8);
  int conv =
      g.Op("QLinearConv", {x, xs, xz, w, ws, wz, ys, yz}, {{1, 8, 8, 16}},
           {{"channels_last", int64_t{1}}}, "com.microsoft", DType::kUInt8);
  const Cost c = g.Count(conv);
  EXPECT_DOUBLE_EQ(c.macs, 73728);  // as above
  // One requantize per output element: acc x scale + zero point, 2 FLOPs
  // (COUNTING.md), over 8 x 8 x 16 = 1,024 outputs.
  EXPECT_DOUBLE_EQ(c.other_flops, 2048);
}

TEST(ConvCounterTest, FusedConvAddsActivation) {
  CounterGraph g;
  int x = g.Input("x", {1, 2, 4, 4});
  int w = g.Weight("w", {3, 2, 1, 1});
  int conv = g.Op("FusedConv", {x, w}, {{1, 3, 4, 4}},
                  {{"activation", std::string("Relu")}}, "com.microsoft");
  Cost c = g.Count(conv);
  EXPECT_DOUBLE_EQ(c.macs, 3 * 16 * 2);     // 96
  EXPECT_DOUBLE_EQ(c.other_flops, 3 * 16);  // Relu: 1 per output element
}

TEST(ConvCounterTest, GroupMismatchIsAnErrorNamingTheNode) {
  CounterGraph g;
  int x = g.Input("x", {1, 8, 5, 5});
  int w = g.Weight("w", {4, 3, 1, 1});  // 8 / 2 = 4, not 3
  int conv = g.Op("Conv", {x, w}, {{1, 4, 5, 5}}, {{"group", int64_t{2}}}, "",
                  graph::DType::kFloat32, "bad_conv");
  absl::StatusOr<Cost> c = g.TryCount(conv);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("bad_conv"), absl::string_view::npos);
}

TEST(ConvCounterTest, DeformConvSamplesItsColumnsBilinearly) {
  CounterGraph g;
  // X [1, 2, 5, 5], W [4, 2, 3, 3], stride 1, no pad: Y [1, 4, 3, 3];
  // offset [1, 2 * 9, 3, 3], mask [1, 9, 3, 3], bias [4].
  int x = g.Input("x", {1, 2, 5, 5});
  int w = g.Weight("w", {4, 2, 3, 3});
  int offset = g.Input("offset", {1, 18, 3, 3});
  int bias = g.Weight("b", {4});
  int mask = g.Input("mask", {1, 9, 3, 3});
  int dc = g.Op("DeformConv", {x, w, offset, bias, mask}, {{1, 4, 3, 3}},
                {{"kernel_shape", std::vector<int64_t>{3, 3}}});
  Cost c = g.Count(dc);
  // Conv's MACs: 36 outputs x 2 x 9 = 648.
  EXPECT_DOUBLE_EQ(c.macs, 648);
  // Positions: 1 x 1 group x 9 x 9 pixels = 81, each 2 axes x (offset add
  // 1, fraction 2, 1 - t 1) + 4 taps x 1 product = 12: 972. Samples:
  // 1 x 2 x 9 x 9 = 162, each 4 mul + 3 add + mask mul = 8: 1296. Bias: 36.
  // 2304.
  EXPECT_DOUBLE_EQ(c.other_flops, 2304);
}

TEST(ConvCounterTest, Col2ImAddsEveryColumnElement) {
  CounterGraph g;
  int cols = g.Input("cols", {1, 12, 9});  // C 3 x block 2x2, 9 blocks
  int image = g.IntConstant("image", {4, 4});
  int block = g.IntConstant("block", {2, 2});
  int op = g.Op("Col2Im", {cols, image, block}, {{1, 3, 4, 4}});
  Cost c = g.Count(op);
  EXPECT_DOUBLE_EQ(c.other_flops, 108);  // 1 x 12 x 9 adds
  EXPECT_DOUBLE_EQ(c.bytes_read, 108 * 4);
  EXPECT_DOUBLE_EQ(c.bytes_written, 48 * 4);
}

}  // namespace
}  // namespace ridgeline::engine
