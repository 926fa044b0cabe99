// PlanFusion / ParseFusionKinds / ComputeGroupBoundary / the cycle check, on
// hand-built graphs. Byte counts are worked out by hand in the comments
// (fp32 = 4 bytes per element).
#include <algorithm>
#include <string>
#include <vector>

#include "engine/fusion.h"
#include "engine/fusion/group_builder.h"
#include "gtest/gtest.h"
#include "tests/what_if_graphs.h"

namespace ridgeline::engine {
namespace {

using ::ridgeline::testing::Attrs;
using ::ridgeline::testing::GraphBuilder;

std::vector<std::string> MemberNames(const graph::Graph& g,
                                     const FusionGroup& group) {
  std::vector<std::string> names;
  for (int m : group.members) names.push_back(g.node(m).name);
  return names;
}

double BoundaryBytes(const graph::Graph& g, const std::vector<int>& members) {
  const GroupBoundary b = ComputeGroupBoundary(g, members);
  double bytes = 0;
  for (int t : b.inputs) bytes += g.tensor(t).Bytes();
  for (int t : b.outputs) bytes += g.tensor(t).Bytes();
  return bytes;
}

TEST(ParseFusionKindsTest, AcceptsWordsAndCombinations) {
  EXPECT_FALSE(ParseFusionKinds("none")->any());
  FusionKinds all = *ParseFusionKinds("all");
  EXPECT_TRUE(all.epilogue && all.elementwise && all.attention);
  FusionKinds two = *ParseFusionKinds("Epilogue, attention");
  EXPECT_TRUE(two.epilogue);
  EXPECT_FALSE(two.elementwise);
  EXPECT_TRUE(two.attention);
  EXPECT_EQ(FusionKindsName(two), "epilogue,attention");
  EXPECT_EQ(FusionKindsName(all), "all");
  EXPECT_EQ(FusionKindsName({}), "none");
}

TEST(ParseFusionKindsTest, RejectsUnknownWords) {
  absl::StatusOr<FusionKinds> bad = ParseFusionKinds("epilogue,loops");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("loops"),
            std::string::npos);
  EXPECT_FALSE(ParseFusionKinds("").ok());
  EXPECT_FALSE(ParseFusionKinds("epilogue,").ok());
  EXPECT_FALSE(ParseFusionKinds("none,epilogue").ok());
}

// x[1,3,8,8] -> Conv(w[4,3,3,3], pad 1) -> [1,4,8,8] -> Add(b[1,4,1,1])
// -> Relu -> out.
graph::Graph ConvBiasRelu() {
  GraphBuilder b;
  int x = b.Input("x", {1, 3, 8, 8});
  int w = b.Weight("w", {4, 3, 3, 3});
  int bias = b.Weight("bias", {1, 4, 1, 1});
  int c = b.Value("c", {1, 4, 8, 8});
  int a = b.Value("a", {1, 4, 8, 8});
  int out = b.Value("out", {1, 4, 8, 8});
  b.Node("conv", "Conv", {x, w}, {c},
         Attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}},
                {"kernel_shape", std::vector<int64_t>{3, 3}}}));
  b.Node("add", "Add", {c, bias}, {a});
  b.Node("relu", "Relu", {a}, {out});
  b.Output(out);
  return b.Finish();
}

TEST(PlanFusionTest, ConvBiasReluIsOneEpilogue) {
  graph::Graph g = ConvBiasRelu();
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("epilogue"));
  ASSERT_EQ(plan.groups.size(), 1u);
  const FusionGroup& group = plan.groups[0];
  EXPECT_EQ(group.kind, FusionKind::kEpilogue);
  EXPECT_EQ(group.name, "epilogue:conv");
  EXPECT_EQ(MemberNames(g, group),
            (std::vector<std::string>{"conv", "add", "relu"}));
  // Reads x (1*3*8*8*4 = 768 B), w (4*3*3*3*4 = 432 B), bias (4*4 = 16 B);
  // writes only the Relu output (1*4*8*8*4 = 1024 B): 2240 B.
  const GroupBoundary boundary = ComputeGroupBoundary(g, group.members);
  EXPECT_EQ(boundary.inputs.size(), 3u);
  ASSERT_EQ(boundary.outputs.size(), 1u);
  EXPECT_EQ(g.tensor(boundary.outputs[0]).name, "out");
  EXPECT_DOUBLE_EQ(BoundaryBytes(g, group.members), 768 + 432 + 16 + 1024);
  EXPECT_TRUE(ValidateFusionPlan(g, plan).ok());
}

