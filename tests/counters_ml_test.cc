// ai.onnx.ml counters (engine/counters/ml.cc); every expected count is
// worked by hand in the comment next to it, from the conventions at the top
// of ml.cc (COUNTING.md, "Classic ML").
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using graph::DType;
using testing::CounterGraph;
using Ints = std::vector<int64_t>;
using Strings = std::vector<std::string>;
using Floats = std::vector<double>;

constexpr char kMl[] = "ai.onnx.ml";

TEST(MlCounterTest, ScalerNormalizerBinarizer) {
  CounterGraph g;
  int x = g.Input("x", {10, 4});
  // Scaler: sub, mul = 2 per element: 80.
  EXPECT_DOUBLE_EQ(g.Count(g.Op("Scaler", {x}, {{10, 4}}, {}, kMl)).other_flops,
                   80);
  // Normalizer L2: (square, add) 2 + divide 4 per element = 240, + a square
  // root 4 per row = 40: 280. MAX: compare 1 + divide 4 = 200. L1: 240.
  EXPECT_DOUBLE_EQ(g.Count(g.Op("Normalizer", {x}, {{10, 4}},
                                {{"norm", std::string("L2")}}, kMl))
                       .other_flops,
                   280);
  EXPECT_DOUBLE_EQ(
      g.Count(g.Op("Normalizer", {x}, {{10, 4}}, {}, kMl)).other_flops, 200);
  EXPECT_DOUBLE_EQ(g.Count(g.Op("Normalizer", {x}, {{10, 4}},
                                {{"norm", std::string("L1")}}, kMl))
                       .other_flops,
                   240);
  EXPECT_DOUBLE_EQ(
      g.Count(g.Op("Binarizer", {x}, {{10, 4}}, {}, kMl)).other_flops, 40);
}

// Lookups, 1 per input element; ArrayFeatureExtractor reads what it
// gathers (2 columns of 10 rows, 80 B, + the 2 int64 indices, 16 B).
TEST(MlCounterTest, LookupsAndFeatureExtraction) {
  CounterGraph g;
  int x = g.Input("x", {10, 4});
  int ids = g.Input("ids", {10}, DType::kInt64);
  EXPECT_DOUBLE_EQ(
      g.Count(g.Op("LabelEncoder", {ids}, {{10}},
                   {{"keys_int64s", Ints{1, 2}}, {"values_int64s", Ints{3, 4}}},
                   kMl))
          .other_flops,
      10);
  EXPECT_DOUBLE_EQ(g.Count(g.Op("OneHotEncoder", {ids}, {{10, 3}},
                                {{"cats_int64s", Ints{1, 2, 3}}}, kMl))
                       .other_flops,
                   10);
  int cols = g.IntConstant("cols", {0, 2});
  const Cost afe =
      g.Count(g.Op("ArrayFeatureExtractor", {x, cols}, {{10, 2}}, {}, kMl));
  EXPECT_DOUBLE_EQ(afe.bytes_read, 80 + 16);
  EXPECT_DOUBLE_EQ(afe.bytes_written, 80);
}

TEST(MlCounterTest, LinearClassifierWithSoftmax) {
  CounterGraph g;
  int x = g.Input("x", {10, 4});
  // 3 classes x 4 features = 12 coefficients.
  int clf = g.Op("LinearClassifier", {x}, {{10}, {10, 3}},
                 {{"coefficients", Floats(12, 0.5)},
                  {"intercepts", Floats{0, 1, 2}},
                  {"classlabels_ints", Ints{0, 1, 2}},
                  {"post_transform", std::string("SOFTMAX")}},
                 kMl);
  const Cost c = g.Count(clf);
  EXPECT_DOUBLE_EQ(c.macs, 10 * 4 * 3);  // 120
  // Per score: intercept 1 + softmax 15 + argmax compare 1 = 17; 30 scores.
  EXPECT_DOUBLE_EQ(c.other_flops, 30 * 17);
}

TEST(MlCounterTest, SvmClassifierWithRbfKernel) {
  CounterGraph g;
  int x = g.Input("x", {10, 4});
  // 5 support vectors of 4 features, 3 classes.
  int svm = g.Op("SVMClassifier", {x}, {{10}, {10, 3}},
                 {{"support_vectors", Floats(20, 1.0)},
                  {"vectors_per_class", Ints{2, 2, 1}},
                  {"kernel_type", std::string("RBF")},
                  {"classlabels_ints", Ints{0, 1, 2}}},
                 kMl);
  const Cost c = g.Count(svm);
  // Kernel values: 10 rows x 5 vectors x 4 MACs = 200; decision sums
  // 10 x 5 x (3 - 1) = 100. 300.
  EXPECT_DOUBLE_EQ(c.macs, 300);
  // RBF: 4 subtractions per value (200) + gamma 1 + exp 8 per value (450);
  // argmax 1 per score (30). 680.
  EXPECT_DOUBLE_EQ(c.other_flops, 680);
}

