// L2 residency (engine/l2.h) and how the timing function charges the bytes
// the L2 serves (engine/timing.h). Expected values are worked out by hand in
// the comments.
#include "engine/l2.h"

#include <string>
#include <vector>

#include "engine/analysis.h"
#include "engine/counter_registry.h"
#include "engine/hardware.h"
#include "engine/timing.h"
#include "gmock/gmock.h"
#include "graph/graph.h"
#include "gtest/gtest.h"
#include "tests/engine_test_util.h"
#include "zoo/hardware_catalog.h"

namespace ridgeline::engine {
namespace {

using testing::AddKnownTensor;
using testing::AddPlainNode;
using ::testing::HasSubstr;
using testing::RoundPricing;

TEST(L2Timing, ServedBytesMoveAtTheL2Factor) {
  // RoundPricing: 1e11 B/s at memory efficiency 0.5, 2 us per memory
  // kernel, 1 us gap.
  // 1e6 B at 5e10 B/s = 20 us from DRAM. Half from the L2: 10 us + 10 us /
  // 2.5 = 14 us; all from the L2: 8 us. Plus 2 us fixed and 1 us gap.
  const Pricing p = RoundPricing();
  KernelWork w;
  w.kind = KernelClass::kElementwise;
  w.bytes = 1e6;
  EXPECT_NEAR(TimeKernel(w, p).t_memory_s, 20e-6, 1e-15);
  w.l2_activation_share = 0.5;
  EXPECT_NEAR(TimeKernel(w, p).t_memory_s, 14e-6, 1e-15);
  EXPECT_NEAR(L2Bytes(w), 5e5, 1e-9);
  w.l2_activation_share = 1;
  EXPECT_NEAR(TimeKernel(w, p).t_memory_s, 8e-6, 1e-15);
  EXPECT_NEAR(TimeKernel(w, p).latency_s, 11e-6, 1e-15);
}

TEST(L2Timing, WeightsAndActivationsAreSplitApart) {
  // A GEMV: 1e6 B of which 8e5 weights. Activations (2e5 B) all from the
  // L2: 2e5 / (5e10 * 2.5) = 1.6 us; weights from DRAM: 8e5 / 5e10 = 16 us;
  // 17.6 us. With the weights resident too: 1e6 / 1.25e11 = 8 us.
  const Pricing p = RoundPricing();
  KernelWork w;
  w.kind = KernelClass::kMatrix;
  w.matrix_flops = 2e3;
  w.bytes = 1e6;
  w.weight_bytes = 8e5;
  w.l2_activation_share = 1;
  EXPECT_NEAR(TimeKernel(w, p).t_memory_s, 17.6e-6, 1e-15);
  EXPECT_NEAR(L2Bytes(w), 2e5, 1e-9);
  w.l2_weights = true;
  EXPECT_NEAR(TimeKernel(w, p).t_memory_s, 8e-6, 1e-15);
  EXPECT_NEAR(L2Bytes(w), 1e6, 1e-9);
}

TEST(L2Residency, WeightsStayWhenTheWholeWorkingSetFits) {
  EXPECT_TRUE(WeightsStayInL2(25e6, 2e6, 48e6));
  EXPECT_FALSE(WeightsStayInL2(47e6, 2e6, 48e6));  // 49 MB > 48 MB
  EXPECT_FALSE(WeightsStayInL2(1e6, 0, 0));        // no L2
  EXPECT_FALSE(WeightsStayInL2(0, 1e6, 48e6));     // no weights
}

TEST(L2Residency, AnInferenceTouchesAnEmbeddingsGatheredRowsOnly) {
  // E [100, 10] fp32 (4000 B) is read only by a Gather of 3 rows: 3 x 10 x 4
  // = 120 B (the Gather's weight_bytes, as its counter gives them). W
  // [10, 10] (400 B) feeds a MatMul: all of it. T [10, 10] (400 B) is
  // gathered and also multiplied (a tied embedding): all of it. 920 B.
  using graph::DType;
  using graph::TensorKind;
  graph::Graph g;
  auto tensor = [&](const char* name, TensorKind kind, graph::Dims dims,
                    DType dtype) {
    return AddKnownTensor(g, name, dtype, std::move(dims), kind);
  };
  const int ids = tensor("ids", TensorKind::kGraphInput, {3}, DType::kInt64);
  const int e =
      tensor("E", TensorKind::kInitializer, {100, 10}, DType::kFloat32);
  const int w =
      tensor("W", TensorKind::kInitializer, {10, 10}, DType::kFloat32);
  const int t =
      tensor("T", TensorKind::kInitializer, {10, 10}, DType::kFloat32);
  const int x = tensor("x", TensorKind::kActivation, {3, 10}, DType::kFloat32);
  const int y = tensor("y", TensorKind::kActivation, {3, 10}, DType::kFloat32);
  const int u = tensor("u", TensorKind::kActivation, {3, 10}, DType::kFloat32);
  const int v = tensor("v", TensorKind::kActivation, {3, 10}, DType::kFloat32);
  AddPlainNode(g, "gather_e", "Gather", {e, ids}, {x});
  AddPlainNode(g, "matmul_w", "MatMul", {x, w}, {y});
  AddPlainNode(g, "gather_t", "Gather", {t, ids}, {u});
  AddPlainNode(g, "matmul_t", "MatMul", {u, t}, {v});
  g.MarkOutput(y);
  g.MarkOutput(v);
  ASSERT_TRUE(g.Finalize().ok());
  std::vector<LayerResult> layers(4);
  std::vector<int> layer_of(g.nodes().size(), -1);
  for (int n = 0; n < 4; ++n) {
    layers[n].node = n;
    layer_of[n] = n;
  }
  layers[0].cost.weight_bytes = 120;  // 3 rows of E
  layers[1].cost.weight_bytes = 400;
  layers[2].cost.weight_bytes = 120;  // 3 rows of T
  layers[3].cost.weight_bytes = 400;
  EXPECT_DOUBLE_EQ(TouchedWeightBytes(g, TensorPricer(), layer_of, layers),
                   920);
}

TEST(L2Residency, ABlockQuantizedEmbeddingCountsItsGatheredRowsOnly) {
  // Q [100, 5] uint8 (4-bit rows of 10, 500 B) read only by a
  // com.microsoft GatherBlockQuantized as its data: of Q an inference
  // touches the layer's weight_bytes (15 B here: 3 rows of 5 B), at most
  // Q; S [100, 1] fp16 scales (200 B), an input of the same node but not
  // its data, count in full. 15 + 200 = 215 B.
  using graph::DType;
  using graph::TensorKind;
  graph::Graph g;
  const int ids =
      AddKnownTensor(g, "ids", DType::kInt64, {3}, TensorKind::kGraphInput);
  const int q =
      AddKnownTensor(g, "Q", DType::kUInt8, {100, 5}, TensorKind::kInitializer);
  const int scales = AddKnownTensor(g, "S", DType::kFloat16, {100, 1},
                                    TensorKind::kInitializer);
  const int x =
      AddKnownTensor(g, "x", DType::kFloat16, {3, 10}, TensorKind::kActivation);
  (void)g.AddNode({.name = "gbq",
                   .op_type = "GatherBlockQuantized",
                   .domain = "com.microsoft",
                   .inputs = {q, ids, scales},
                   .outputs = {x}});
  g.MarkOutput(x);
  ASSERT_TRUE(g.Finalize().ok());
  std::vector<LayerResult> layers(1);
  layers[0].node = 0;
  layers[0].cost.weight_bytes = 15;
  std::vector<int> layer_of = {0};
  EXPECT_DOUBLE_EQ(TouchedWeightBytes(g, TensorPricer(), layer_of, layers),
                   215);
}

// x -> a -> y -> r (view) -> yv -> b -> z -> c(z, y) -> w (graph output),
// every tensor 1000 fp32 = 4000 B; kernels a, b, c in that order; c also
// reads y. Kernel bytes: a 8000, b 8000, c 12000.
class ChainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto tensor = [&](const char* name, graph::TensorKind kind) {
      return *g_.AddTensor({.name = name,
                            .dtype = graph::DType::kFloat32,
                            .dims = {1000},
                            .shape_known = true,
                            .kind = kind});
    };
    const int x = tensor("x", graph::TensorKind::kGraphInput);
    const int y = tensor("y", graph::TensorKind::kActivation);
    const int yv = tensor("yv", graph::TensorKind::kActivation);
    const int z = tensor("z", graph::TensorKind::kActivation);
    const int w = tensor("w", graph::TensorKind::kActivation);
    (void)g_.AddNode(
        {.name = "a", .op_type = "Relu", .inputs = {x}, .outputs = {y}});
    (void)g_.AddNode(
        {.name = "r", .op_type = "Identity", .inputs = {y}, .outputs = {yv}});
    (void)g_.AddNode(
        {.name = "b", .op_type = "Relu", .inputs = {yv}, .outputs = {z}});
    (void)g_.AddNode(
        {.name = "c", .op_type = "Add", .inputs = {z, y}, .outputs = {w}});
    g_.MarkOutput(w);
    ASSERT_TRUE(g_.Finalize().ok());
    for (int n = 0; n < static_cast<int>(g_.nodes().size()); ++n) {
      LayerResult l;
      l.node = n;
      l.name = g_.node(n).name;
      if (l.name != "r") {
        l.kernel = static_cast<int>(kernels_.size());
        KernelResult k;
        k.name = l.name;
        k.layers = {static_cast<int>(layers_.size())};
        k.work.bytes = l.name == "c" ? 12000 : 8000;
        kernels_.push_back(k);
      }
      layers_.push_back(l);
    }
    ASSERT_EQ(kernels_.size(), 3u);
  }