TEST(PlanFusionTest, NoneAndOtherKindsLeaveTheEpilogueAlone) {
  graph::Graph g = ConvBiasRelu();
  EXPECT_TRUE(PlanFusion(g, {})->groups.empty());
  // Elementwise alone takes Add + Relu (the Conv is not elementwise).
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("elementwise"));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(MemberNames(g, plan.groups[0]),
            (std::vector<std::string>{"add", "relu"}));
}

// x[1,64] -> Add(c[64]) -> Mul(s[]) -> Sigmoid -> Sub(x) -> out.
TEST(PlanFusionTest, ElementwiseChainReadsInputsOnceAndWritesTheEnd) {
  GraphBuilder b;
  int x = b.Input("x", {1, 64});
  int c = b.Weight("c", {64});
  int s = b.Weight("s", {});
  int t1 = b.Value("t1", {1, 64});
  int t2 = b.Value("t2", {1, 64});
  int t3 = b.Value("t3", {1, 64});
  int out = b.Value("out", {1, 64});
  b.Node("add", "Add", {x, c}, {t1});
  b.Node("mul", "Mul", {t1, s}, {t2});
  b.Node("sigmoid", "Sigmoid", {t2}, {t3});
  b.Node("sub", "Sub", {t3, x}, {out});
  b.Output(out);
  graph::Graph g = b.Finish();
  FusionPlan plan = *PlanFusion(g, FusionKinds::All());
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].kind, FusionKind::kElementwise);
  EXPECT_EQ(plan.groups[0].members.size(), 4u);
  // Reads x once although two members read it (256 B), c (256 B), s (4 B);
  // writes out (256 B): 772 B.
  EXPECT_DOUBLE_EQ(BoundaryBytes(g, plan.groups[0].members),
                   256 + 256 + 4 + 256);
}

// Decomposed RMSNorm over x[1,4,16]:
//   y = x / sqrt(mean(x^2, -1) + eps) * w
TEST(PlanFusionTest, DecomposedRmsNormIsOneGroup) {
  GraphBuilder b;
  int x = b.Input("x", {1, 4, 16});
  int two = b.Weight("two", {});
  int eps = b.Weight("eps", {});
  int w = b.Weight("w", {16});
  int sq = b.Value("sq", {1, 4, 16});
  int mean = b.Value("mean", {1, 4, 1});
  int var = b.Value("var", {1, 4, 1});
  int rms = b.Value("rms", {1, 4, 1});
  int norm = b.Value("norm", {1, 4, 16});
  int y = b.Value("y", {1, 4, 16});
  b.Node("pow", "Pow", {x, two}, {sq});
  b.Node("mean", "ReduceMean", {sq}, {mean},
         Attrs({{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{1}}}));
  b.Node("add_eps", "Add", {mean, eps}, {var});
  b.Node("sqrt", "Sqrt", {var}, {rms});
  b.Node("div", "Div", {x, rms}, {norm});
  b.Node("scale", "Mul", {norm, w}, {y});
  b.Output(y);
  graph::Graph g = b.Finish();
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("elementwise"));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].members.size(), 6u);
  // Reads x (64 elements, 256 B) once, the two scalars (4 + 4 B) and w
  // (64 B); writes y (256 B): 584 B. The squares, the mean and the rms stay
  // on chip.
  EXPECT_DOUBLE_EQ(BoundaryBytes(g, plan.groups[0].members),
                   256 + 4 + 4 + 64 + 256);
}

TEST(PlanFusionTest, ReductionWithoutKeepDimsIsNotTaken) {
  GraphBuilder b;
  int x = b.Input("x", {1, 4, 16});
  int r = b.Value("r", {1, 4, 16});
  int m = b.Value("m", {1, 4});
  b.Node("relu", "Relu", {x}, {r});
  b.Node("mean", "ReduceMean", {r}, {m},
         Attrs({{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{0}}}));
  b.Output(m);
  graph::Graph g = b.Finish();
  EXPECT_TRUE(PlanFusion(g, FusionKinds::All())->groups.empty());
}

