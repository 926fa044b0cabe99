// GridSample, AffineGrid, RoiAlign, DFT, STFT, the window generators,
// MelWeightMatrix and Det; every expected count is worked by hand in the
// comment beside it from the formulas in engine/counters/COUNTING.md.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using testing::CounterGraph;

TEST(GridSampleCounterTest, BilinearZerosPadding) {
  CounterGraph g;
  int x = g.Input("x", {1, 3, 4, 4});
  int grid = g.Input("grid", {1, 8, 8, 2});
  int gs = g.Op("GridSample", {x, grid}, {{1, 3, 8, 8}});
  Cost c = g.Count(gs);
  // 64 locations x 2 axes x (unnormalize add, mul, sub = 3; fraction floor,
  // sub = 2) = 640; 192 outputs x 3 lerps x 3 = 1728. Total 2368.
  EXPECT_DOUBLE_EQ(c.other_flops, 2368);
  EXPECT_DOUBLE_EQ(c.macs, 0);
  // X (48) and the grid (128) read, Y (192) written, 4 bytes each.
  EXPECT_DOUBLE_EQ(c.bytes_read, (48 + 128) * 4);
  EXPECT_DOUBLE_EQ(c.bytes_written, 192 * 4);
}

TEST(GridSampleCounterTest, ModesAndPaddings) {
  CounterGraph g;
  int x = g.Input("x", {1, 2, 4, 4});
  int grid = g.Input("grid", {1, 2, 2, 2});
  using A = CounterGraph::Attributes;
  auto gs = [&](A attributes, const std::string& domain = "") {
    return g.Op("GridSample", {x, grid}, {{1, 2, 2, 2}}, attributes, domain);
  };
  // 4 locations x 2 axes = 8 coordinates; 8 outputs.
  // Nearest, align_corners: (add, mul = 2) + round 1 = 3 per coordinate:
  // 24; no interpolation FLOPs.
  int nearest = gs({{"mode", std::string("nearest")}, {"align_corners", 1}});
  EXPECT_DOUBLE_EQ(g.Count(nearest).other_flops, 24);
  // Bicubic, border: (3 + clamp 2 + fraction 2 + Keys weights 21) = 28 per
  // coordinate: 224; 8 outputs x 5 four-tap filters x 7 = 280. 504.
  int cubic = gs({{"mode", std::string("bicubic")},
                  {"padding_mode", std::string("border")}});
  EXPECT_DOUBLE_EQ(g.Count(cubic).other_flops, 504);
  // Bilinear, reflection: (3 + shift 1 + mod 6 + compare 1 + mirror 1 +
  // clamp 2 = 14 + fraction 2) = 16 per coordinate: 128; 8 x 9 = 72. 200.
  // The com.microsoft op counts the same.
  int reflect =
      gs({{"padding_mode", std::string("reflection")}}, "com.microsoft");
  EXPECT_DOUBLE_EQ(g.Count(reflect).other_flops, 200);
  int unknown = gs({{"mode", std::string("area")}});
  EXPECT_FALSE(g.TryCount(unknown).ok());
}

TEST(GridSampleCounterTest, Opset20LinearIsTheDefaultAndVolumesWork) {
  CounterGraph g;
  int x = g.Input("x", {1, 1, 2, 2, 2});
  int grid = g.Input("grid", {1, 2, 2, 2, 3});
  int gs = g.Op("GridSample", {x, grid}, {{1, 1, 2, 2, 2}});
  g.graph().mutable_node(gs).opset = 20;
  // 8 locations x 3 axes x (3 + 2) = 120; 8 outputs x 7 lerps x 3 = 168.
  EXPECT_DOUBLE_EQ(g.Count(gs).other_flops, 288);
}

TEST(GridSampleCounterTest, AGridOfTheWrongWidthIsAnError) {
  CounterGraph g;
  int x = g.Input("x", {1, 3, 4, 4});
  int grid = g.Input("grid", {1, 8, 8, 3});
  int gs = g.Op("GridSample", {x, grid}, {{1, 3, 8, 8}});
  EXPECT_FALSE(g.TryCount(gs).ok());
}

