// The counter registry itself: lookup by (domain, op), unknown ops, unknown
// shapes, re-pricing through a custom TensorPricer, and control-flow bodies.
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "engine/counter_registry.h"
#include "engine/counters/common.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/shapes/registry.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using graph::DType;
using testing::CounterGraph;

TEST(CounterRegistryTest, UnknownOpCountsBytesOnly) {
  CounterGraph g;
  int x = g.Input("x", {4});
  int fancy = g.Op("FancyOp", {x}, {{4}}, {}, "my.domain");
  int no_such = g.Op("NoSuchOp", {x}, {{4}}, {}, "ai.onnx.ml");
  for (int n : {fancy, no_such}) {
    Cost c = g.Count(n);
    EXPECT_TRUE(c.unknown);
    EXPECT_DOUBLE_EQ(c.Flops(2), 0);
    EXPECT_DOUBLE_EQ(c.bytes_read, 16);
    EXPECT_DOUBLE_EQ(c.bytes_written, 16);
    EXPECT_FALSE(c.note.empty());
  }
}

TEST(CounterRegistryTest, UnknownShapeIsAnErrorNamingNodeAndTensor) {
  CounterGraph g;
  int x = g.UnknownInput("mystery");
  int relu = g.Op("Relu", {x}, {{4}}, {}, "", DType::kFloat32, "the_relu");
  absl::StatusOr<Cost> c = g.TryCount(relu);
  ASSERT_FALSE(c.ok());
  const std::string_view message = MessageOf(c.status());
  EXPECT_NE(message.find("the_relu"), std::string_view::npos) << message;
  EXPECT_NE(message.find("mystery"), std::string_view::npos) << message;
}

TEST(CounterRegistryTest, AiOnnxDomainIsTheDefaultDomain) {
  const CounterRegistry& r = CounterRegistry::Default();
  EXPECT_TRUE(r.Has("", "Conv"));
  EXPECT_TRUE(r.Has("ai.onnx", "Conv"));
  EXPECT_TRUE(r.Has("com.microsoft", "MatMulNBits"));
  EXPECT_FALSE(r.Has("com.microsoft", "Conv"));
  CounterGraph g;
  int x = g.Input("x", {4});
  int relu = g.Op("Relu", {x}, {{4}}, {}, "ai.onnx");
  Cost c = g.Count(relu);
  EXPECT_FALSE(c.unknown);
  EXPECT_DOUBLE_EQ(c.other_flops, 4);
}

TEST(CounterRegistryTest, CustomRegistration) {
  CounterRegistry r;
  r.Register("x.y", "Thing", [](const CountContext&) -> absl::StatusOr<Cost> {
    Cost c;
    c.macs = 42;
    return c;
  });
  CounterGraph g;
  int x = g.Input("x", {4});
  int n = g.Op("Thing", {x}, {{4}}, {}, "x.y");
  ASSERT_TRUE(g.graph().Finalize().ok());
  absl::StatusOr<Cost> c = r.Count(g.graph(), n, TensorPricer());
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->macs, 42);
}

// Prices every floating tensor at 2 bytes (an fp16 what-if).
class Fp16Pricer : public TensorPricer {
 public:
  double ElementBytes(const graph::Graph& graph,
                      const graph::Tensor& tensor) const override {
    return graph::IsFloating(tensor.dtype)
               ? 2.0
               : TensorPricer::ElementBytes(graph, tensor);
  }
};

// Prices weights at half a byte (an int4 weight-only what-if).
class Int4WeightPricer : public TensorPricer {
 public:
  double ElementBytes(const graph::Graph& graph,
                      const graph::Tensor& tensor) const override {
    return tensor.is_weight() ? 0.5 : TensorPricer::ElementBytes(graph, tensor);
  }
};