  std::vector<double> Shares(double l2_bytes) {
    AssignL2Residency(g_, TensorPricer(), l2_bytes, false, false, layers_,
                      &kernels_);
    std::vector<double> out;
    for (const KernelResult& k : kernels_) {
      out.push_back(k.work.l2_activation_share);
    }
    return out;
  }

  graph::Graph g_;
  std::vector<LayerResult> layers_;
  std::vector<KernelResult> kernels_;
};

TEST_F(ChainTest, EverythingButInputsAndOutputsStaysInALargeL2) {
  // L2 20000 B. b reads y (through the view) 4000 B after a wrote it: hit.
  // c reads y with b's 8000 B in between: 4000 + 8000 <= 20000, hit; so y's
  // write stays. a: x from DRAM, y kept: 4000 / 8000. b: y hit, z (read by
  // c right after) kept: 1. c: z and y hit, w a graph output: 8000 / 12000.
  EXPECT_THAT(Shares(20000),
              ::testing::ElementsAre(0.5, 1.0, ::testing::DoubleEq(2.0 / 3)));
}

TEST_F(ChainTest, ReuseDistanceDecidesEachRead) {
  // L2 10000 B: c's read of y (4000 + 8000 = 12000 B) misses, so a's write
  // of y goes to DRAM (0); b still hits y and keeps z (1); c hits z only:
  // 4000 / 12000.
  EXPECT_THAT(Shares(10000),
              ::testing::ElementsAre(0.0, 1.0, ::testing::DoubleEq(1.0 / 3)));
  // L2 3000 B: no 4000 B tensor fits.
  EXPECT_THAT(Shares(3000), ::testing::ElementsAre(0.0, 0.0, 0.0));
}