TEST(AffineGridCounterTest, IsABatchedMatMulOfTheHomogeneousBase) {
  CounterGraph g;
  int theta = g.Input("theta", {2, 2, 3});
  int size = g.IntConstant("size", {2, 3, 4, 5});
  int ag = g.Op("AffineGrid", {theta, size}, {{2, 4, 5, 2}});
  Cost c = g.Count(ag);
  // grid [2, 20, 2] = base [2, 20, 3] x theta^T [2, 3, 2]: 2 x 20 x 2 x 3.
  EXPECT_DOUBLE_EQ(c.macs, 240);
  // theta read (12 floats); the size parameter is not counted; 80 written.
  EXPECT_DOUBLE_EQ(c.bytes_read, 12 * 4);
  EXPECT_DOUBLE_EQ(c.bytes_written, 80 * 4);
}

TEST(RoiAlignCounterTest, AverageWithASamplingRatio) {
  CounterGraph g;
  int x = g.Input("x", {1, 4, 16, 16});
  int rois = g.Input("rois", {3, 4});
  int idx = g.Input("batch_indices", {3}, graph::DType::kInt64);
  int ra =
      g.Op("RoiAlign", {x, rois, idx}, {{3, 4, 2, 2}},
           {{"output_height", 2}, {"output_width", 2}, {"sampling_ratio", 2}});
  Cost c = g.Count(ra);
  // Per box 20 (3 boxes: 60). 12 bins x 4 samples x 14 per sample
  // position = 672. 48 outputs x (4 samples x (7 + 1 add) + 1 mul by
  // 1/count) = 48 x 33 = 1584. Total 2316.
  EXPECT_DOUBLE_EQ(c.other_flops, 2316);
  EXPECT_TRUE(c.note.empty());
  // X: min(1024, 4 taps x 4 samples x 48 = 768) = 768 floats; rois 12
  // floats; indices 3 int64; Y 48 floats.
  EXPECT_DOUBLE_EQ(c.bytes_read, 768 * 4 + 12 * 4 + 3 * 8);
  EXPECT_DOUBLE_EQ(c.bytes_written, 48 * 4);
}

TEST(RoiAlignCounterTest, AdaptiveSamplingIsAssumedAndSaid) {
  CounterGraph g;
  int x = g.Input("x", {1, 1, 8, 8});
  int rois = g.Input("rois", {1, 4});
  int idx = g.Input("batch_indices", {1}, graph::DType::kInt64);
  int ra = g.Op("RoiAlign", {x, rois, idx}, {{1, 1, 1, 1}},
                {{"mode", std::string("max")}});
  Cost c = g.Count(ra);
  // sampling_ratio 0 -> 2 x 2 assumed: 20 + 1 bin x 4 x 14 = 56, + 1 output
  // x 4 x (7 + 1 compare) = 32. Total 108; max takes no 1/count multiply.
  EXPECT_DOUBLE_EQ(c.other_flops, 108);
  EXPECT_NE(c.note.find("sampling_ratio 0"), std::string::npos) << c.note;
}

TEST(DftCounterTest, RealAndComplexInputs) {
  CounterGraph g;
  // 4 real signals of 8 points along axis 1 (the opset 17 default).
  int real = g.Input("real", {4, 8, 1});
  int dft = g.Op("DFT", {real}, {{4, 8, 2}});
  // 4 x 2.5 x 8 x log2 8 = 240.
  EXPECT_DOUBLE_EQ(g.Count(dft).other_flops, 240);
  // Complex, inverse, dft_length 16 (zero-padded): 2 transforms x
  // (5 x 16 x 4 = 320 + 2 x 16 scaling multiplies) = 704.
  int complex = g.Input("complex", {2, 8, 2});
  int length = g.IntConstant("length", {16}, /*scalar=*/true);
  int idft = g.Op("DFT", {complex, length}, {{2, 16, 2}}, {{"inverse", 1}});
  EXPECT_DOUBLE_EQ(g.Count(idft).other_flops, 704);
}