// B=1, H=2, S=8, D=4 attention with its score path:
//   Kt = Transpose(K); S = Q @ Kt; S2 = S / 2; S3 = S2 + mask;
//   P = Softmax(S3); O = P @ V
graph::Graph AttentionPattern(bool scores_escape = false) {
  GraphBuilder b;
  int q = b.Input("q", {1, 2, 8, 4});
  int k = b.Input("k", {1, 2, 8, 4});
  int v = b.Input("v", {1, 2, 8, 4});
  int mask = b.Input("mask", {1, 1, 8, 8});
  int scale = b.Weight("scale", {});
  int kt = b.Value("kt", {1, 2, 4, 8});
  int s = b.Value("s", {1, 2, 8, 8});
  int s2 = b.Value("s2", {1, 2, 8, 8});
  int s3 = b.Value("s3", {1, 2, 8, 8});
  int p = b.Value("p", {1, 2, 8, 8});
  int o = b.Value("o", {1, 2, 8, 4});
  b.Node("k_t", "Transpose", {k}, {kt},
         Attrs({{"perm", std::vector<int64_t>{0, 1, 3, 2}}}));
  b.Node("qk", "MatMul", {q, kt}, {s});
  b.Node("scale", "Div", {s, scale}, {s2});
  b.Node("mask", "Add", {s2, mask}, {s3});
  b.Node("softmax", "Softmax", {s3}, {p}, Attrs({{"axis", int64_t{-1}}}));
  b.Node("av", "MatMul", {p, v}, {o});
  b.Output(o);
  if (scores_escape) b.Output(p);  // attention probabilities also returned
  return b.Finish();
}

TEST(PlanFusionTest, AttentionPatternNeverWritesScores) {
  graph::Graph g = AttentionPattern();
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("attention"));
  ASSERT_EQ(plan.groups.size(), 1u);
  const FusionGroup& group = plan.groups[0];
  EXPECT_EQ(group.kind, FusionKind::kAttention);
  EXPECT_EQ(group.name, "attention:qk");
  EXPECT_EQ(group.members.size(), 6u);
  // Reads Q, K, V (1*2*8*4*4 = 256 B each), the mask (1*1*8*8*4 = 256 B)
  // and the scale (4 B); writes O (256 B): 1284 B. None of the four
  // 1*2*8*8*4 = 512 B score tensors is written or read.
  EXPECT_DOUBLE_EQ(BoundaryBytes(g, group.members), 3 * 256 + 256 + 4 + 256);
  const GroupBoundary boundary = ComputeGroupBoundary(g, group.members);
  for (int t : boundary.outputs) EXPECT_EQ(g.tensor(t).name, "o");
}

TEST(PlanFusionTest, AttentionWhoseScoresAreNeededElsewhereIsNotFlash) {
  graph::Graph g = AttentionPattern(/*scores_escape=*/true);
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("attention"));
  EXPECT_TRUE(plan.groups.empty());
}

