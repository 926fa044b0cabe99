// Views and data-movement counters; expected bytes computed by hand.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using graph::DType;
using testing::CounterGraph;

TEST(MovementCounterTest, GatherOnEmbeddingReadsOnlyGatheredRows) {
  CounterGraph g;
  int table = g.Weight("table", {1000, 64});
  int ids = g.Input("ids", {2, 7}, DType::kInt64);
  int gather = g.Op("Gather", {table, ids}, {{2, 7, 64}});
  Cost c = g.Count(gather);
  // 14 rows * 64 floats * 4 = 3584 of the table (not 1000*64*4 = 256000),
  // plus 14 int64 ids = 112.
  EXPECT_DOUBLE_EQ(c.bytes_read, 3584 + 112);
  EXPECT_DOUBLE_EQ(c.weight_bytes, 3584);
  EXPECT_DOUBLE_EQ(c.bytes_written, 3584);
  EXPECT_DOUBLE_EQ(c.other_flops, 0);
}

TEST(MovementCounterTest, SliceReadsOnlyTheSlicedRegion) {
  CounterGraph g;
  int data = g.Input("data", {4, 10, 10});
  int starts = g.IntConstant("starts", {0});
  int ends = g.IntConstant("ends", {5});
  int axes = g.IntConstant("axes", {1});
  int slice = g.Op("Slice", {data, starts, ends, axes}, {{4, 5, 10}});
  Cost c = g.Count(slice);
  EXPECT_DOUBLE_EQ(c.bytes_read, 200 * 4);  // the 4*5*10 kept, not 400
  EXPECT_DOUBLE_EQ(c.bytes_written, 200 * 4);
  EXPECT_DOUBLE_EQ(c.weight_bytes, 0);
}

TEST(MovementCounterTest, CopiesReadAndWriteEverything) {
  CounterGraph g;
  int x = g.Input("x", {2, 3, 4});
  int y = g.Input("y", {2, 5, 4});
  int transpose = g.Op("Transpose", {x}, {{4, 3, 2}});
  int concat = g.Op("Concat", {x, y}, {{2, 8, 4}}, {{"axis", int64_t{1}}});
  Cost t = g.Count(transpose);
  EXPECT_DOUBLE_EQ(t.bytes_read, 96);
  EXPECT_DOUBLE_EQ(t.bytes_written, 96);
  Cost c = g.Count(concat);
  EXPECT_DOUBLE_EQ(c.bytes_read, (24 + 40) * 4);
  EXPECT_DOUBLE_EQ(c.bytes_written, 64 * 4);
}

TEST(MovementCounterTest, ExpandReadsInputOnceAndWritesOutput) {
  CounterGraph g;
  int x = g.Input("x", {1, 4});
  int shape = g.IntConstant("shape", {3, 4});
  int expand = g.Op("Expand", {x, shape}, {{3, 4}});
  Cost c = g.Count(expand);
  EXPECT_DOUBLE_EQ(c.bytes_read, 16);     // 4 floats; shape not counted
  EXPECT_DOUBLE_EQ(c.bytes_written, 48);  // 12 floats
}

TEST(MovementCounterTest, ViewsMoveNothing) {
  CounterGraph g;
  int x = g.Input("x", {2, 6});
  int shape = g.IntConstant("shape", {3, 4});
  int axes = g.IntConstant("axes", {0});
  std::vector<int> views = {
      g.Op("Reshape", {x, shape}, {{3, 4}}),
      g.Op("Unsqueeze", {x, axes}, {{1, 2, 6}}),
      g.Op("Flatten", {x}, {{2, 6}}),
      g.Op("Identity", {x}, {{2, 6}}),
      g.Op("Dropout", {x}, {{2, 6}}),
      g.Op("Shape", {x}, {{2}}, {}, "", DType::kInt64),
      g.Op("Size", {x}, {{}}, {}, "", DType::kInt64),
      g.Op("Constant", {}, {{4}}),
  };
  for (int v : views) {
    Cost c = g.Count(v);
    EXPECT_TRUE(c.view) << g.graph().node(v).op_type;
    EXPECT_DOUBLE_EQ(c.Bytes(), 0) << g.graph().node(v).op_type;
    EXPECT_DOUBLE_EQ(c.Flops(2), 0) << g.graph().node(v).op_type;
  }
}

TEST(MovementCounterTest, TrainingDropoutIsNotAView) {
  CounterGraph g;
  int x = g.Input("x", {8});
  int ratio = g.Weight("ratio", {});
  int training = g.IntConstant("training", {1}, /*scalar=*/true, DType::kBool);
  int dropout = g.Op("Dropout", {x, ratio, training}, {{8}});
  Cost c = g.Count(dropout);
  EXPECT_FALSE(c.view);
  EXPECT_DOUBLE_EQ(c.other_flops, 16);  // mask compare + multiply
}

TEST(MovementCounterTest, TrainingDropoutOfRatioZeroCopiesItsInput) {
  // ONNX Dropout: a ratio of 0 gives "a simple copy of the input" even in
  // training mode (torchvision's Swin exports it so): a view.
  CounterGraph g;
  int x = g.Input("x", {8});
  int ratio = g.Weight("ratio", {});
  int training = g.IntConstant("training", {1}, /*scalar=*/true, DType::kBool);
  int dropout = g.Op("Dropout", {x, ratio, training}, {{8}});
  g.graph().mutable_tensor(ratio).float_values = std::vector<double>{0.0};
  EXPECT_TRUE(g.Count(dropout).view);
}

}  // namespace
}  // namespace ridgeline::engine