TEST_F(ChainTest, ResidentWeightsMarkOnlyKernelsWithWeights) {
  kernels_[1].work.weight_bytes = 100;
  AssignL2Residency(g_, TensorPricer(), 20000, true, false, layers_, &kernels_);
  EXPECT_FALSE(kernels_[0].work.l2_weights);
  EXPECT_TRUE(kernels_[1].work.l2_weights);
}

TEST(L2Residency, ACacheAppendedInPlaceIsReadFromDram) {
  // x -> a (Relu) -> n; present = Concat(past, n) (past a graph input,
  // present a graph output: a KV append); b (Relu) reads present. fp32:
  // n 100 x 4 = 400 B, past 1000 x 4 = 4000 B, present 4400 B, out 4400 B.
  // Copied (a runtime without kv_append_in_place): b reads present right
  // after the Concat kernel wrote it, so in an L2 of 1e6 B it hits: 4400 /
  // (4400 + 4400) = 0.5 (out is a graph output). Appended in place
  // (kv_append_in_place), the kernel wrote the 400 new bytes only and the
  // 4000 past ones were written steps ago: b reads present from DRAM,
  // share 0.
  graph::Graph g;
  auto tensor = [&](const char* name, graph::TensorKind kind, int64_t n) {
    return AddKnownTensor(g, name, graph::DType::kFloat32, {n}, kind);
  };
  const int x = tensor("x", graph::TensorKind::kGraphInput, 100);
  const int past = tensor("past", graph::TensorKind::kGraphInput, 1000);
  const int n = tensor("n", graph::TensorKind::kActivation, 100);
  const int present = tensor("present", graph::TensorKind::kActivation, 1100);
  const int out = tensor("out", graph::TensorKind::kActivation, 1100);
  AddPlainNode(g, "a", "Relu", {x}, {n});
  AddPlainNode(g, "append", "Concat", {past, n}, {present});
  AddPlainNode(g, "b", "Relu", {present}, {out});
  g.MarkOutput(present);
  g.MarkOutput(out);
  ASSERT_TRUE(g.Finalize().ok());
  for (const bool in_place : {false, true}) {
    SCOPED_TRACE(in_place);
    std::vector<LayerResult> layers(3);
    std::vector<KernelResult> kernels(3);
    for (int i = 0; i < 3; ++i) {
      layers[i].node = i;
      layers[i].kernel = i;
      kernels[i].layers = {i};
      kernels[i].work.bytes = 4400;
    }
    AssignL2Residency(g, TensorPricer(), 1e6, false, in_place, layers,
                      &kernels);
    EXPECT_DOUBLE_EQ(kernels[2].work.l2_activation_share, in_place ? 0.0 : 0.5);
  }
}