// Grouped-query attention as Llama-3 exports it: the product comes out
// per KV head and query group, [1, 1, 2, 8, 4] (1 KV head, 2 query heads),
// is reshaped to [1, 2, 8, 4] (a view) and transposed to [1, 8, 2, 4]
// (heads beside the hidden dim) before the output projection. Without the
// view the Transpose is taken into the attention kernel; it is also taken
// through it: 6 + 2 members, and the kernel writes the transposed output
// (256 B), never the product or its view. Reads Q (64 x 4 = 256 B), K and
// V (one KV head: 32 x 4 = 128 B each), the mask (256 B) and the scale
// (4 B); the Reshape's shape is a host constant, not read by the kernel:
// 256 + 2 x 128 + 256 + 4 + 256 = 1028 B.
TEST(PlanFusionTest, AttentionTakesTheOutputTransposeThroughAView) {
  GraphBuilder b;
  int q = b.Input("q", {1, 1, 2, 8, 4});
  int k = b.Input("k", {1, 1, 1, 8, 4});
  int v = b.Input("v", {1, 1, 1, 8, 4});
  int mask = b.Input("mask", {1, 1, 1, 8, 8});
  int scale = b.Weight("scale", {});
  int shape = b.Weight("shape", {4}, graph::DType::kInt64);
  int kt = b.Value("kt", {1, 1, 1, 4, 8});
  int s = b.Value("s", {1, 1, 2, 8, 8});
  int s2 = b.Value("s2", {1, 1, 2, 8, 8});
  int s3 = b.Value("s3", {1, 1, 2, 8, 8});
  int p = b.Value("p", {1, 1, 2, 8, 8});
  int o = b.Value("o", {1, 1, 2, 8, 4});
  int r = b.Value("r", {1, 2, 8, 4});
  int t = b.Value("t", {1, 8, 2, 4});
  b.Node("k_t", "Transpose", {k}, {kt},
         Attrs({{"perm", std::vector<int64_t>{0, 1, 2, 4, 3}}}));
  b.Node("qk", "MatMul", {q, kt}, {s});
  b.Node("scale", "Div", {s, scale}, {s2});
  b.Node("mask", "Add", {s2, mask}, {s3});
  b.Node("softmax", "Softmax", {s3}, {p}, Attrs({{"axis", int64_t{-1}}}));
  b.Node("av", "MatMul", {p, v}, {o});
  b.Node("o_reshape", "Reshape", {o, shape}, {r});
  b.Node("o_transpose", "Transpose", {r}, {t},
         Attrs({{"perm", std::vector<int64_t>{0, 2, 1, 3}}}));
  b.Output(t);
  graph::Graph g = b.Finish();
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("attention"));
  ASSERT_EQ(plan.groups.size(), 1u);
  const FusionGroup& group = plan.groups[0];
  EXPECT_EQ(group.members.size(), 8u);
  EXPECT_DOUBLE_EQ(BoundaryBytes(g, group.members),
                   256 + 2 * 128 + 256 + 4 + 256);
  const GroupBoundary boundary = ComputeGroupBoundary(g, group.members);
  ASSERT_EQ(boundary.outputs.size(), 1u);
  EXPECT_EQ(g.tensor(boundary.outputs[0]).name, "t");
}

// torchvision's Swin exports its window attention with the mask added
// between two Reshapes and a Dropout(training_mode = true, ratio = 0) after
// the Softmax: a copy of its input (the ONNX spec), so still one kernel. A
// ratio of 0.5 is a real dropout, whose scores must be written.
TEST(PlanFusionTest, AttentionThroughReshapedMasksAndAnIdentityDropout) {
  for (const double ratio : {0.0, 0.5}) {
    GraphBuilder b;
    int q = b.Input("q", {1, 2, 8, 4});
    int k = b.Input("k", {1, 2, 8, 4});
    int v = b.Input("v", {1, 2, 8, 4});
    int mask = b.Input("mask", {2, 8, 8});
    int shape3 = b.Weight("shape3", {3}, graph::DType::kInt64);
    int shape4 = b.Weight("shape4", {4}, graph::DType::kInt64);
    int rate = b.Weight("ratio", {});
    int mode = b.Weight("training_mode", {}, graph::DType::kBool);
    int kt = b.Value("kt", {1, 2, 4, 8});
    int s = b.Value("s", {1, 2, 8, 8});
    int s3 = b.Value("s3", {2, 8, 8});
    int sm = b.Value("sm", {2, 8, 8});
    int s4 = b.Value("s4", {1, 2, 8, 8});
    int p = b.Value("p", {1, 2, 8, 8});
    int d = b.Value("d", {1, 2, 8, 8});
    int o = b.Value("o", {1, 2, 8, 4});
    b.Node("k_t", "Transpose", {k}, {kt},
           Attrs({{"perm", std::vector<int64_t>{0, 1, 3, 2}}}));
    b.Node("qk", "MatMul", {q, kt}, {s});
    b.Node("to3", "Reshape", {s, shape3}, {s3});
    b.Node("mask", "Add", {s3, mask}, {sm});
    b.Node("to4", "Reshape", {sm, shape4}, {s4});
    b.Node("softmax", "Softmax", {s4}, {p}, Attrs({{"axis", int64_t{-1}}}));
    b.Node("dropout", "Dropout", {p, rate, mode}, {d});
    b.Node("av", "MatMul", {d, v}, {o});
    b.Output(o);
    graph::Graph g = b.Finish();
    g.mutable_tensor(rate).float_values = std::vector<double>{ratio};
    g.mutable_tensor(mode).int_values = std::vector<int64_t>{1};
    FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("attention"));
    if (ratio == 0) {
      ASSERT_EQ(plan.groups.size(), 1u);
      EXPECT_EQ(plan.groups[0].members.size(), 8u);  // every node
    } else {
      EXPECT_TRUE(plan.groups.empty());
    }
  }
}