// A tree whose deepest path has 3 branch nodes and a shallow one of 1:
//   tree 0: 0 -> (1, 2); 1 -> (3, 4); 3 -> (5, 6); 2, 4, 5, 6 leaves.
//   tree 1: 0 -> (1, 2), leaves 1 and 2.
TEST(MlCounterTest, TreeEnsembleRegressorTakesEachTreesDeepestPath) {
  CounterGraph g;
  int x = g.Input("x", {100, 8});
  const std::string b = "BRANCH_LEQ", l = "LEAF";
  int reg = g.Op("TreeEnsembleRegressor", {x}, {{100, 2}},
                 {{"n_targets", int64_t{2}},
                  {"nodes_treeids", Ints{0, 0, 0, 0, 0, 0, 0, 1, 1, 1}},
                  {"nodes_nodeids", Ints{0, 1, 2, 3, 4, 5, 6, 0, 1, 2}},
                  {"nodes_featureids", Ints{0, 1, 0, 2, 0, 0, 0, 3, 0, 0}},
                  {"nodes_modes", Strings{b, b, l, b, l, l, l, b, l, l}},
                  {"nodes_truenodeids", Ints{1, 3, 0, 5, 0, 0, 0, 1, 0, 0}},
                  {"nodes_falsenodeids", Ints{2, 4, 0, 6, 0, 0, 0, 2, 0, 0}},
                  {"aggregate_function", std::string("AVERAGE")}},
                 kMl);
  const Cost c = g.Count(reg);
  // Per row: compares 3 + 1 = 4; leaf weight adds 2 trees x 2 targets = 4;
  // per target: average 4 + base value 1 = 5, x 2 = 10. 18 per row: 1800.
  EXPECT_DOUBLE_EQ(c.other_flops, 1800);
  // The node arrays: 5 int64 lists of 10 (tree ids, node ids, features,
  // true and false children) = 400 B, and 10 modes of 1 B: 410.
  EXPECT_DOUBLE_EQ(c.weight_bytes, 410);
  EXPECT_NE(c.note.find("2 trees, 10 nodes"), std::string::npos) << c.note;
}

// Node ids come from the file: a cycle (3 -> 1) and a child that is not in
// the tree (7) end the walk instead of looping or reading out of bounds.
TEST(MlCounterTest, TreeWithACycleOrAMissingChildEnds) {
  CounterGraph g;
  int x = g.Input("x", {1, 8});
  const std::string b = "BRANCH_LEQ", l = "LEAF";
  int reg = g.Op("TreeEnsembleRegressor", {x}, {{1, 1}},
                 {{"nodes_treeids", Ints{0, 0, 0, 0}},
                  {"nodes_nodeids", Ints{0, 1, 2, 3}},
                  {"nodes_modes", Strings{b, b, l, b}},
                  {"nodes_truenodeids", Ints{1, 3, 0, 1}},
                  {"nodes_falsenodeids", Ints{2, 2, 0, 7}}},
                 kMl);
  const Cost c = g.Count(reg);
  // 0 -> 1 -> 3, whose children are on the path (1) or missing (7): 3
  // branch nodes. + 1 leaf weight add + aggregate 1 + base 1 = 6.
  EXPECT_DOUBLE_EQ(c.other_flops, 6);
}

// ai.onnx.ml opset 5 TreeEnsemble: roots index the node arrays; a leaf
// flag ends a path. Tree 0 (root 0): 0 -> (1, leaf), 1 -> (leaf, leaf): 2
// branch nodes. Tree 1 (root 2): 2 -> (leaf, leaf): 1.
TEST(MlCounterTest, TreeEnsembleOpset5) {
  CounterGraph g;
  int x = g.Input("x", {10, 8});
  int tree = g.Op("TreeEnsemble", {x}, {{10, 1}},
                  {{"tree_roots", Ints{0, 2}},
                   {"nodes_featureids", Ints{0, 1, 2}},
                   {"nodes_truenodeids", Ints{1, 0, 2}},
                   {"nodes_trueleafs", Ints{0, 1, 1}},
                   {"nodes_falsenodeids", Ints{0, 1, 3}},
                   {"nodes_falseleafs", Ints{1, 1, 1}},
                   {"leaf_targetids", Ints{0, 0, 0, 0, 0}},
                   {"n_targets", int64_t{1}}},
                  kMl);
  const Cost c = g.Count(tree);
  // Per row: 3 compares + 2 leaf adds + aggregate 1 + base 1 = 7: 70.
  EXPECT_DOUBLE_EQ(c.other_flops, 70);
}

}  // namespace
}  // namespace ridgeline::engine