TEST(DftCounterTest, AnEmptySignalHasNoTransforms) {
  CounterGraph g;
  int x = g.Input("x", {2, 0, 1});  // a 0-length signal (--dim len=0)
  int dft = g.Op("DFT", {x}, {{2, 0, 2}});
  Cost c = g.Count(dft);
  EXPECT_DOUBLE_EQ(c.other_flops, 0);  // not NaN
}

TEST(DftCounterTest, Opset20TakesItsAxisFromAnInput) {
  CounterGraph g;
  int x = g.Input("x", {3, 4, 1});
  int axis = g.IntConstant("axis", {-2}, /*scalar=*/true);
  int dft = g.Op("DFT", {x, -1, axis}, {{3, 4, 2}});
  g.graph().mutable_node(dft).opset = 20;
  // Axis -2 (the 4): 3 transforms x 2.5 x 4 x 2 = 60.
  EXPECT_DOUBLE_EQ(g.Count(dft).other_flops, 60);
  // The real/imaginary axis itself is not a transform axis.
  int last = g.IntConstant("last", {-1}, /*scalar=*/true);
  int bad = g.Op("DFT", {x, -1, last}, {{3, 4, 2}});
  g.graph().mutable_node(bad).opset = 20;
  EXPECT_FALSE(g.TryCount(bad).ok());
}

TEST(StftCounterTest, WindowedFrames) {
  CounterGraph g;
  int signal = g.Input("signal", {1, 64, 1});
  int step = g.IntConstant("step", {16}, /*scalar=*/true);
  int window = g.Input("window", {16});
  int stft = g.Op("STFT", {signal, step, window}, {{1, 4, 9, 2}});
  Cost c = g.Count(stft);
  // 4 frames x (16 window multiplies + 2.5 x 16 x 4 = 160) = 704.
  EXPECT_DOUBLE_EQ(c.other_flops, 704);
  // The signal (64) and the window (16) read; the step is a parameter.
  EXPECT_DOUBLE_EQ(c.bytes_read, 80 * 4);
  EXPECT_DOUBLE_EQ(c.bytes_written, 72 * 4);
  // No window and no frame_length: the frame length is unknown.
  int bare = g.Op("STFT", {signal, step}, {{1, 4, 9, 2}});
  EXPECT_FALSE(g.TryCount(bare).ok());
}

TEST(WindowCounterTest, CosineSums) {
  CounterGraph g;
  int size = g.IntConstant("size", {10}, /*scalar=*/true);
  int hann = g.Op("HannWindow", {size}, {{10}});
  int blackman = g.Op("BlackmanWindow", {size}, {{10}});
  // Hann: angle mul, cos 8, mul, sub = 11 per element: 110.
  EXPECT_DOUBLE_EQ(g.Count(hann).other_flops, 110);
  // Blackman: 2 x (mul, cos, mul) = 20, 2 adds: 22 per element: 220.
  EXPECT_DOUBLE_EQ(g.Count(blackman).other_flops, 220);
  EXPECT_DOUBLE_EQ(g.Count(hann).bytes_read, 0);
  EXPECT_DOUBLE_EQ(g.Count(hann).bytes_written, 40);
}

TEST(MelWeightMatrixCounterTest, TrianglesAndEdges) {
  CounterGraph g;
  int bins = g.IntConstant("bins", {8}, /*scalar=*/true);
  int mel = g.Op("MelWeightMatrix", {bins}, {{257, 8}});
  // 2056 elements x (sub, div 4, 2 compares = 7) = 14392; 10 edges x
  // ((mul, add) 2 + (div 4, pow 8, sub, mul) 14 + (mul, div 4, floor) 6 =
  // 22) = 220; 2 edge mels x (div 4, add, log 8, mul = 14) = 28. 14640.
  EXPECT_DOUBLE_EQ(g.Count(mel).other_flops, 14640);
}