// MaxViT's attention: both products are Einsums.
TEST(PlanFusionTest, AttentionWithEinsumProducts) {
  GraphBuilder b;
  int q = b.Input("q", {1, 2, 8, 4});
  int k = b.Input("k", {1, 2, 8, 4});
  int v = b.Input("v", {1, 2, 8, 4});
  int s = b.Value("s", {1, 2, 8, 8});
  int p = b.Value("p", {1, 2, 8, 8});
  int o = b.Value("o", {1, 2, 8, 4});
  b.Node("qk", "Einsum", {q, k}, {s},
         Attrs({{"equation", std::string("bhid,bhjd->bhij")}}));
  b.Node("softmax", "Softmax", {s}, {p}, Attrs({{"axis", int64_t{-1}}}));
  b.Node("av", "Einsum", {p, v}, {o},
         Attrs({{"equation", std::string("bhij,bhjd->bhid")}}));
  b.Output(o);
  graph::Graph g = b.Finish();
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("attention"));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].members.size(), 3u);
}

// x -> Relu -> a; a -> MatMul(W) -> m; Add(a, m) -> y. Relu and Add are
// both elementwise and adjacent, but one group {Relu, Add} would sit on the
// cycle group -> MatMul -> group.
TEST(PlanFusionTest, DoesNotFormAGroupThatWouldCreateACycle) {
  GraphBuilder b;
  int x = b.Input("x", {4, 4});
  int w = b.Weight("w", {4, 4});
  int a = b.Value("a", {4, 4});
  int m = b.Value("m", {4, 4});
  int y = b.Value("y", {4, 4});
  b.Node("relu", "Relu", {x}, {a});
  b.Node("matmul", "MatMul", {a, w}, {m});
  b.Node("add", "Add", {a, m}, {y});
  b.Output(y);
  graph::Graph g = b.Finish();
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("elementwise"));
  EXPECT_TRUE(plan.groups.empty());
  fusion::GroupBuilder builder(g);
  EXPECT_FALSE(builder.CanUnite({*g.FindNode("relu"), *g.FindNode("add")}));
  EXPECT_TRUE(builder.CanUnite({*g.FindNode("matmul"), *g.FindNode("add")}));
  // The hand-made plan is rejected by the validator.
  FusionPlan bad;
  bad.groups.push_back({.name = "bad",
                        .kind = FusionKind::kElementwise,
                        .anchor = *g.FindNode("relu"),
                        .members = {*g.FindNode("relu"), *g.FindNode("add")}});
  EXPECT_FALSE(ValidateFusionPlan(g, bad).ok());
  // With the epilogue rule the MatMul takes the residual Add instead: the
  // Add's other operand `a` comes from before the group.
  FusionPlan epilogue = *PlanFusion(g, *ParseFusionKinds("epilogue"));
  ASSERT_EQ(epilogue.groups.size(), 1u);
  EXPECT_EQ(MemberNames(g, epilogue.groups[0]),
            (std::vector<std::string>{"matmul", "add"}));
}

