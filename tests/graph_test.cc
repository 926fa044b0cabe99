#include "graph/graph.h"

#include <string>

#include "graph/einsum.h"
#include "gtest/gtest.h"

namespace ridgeline::graph {
namespace {

TEST(GraphTest, DetectsCycle) {
  Graph g;
  int a = *g.AddTensor({.name = "a"});
  int b = *g.AddTensor({.name = "b"});
  ASSERT_TRUE(
      g.AddNode(
           {.name = "n1", .op_type = "Relu", .inputs = {a}, .outputs = {b}})
          .ok());
  ASSERT_TRUE(
      g.AddNode(
           {.name = "n2", .op_type = "Relu", .inputs = {b}, .outputs = {a}})
          .ok());
  absl::Status s = g.Finalize();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cycle"), std::string::npos);
}

TEST(GraphTest, TopologicalOrderFollowsEdges) {
  Graph g;
  int x = *g.AddTensor({.name = "x", .kind = TensorKind::kGraphInput});
  int y = *g.AddTensor({.name = "y"});
  int z = *g.AddTensor({.name = "z"});
  // Listed consumer-first on purpose.
  ASSERT_TRUE(
      g.AddNode(
           {.name = "second", .op_type = "Relu", .inputs = {y}, .outputs = {z}})
          .ok());
  ASSERT_TRUE(
      g.AddNode(
           {.name = "first", .op_type = "Relu", .inputs = {x}, .outputs = {y}})
          .ok());
  ASSERT_TRUE(g.Finalize().ok());
  ASSERT_EQ(g.topological_order().size(), 2u);
  EXPECT_EQ(g.node(g.topological_order()[0]).name, "first");
  EXPECT_EQ(g.tensor(y).consumers, std::vector<int>{0});
}

TEST(GraphTest, RejectsOverflowingDims) {
  // 2^30 * 2^30 * 2^30 = 2^90 elements: must be an error, not a wrapped count.
  EXPECT_FALSE(CheckedNumElements({1 << 30, 1 << 30, 1 << 30}, "t").ok());
  EXPECT_FALSE(CheckedNumElements({(int64_t{1} << 40) + 1}, "t").ok());
  EXPECT_FALSE(CheckedNumElements({-1}, "t").ok());
  EXPECT_EQ(*CheckedNumElements({2, 3, 4}, "t"), 24);
}

TEST(Einsum, ParsesTermsEllipsisAndImplicitOutput) {
  absl::StatusOr<EinsumEquation> e = ParseEinsum("...ij, ...jk -> ...ik");
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_EQ(e->inputs.size(), 2u);
  EXPECT_EQ(e->inputs[0].letters, "ij");
  EXPECT_EQ(e->inputs[0].ellipsis_at, 0);
  EXPECT_EQ(e->inputs[1].letters, "jk");
  ASSERT_TRUE(e->output.has_value());
  EXPECT_EQ(e->output->letters, "ik");
  EXPECT_EQ(e->output->ellipsis_at, 0);
  // "b...i": the ellipsis after the first letter; no "->": implicit output.
  e = ParseEinsum("b...i,bi");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->inputs[0].letters, "bi");
  EXPECT_EQ(e->inputs[0].ellipsis_at, 1);
  EXPECT_FALSE(e->inputs[1].has_ellipsis());
  EXPECT_FALSE(e->output.has_value());
}

TEST(Einsum, BadEquationsNameTheProblem) {
  absl::StatusOr<EinsumEquation> e = ParseEinsum("ij#,jk");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(std::string(e.status().message()).find("bad character '#'"),
            std::string::npos);
  EXPECT_FALSE(ParseEinsum("...i...,j").ok());  // two ellipses
  EXPECT_FALSE(ParseEinsum("i.j,j").ok());      // a stray '.'
}

}  // namespace
}  // namespace ridgeline::graph