TEST(DetCounterTest, LuFactorizationOfEachMatrix) {
  CounterGraph g;
  int x = g.Input("x", {2, 3, 3});
  int det = g.Op("Det", {x}, {{2}});
  // n = 3: multiplications 27/3 + 2 = 11, additions 9 - 4.5 + 0.5 = 5,
  // pivot compares 3, diagonal product 2: 21 per matrix, 42 for two.
  EXPECT_DOUBLE_EQ(g.Count(det).other_flops, 42);
  int rect = g.Input("rect", {2, 3});
  int bad = g.Op("Det", {rect}, {{}});
  EXPECT_FALSE(g.TryCount(bad).ok());
}

TEST(InverseCounterTest, LuThenInverseFromIt) {
  CounterGraph g;
  int x = g.Input("x", {3, 4, 4});
  int inv = g.Op("Inverse", {x}, {{3, 4, 4}}, {}, "com.microsoft");
  // n = 4. LU (LAWN 41 xGETRF): multiplications 64/3 + 8/3 = 24, additions
  // 64/3 - 8 + 4/6 = 14, pivot compares 6: 44. xGETRI: multiplications
  // 128/3 + 8 + 20/6 = 54, additions 128/3 - 24 + 20/6 = 22: 76. 120 per
  // matrix, 360 for three.
  EXPECT_DOUBLE_EQ(g.Count(inv).other_flops, 360);
}

TEST(UniqueCounterTest, SortsThenComparesNeighbours) {
  CounterGraph g;
  int x = g.Input("x", {8});
  int u = g.Op("Unique", {x}, {{8}});
  // 8 elements, n = 8 items: 8 x (log2 8 = 3 + 1) = 32 compares.
  EXPECT_DOUBLE_EQ(g.Count(u).other_flops, 32);
  int m = g.Input("m", {4, 3});
  int rows = g.Op("Unique", {m}, {{4, 3}}, {{"axis", int64_t{0}}});
  // 4 rows of 3: 12 x (log2 4 = 2 + 1) = 36 element compares.
  EXPECT_DOUBLE_EQ(g.Count(rows).other_flops, 36);
}

TEST(RandomCounterTest, ArithmeticOnTheUniformDraws) {
  CounterGraph g;
  int like = g.Input("like", {4, 5});
  // RandomUniformLike: low + (high - low) u = 2 per element: 40; its input
  // is read for its shape only (no bytes), the output written.
  int u = g.Op("RandomUniformLike", {like}, {{4, 5}});
  Cost cu = g.Count(u);
  EXPECT_DOUBLE_EQ(cu.other_flops, 40);
  EXPECT_DOUBLE_EQ(cu.bytes_read, 0);
  EXPECT_DOUBLE_EQ(cu.bytes_written, 80);
  // RandomNormal by Box-Muller: (log 8, mul, sqrt 4; the angle's mul,
  // cos 8, sin 8, 2 mul: 32 a pair) / 2 + mean and scale 2 = 18 per
  // element: 360.
  int n = g.Op("RandomNormal", {}, {{4, 5}});
  EXPECT_DOUBLE_EQ(g.Count(n).other_flops, 360);
  // Bernoulli: a compare per element, its probabilities read.
  int b = g.Op("Bernoulli", {like}, {{4, 5}});
  Cost cb = g.Count(b);
  EXPECT_DOUBLE_EQ(cb.other_flops, 20);
  EXPECT_DOUBLE_EQ(cb.bytes_read, 80);
  // Multinomial of [2, 10] log-probabilities, 3 samples a row: 20 x (exp 8
  // + add) = 180; 6 samples x (mul + ceil(log2 10) = 4 compares) = 30.
  int logits = g.Input("logits", {2, 10});
  int mn = g.Op("Multinomial", {logits}, {{2, 3}},
                {{"sample_size", int64_t{3}}}, "", graph::DType::kInt32);
  EXPECT_DOUBLE_EQ(g.Count(mn).other_flops, 210);
}

TEST(SwishCounterTest, IsQuickGeluShaped) {
  CounterGraph g;
  int x = g.Input("x", {5});
  int swish = g.Op("Swish", {x}, {{5}});
  // x * sigmoid(alpha x): mul, sigmoid (exp 8 + add + div 4 = 13), mul = 15.
  EXPECT_DOUBLE_EQ(g.Count(swish).other_flops, 75);
}

}  // namespace
}  // namespace ridgeline::engine