// a1 -> a2, b1 -> b2, a1 -> b2, b1 -> a2. Groups {a1,a2} and {b1,b2} are
// each convex, but together they form the cycle A -> B -> A; the builder
// must see it through the other group.
TEST(GroupBuilderTest, SeesCyclesThroughOtherGroups) {
  GraphBuilder b;
  int x = b.Input("x", {4});
  int ta1 = b.Value("ta1", {4});
  int tb1 = b.Value("tb1", {4});
  int ta2 = b.Value("ta2", {4});
  int tb2 = b.Value("tb2", {4});
  b.Node("a1", "Relu", {x}, {ta1});
  b.Node("b1", "Relu", {x}, {tb1});
  b.Node("a2", "Add", {ta1, tb1}, {ta2});
  b.Node("b2", "Add", {tb1, ta1}, {tb2});
  b.Output(ta2);
  b.Output(tb2);
  graph::Graph g = b.Finish();
  const int a1 = *g.FindNode("a1"), a2 = *g.FindNode("a2");
  const int b1 = *g.FindNode("b1"), b2 = *g.FindNode("b2");
  fusion::GroupBuilder builder(g);
  ASSERT_TRUE(builder.CanUnite({b1, b2}));
  builder.Unite({b1, b2}, FusionKind::kElementwise);
  EXPECT_FALSE(builder.CanUnite({a1, a2}));
  // And the validator rejects the pair of groups.
  FusionPlan bad;
  bad.groups.push_back({.name = "A", .members = {a1, a2}});
  bad.groups.push_back({.name = "B", .members = {b1, b2}});
  absl::Status s = ValidateFusionPlan(g, bad);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("cycle"), std::string::npos);
  // The planner forms one valid partition.
  FusionPlan plan = *PlanFusion(g, FusionKinds::All());
  EXPECT_TRUE(ValidateFusionPlan(g, plan).ok());
}

// x[1,64] -> Add(c[64]) -> t -> Relu -> r. t is also read by a MatMul
// outside the group, so the group writes it.
TEST(PlanFusionTest, IntermediateConsumedOutsideIsWritten) {
  GraphBuilder b;
  int x = b.Input("x", {1, 64});
  int c = b.Weight("c", {64});
  int w = b.Weight("w", {64, 8});
  int t = b.Value("t", {1, 64});
  int r = b.Value("r", {1, 64});
  int m = b.Value("m", {1, 8});
  b.Node("add", "Add", {x, c}, {t});
  b.Node("relu", "Relu", {t}, {r});
  b.Node("proj", "MatMul", {t, w}, {m});
  b.Output(r);
  b.Output(m);
  graph::Graph g = b.Finish();
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("elementwise"));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(MemberNames(g, plan.groups[0]),
            (std::vector<std::string>{"add", "relu"}));
  const GroupBoundary boundary =
      ComputeGroupBoundary(g, plan.groups[0].members);
  ASSERT_EQ(boundary.outputs.size(), 2u);
  // Reads x (256 B) and c (256 B); writes t (256 B, read by the MatMul) and
  // r (256 B): 1024 B.
  EXPECT_DOUBLE_EQ(BoundaryBytes(g, plan.groups[0].members), 4 * 256);
}

// The epilogue writes one tensor: MatMul -> Add(residual) -> Cast, where the
// Add's output is also needed outside. The Cast is dropped from the
// epilogue (else both the sum and the cast would be written).
TEST(PlanFusionTest, EpilogueKeepsOneOutput) {
  GraphBuilder b;
  int x = b.Input("x", {1, 16});
  int res = b.Input("res", {1, 16});
  int w = b.Weight("w", {16, 16});
  int m = b.Value("m", {1, 16});
  int h = b.Value("h", {1, 16});
  int hc = b.Value("hc", {1, 16}, graph::DType::kFloat16);
  b.Node("proj", "MatMul", {x, w}, {m});
  b.Node("residual", "Add", {m, res}, {h});
  b.Node("cast", "Cast", {h}, {hc}, Attrs({{"to", int64_t{10}}}));
  b.Output(h);
  b.Output(hc);
  graph::Graph g = b.Finish();
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("epilogue"));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(MemberNames(g, plan.groups[0]),
            (std::vector<std::string>{"proj", "residual"}));
}