TEST(CounterRegistryTest, CustomPricerRepricesEveryTensor) {
  CounterGraph g;
  int x = g.Input("x", {2, 8, 17, 17});
  int w = g.Weight("w", {12, 4, 3, 3});
  int b = g.Weight("b", {12});
  int conv = g.Op("Conv", {x, w, b}, {{2, 12, 8, 8}},
                  {{"group", int64_t{2}},
                   {"dilations", std::vector<int64_t>{2, 2}},
                   {"strides", std::vector<int64_t>{2, 2}},
                   {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  Cost c = g.Count(conv, Fp16Pricer());
  // (4624 + 432 + 12) elements * 2 bytes; 1536 outputs * 2.
  EXPECT_DOUBLE_EQ(c.bytes_read, 5068 * 2);
  EXPECT_DOUBLE_EQ(c.weight_bytes, 444 * 2);
  EXPECT_DOUBLE_EQ(c.bytes_written, 1536 * 2);
  EXPECT_DOUBLE_EQ(c.macs, 55296);  // pricing never changes the work

  CounterGraph h;
  int a = h.Input("a", {4, 8});
  int m = h.Weight("m", {8, 16});
  int mm = h.Op("MatMul", {a, m}, {{4, 16}});
  Cost q = h.Count(mm, Int4WeightPricer());
  // A 32 floats * 4 = 128; weight 128 elements * 0.5 = 64.
  EXPECT_DOUBLE_EQ(q.bytes_read, 192);
  EXPECT_DOUBLE_EQ(q.weight_bytes, 64);
}

TEST(CounterRegistryTest, CountContextHelpers) {
  CounterGraph g;
  int x = g.Input("x", {1, 2, 4, 4});
  int w = g.Weight("w", {3, 2, 1, 1});
  int conv = g.Op("Conv", {x, w, -1}, {{1, 3, 4, 4}});
  ASSERT_TRUE(g.graph().Finalize().ok());
  TensorPricer pricer;
  const CountContext ctx{g.graph(), g.graph().node(conv), pricer};
  EXPECT_EQ(ctx.input(2), nullptr);
  EXPECT_DOUBLE_EQ(ctx.InputBytes(0), 32 * 4);
  EXPECT_DOUBLE_EQ(ctx.InputBytes(2), 0);
  EXPECT_DOUBLE_EQ(ctx.AllInputBytes(), (32 + 6) * 4);
  EXPECT_DOUBLE_EQ(ctx.WeightInputBytes(), 6 * 4);
  EXPECT_DOUBLE_EQ(ctx.AllOutputBytes(), 48 * 4);
  EXPECT_DOUBLE_EQ(ctx.OutputBytes(0), 48 * 4);
}

// Adds a Relu on `x` (shape [4]) inside the body `attribute` of `parent`.
int AddBodyRelu(graph::Graph* g, int parent, const std::string& attribute,
                int x, const std::string& name) {
  int out = *g->AddTensor({.name = name + "_out",
                           .dtype = DType::kFloat32,
                           .dims = {4},
                           .shape_known = true});
  graph::Node node{.name = name,
                   .op_type = "Relu",
                   .inputs = {x},
                   .outputs = {out},
                   .parent = parent,
                   .parent_attribute = attribute};
  return *g->AddNode(std::move(node));
}

TEST(CounterRegistryTest, LoopBodyCountsOncePerIteration) {
  CounterGraph g;
  int x = g.Input("x", {4});
  int trips = g.IntConstant("trips", {10}, /*scalar=*/true);
  int cond = g.Input("cond", {}, DType::kBool);
  int loop = g.Op("Loop", {trips, cond, x}, {{4}});
  int body = AddBodyRelu(&g.graph(), loop, "body", x, "body_relu");
  int unknown_trips = g.Input("m", {}, DType::kInt64);
  int loop2 = g.Op("Loop", {unknown_trips, cond, x}, {{4}});
  int body2 = AddBodyRelu(&g.graph(), loop2, "body", x, "body2_relu");

  Cost container = g.Count(loop);
  EXPECT_TRUE(container.view);
  EXPECT_DOUBLE_EQ(container.Bytes(), 0);
  Cost c = g.Count(body);
  EXPECT_DOUBLE_EQ(c.other_flops, 4 * 10);  // 4 Relus x 10 trips
  EXPECT_DOUBLE_EQ(c.bytes_read, 16 * 10);
  EXPECT_TRUE(c.note.empty());
  Cost once = g.Count(body2);
  EXPECT_DOUBLE_EQ(once.other_flops, 4);  // unknown: once
  EXPECT_NE(once.note.find("trip count"), std::string::npos);
}

TEST(CounterRegistryTest, IfCountsOnlyTheTakenBranchWhenFolded) {
  CounterGraph g;
  int x = g.Input("x", {4});
  int yes = g.IntConstant("yes", {1}, /*scalar=*/true, DType::kBool);
  int iff = g.Op("If", {yes}, {{4}});
  int then_relu = AddBodyRelu(&g.graph(), iff, "then_branch", x, "then_relu");
  int else_relu = AddBodyRelu(&g.graph(), iff, "else_branch", x, "else_relu");
  int unknown = g.Input("c", {}, DType::kBool);
  int iff2 = g.Op("If", {unknown}, {{4}});
  int both = AddBodyRelu(&g.graph(), iff2, "else_branch", x, "both_relu");
  EXPECT_DOUBLE_EQ(g.Count(then_relu).other_flops, 4);
  EXPECT_DOUBLE_EQ(g.Count(else_relu).other_flops, 0);
  Cost c = g.Count(both);
  EXPECT_DOUBLE_EQ(c.other_flops, 4);
  EXPECT_NE(c.note.find("both branches"), std::string::npos);
}

TEST(CounterRegistryTest, ScanBodyCountsOncePerSlice) {
  CounterGraph g;
  int x = g.Input("x", {4});
  int seq = g.Input("seq", {5, 4});
  int scan = g.Op("Scan", {x, seq}, {{4}}, {{"num_scan_inputs", int64_t{1}}});
  g.graph().mutable_node(scan).opset = 16;
  int body = AddBodyRelu(&g.graph(), scan, "body", x, "scan_relu");
  EXPECT_DOUBLE_EQ(g.Count(body).other_flops, 4 * 5);
}

// An op outside the default domain has no ONNX shape inference behind it:
// a counter without a shape function of ours leaves the node's outputs, and
// everything after them, unresolved (a QOperator ResNet's
// com.microsoft:QLinearGlobalAveragePool did, 2026-12-08).
TEST(CounterRegistryTest, EveryContribCounterHasAShapeFunction) {
  const importers::shapes::ShapeRegistry& shapes =
      importers::shapes::DefaultShapeRegistry();
  std::vector<std::string> missing;
  for (const auto& [domain, op] : CounterRegistry::Default().Ops()) {
    // ONNX's own domains have ONNX's schema inference behind them.
    if (domain.empty() || domain == "ai.onnx.ml") continue;
    if (shapes.Find(domain, op) == nullptr)
      missing.push_back(domain + ":" + op);
  }
  EXPECT_TRUE(missing.empty()) << absl::StrJoin(missing, ", ");
}

// The other way: a contrib op whose outputs resolve is counted (no "no
// counter" warning for an op the importer knows), but for QMoE: its expert
// weights are packed by expert_weight_bits, which the MoE counter does not
// unpack; it keeps the "no counter" warning (its bytes, no FLOPs).
TEST(CounterRegistryTest, EveryContribShapeFunctionHasACounter) {
  std::vector<std::string> missing;
  for (const std::string& op :
       importers::shapes::DefaultShapeRegistry().Ops("com.microsoft")) {
    if (op == "QMoE") continue;
    if (!CounterRegistry::Default().Has("com.microsoft", op)) {
      missing.push_back(op);
    }
  }
  EXPECT_TRUE(missing.empty()) << absl::StrJoin(missing, ", ");
}

}  // namespace
}  // namespace ridgeline::engine