TEST(L2Hardware, PartitionsDivideTheUsableL2AndParse) {
  // A100: 40 MB (41,943,040 B) in 2 partitions: 20 MB for data every SM
  // reads. L4: 48 MB in one.
  absl::StatusOr<std::vector<Hardware>> zoo = zoo::HardwareCatalog();
  ASSERT_TRUE(zoo.ok()) << zoo.status();
  absl::StatusOr<Hardware> a100 = FindHardware(*zoo, "a100");
  ASSERT_TRUE(a100.ok());
  EXPECT_DOUBLE_EQ(a100->UsableL2Bytes(), 20971520);
  absl::StatusOr<Hardware> l4 = FindHardware(*zoo, "l4");
  ASSERT_TRUE(l4.ok());
  EXPECT_DOUBLE_EQ(l4->UsableL2Bytes(), 50331648);
  absl::StatusOr<Hardware> back =
      ParseHardwareJson(HardwareToJson(*a100), "a100.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->l2_partitions, 2);
  EXPECT_DOUBLE_EQ(back->l2_cache_bytes, 41943040);
  const std::string bad = R"({"key": "x", "name": "X",
      "peak_flops_per_s": {"fp16": 1e12}, "memory_bandwidth_bytes_per_s": 1e9,
      "memory_capacity_bytes": 1e9, "l2_partitions": 0})";
  absl::StatusOr<Hardware> rejected = ParseHardwareJson(bad, "bad.json");
  ASSERT_FALSE(rejected.ok());
  EXPECT_THAT(std::string(rejected.status().message()),
              HasSubstr("l2_partitions"));
}

}  // namespace
}  // namespace ridgeline::engine