// Erf GELU after a MatMul: y = m * 0.5 * (1 + erf(m / sqrt 2)).
TEST(PlanFusionTest, EpilogueTakesTheErfGeluPattern) {
  GraphBuilder b;
  int x = b.Input("x", {2, 8});
  int w = b.Weight("w", {8, 8});
  int sqrt2 = b.Weight("sqrt2", {});
  int one = b.Weight("one", {});
  int half = b.Weight("half", {});
  int m = b.Value("m", {2, 8});
  int d = b.Value("d", {2, 8});
  int e = b.Value("e", {2, 8});
  int p = b.Value("p", {2, 8});
  int q = b.Value("q", {2, 8});
  int y = b.Value("y", {2, 8});
  b.Node("fc", "MatMul", {x, w}, {m});
  b.Node("div", "Div", {m, sqrt2}, {d});
  b.Node("erf", "Erf", {d}, {e});
  b.Node("add1", "Add", {e, one}, {p});
  b.Node("mul", "Mul", {m, p}, {q});
  b.Node("half", "Mul", {q, half}, {y});
  b.Output(y);
  graph::Graph g = b.Finish();
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("epilogue"));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].members.size(), 6u);
  // Reads x (64 B), w (256 B), three scalars (12 B); writes y (64 B).
  EXPECT_DOUBLE_EQ(BoundaryBytes(g, plan.groups[0].members),
                   64 + 256 + 12 + 64);
}

// Views inside a group alias their input: Add -> Reshape -> Relu reads x
// and c and writes only the Relu output; a Reshape of a group input that
// escapes costs nothing.
TEST(PlanFusionTest, ViewsAreAbsorbed) {
  GraphBuilder b;
  int x = b.Input("x", {2, 8});
  int c = b.Weight("c", {8});
  int shape = b.Weight("shape", {2}, graph::DType::kInt64);
  int a = b.Value("a", {2, 8});
  int ar = b.Value("ar", {16});
  int y = b.Value("y", {16});
  b.Node("add", "Add", {x, c}, {a});
  b.Node("reshape", "Reshape", {a, shape}, {ar});
  b.Node("relu", "Relu", {ar}, {y});
  b.Output(y);
  graph::Graph g = b.Finish();
  FusionPlan plan = *PlanFusion(g, FusionKinds::All());
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].members.size(), 3u);
  // x 64 B + c 32 B in, y 64 B out.
  EXPECT_DOUBLE_EQ(BoundaryBytes(g, plan.groups[0].members), 64 + 32 + 64);
}

// A QDQ-quantized MatMul: DequantizeLinear of the int8 weight and of the
// int8 activation feed only the MatMul, so the epilogue reads the int8
// tensors (the kernel dequantizes on the fly).
TEST(PlanFusionTest, EpilogueTakesDequantizePrologue) {
  GraphBuilder b;
  int xq = b.Input("xq", {4, 32}, graph::DType::kInt8);
  int wq = b.Weight("wq", {32, 16}, graph::DType::kInt8);
  int sx = b.Weight("sx", {});
  int sw = b.Weight("sw", {});
  int x = b.Value("x", {4, 32});
  int w = b.Value("w", {32, 16});
  int y = b.Value("y", {4, 16});
  int r = b.Value("r", {4, 16});
  b.Node("dq_x", "DequantizeLinear", {xq, sx}, {x});
  b.Node("dq_w", "DequantizeLinear", {wq, sw}, {w});
  b.Node("mm", "MatMul", {x, w}, {y});
  b.Node("relu", "Relu", {y}, {r});
  b.Output(r);
  graph::Graph g = b.Finish();
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("epilogue"));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].members.size(), 4u);
  // int8 x (128 B) and w (512 B), two fp32 scales (8 B); fp32 r (256 B).
  EXPECT_DOUBLE_EQ(BoundaryBytes(g, plan.groups[0].members),
                   128 + 512 + 8 + 256);
}

TEST(PlanFusionTest, ContribAttentionIsAGroupOfItsOwn) {
  GraphBuilder b;
  int q = b.Input("q", {1, 8, 64});
  int k = b.Input("k", {1, 8, 64});
  int v = b.Input("v", {1, 8, 64});
  int o = b.Value("o", {1, 8, 64});
  graph::Node mha = Attrs({{"num_heads", int64_t{4}}});
  mha.domain = "com.microsoft";
  b.Node("mha", "MultiHeadAttention", {q, k, v}, {o}, mha);
  b.Output(o);
  graph::Graph g = b.Finish();
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("attention"));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].name, "attention:mha");
  // Priced as flash attention: Q, K, V in, O out (4 * 2 KiB).
  EXPECT_DOUBLE_EQ(BoundaryBytes(g, plan.groups[0].members), 4 * 8 * 64 * 4);
}

}  // namespace
}  // namespace ridgeline::engine
