// Multi-GPU: collective times by hand and against NCCL measurements,
// tensor- and pipeline-parallel sharding of the zoo Llama graphs, the CLI's
// --tp/--pp errors and speed.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/analysis.h"
#include "engine/fusion.h"
#include "engine/moe.h"
#include "engine/parallel/collectives.h"
#include "engine/parallel/sharding.h"
#include "engine/parallel/transformer_blocks.h"
#include "engine/quantize.h"
#include "engine/quantize_report.h"
#include "engine/sweep.h"
#include "engine/what_if.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/zoo_test_util.h"
#include "zoo/runtime_catalog.h"

namespace ridgeline {
namespace {

using engine::CollectiveOp;
using engine::CollectiveWork;
using engine::Interconnect;

// A node of 8 GPUs: 450 GB/s per direction, 1 us per ring step, 5 us launch;
// 50 GB/s and 5 us per step across nodes.
Interconnect Node8() {
  Interconnect ic;
  ic.intra_node = "test";
  ic.intra_node_bandwidth_bytes_per_s = 450e9;
  ic.gpus_per_node = 8;
  ic.intra_node_latency_s = 1e-6;
  ic.inter_node = "test";
  ic.inter_node_bandwidth_bytes_per_s = 50e9;
  ic.inter_node_latency_s = 5e-6;
  ic.collective_launch_s = 5e-6;
  ic.source = "test";
  return ic;
}

double Time(CollectiveOp op, double bytes, int gpus, bool across = false,
            const Interconnect& ic = Node8()) {
  absl::StatusOr<engine::CollectiveTime> t =
      engine::TimeCollective({op, bytes, gpus, across}, ic);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? t->total_s : -1;
}

TEST(Collectives, RingFormulasByHand) {
  // All-reduce, 8 GPUs, 16384 B: 5 + 2*7*1 us + (2*7/8) * 16384 / 450e9 s
  // = 19 us + 0.063716 us.
  EXPECT_NEAR(Time(CollectiveOp::kAllReduce, 16384, 8), 19.063716e-6, 1e-11);
  // All-gather and reduce-scatter, 4 GPUs, 1e6 B: 5 + 3 us + 0.75e6/450e9 s
  // = 8 + 1.666667 us.
  EXPECT_NEAR(Time(CollectiveOp::kAllGather, 1e6, 4), 9.666667e-6, 1e-11);
  EXPECT_NEAR(Time(CollectiveOp::kReduceScatter, 1e6, 4), 9.666667e-6, 1e-11);
  // All-to-all, 8 GPUs, 8e6 B: 5 + 7 us + 7e6/450e9 s = 12 + 15.555556 us.
  EXPECT_NEAR(Time(CollectiveOp::kAllToAll, 8e6, 8), 27.555556e-6, 1e-11);
  // Send/receive of 1e6 B: in a node 5 + 1 us + 1e6/450e9 s = 8.222222 us;
  // across nodes 5 + 5 us + 1e6/50e9 s = 30 us.
  EXPECT_NEAR(Time(CollectiveOp::kPointToPoint, 1e6, 2), 8.222222e-6, 1e-11);
  EXPECT_NEAR(Time(CollectiveOp::kPointToPoint, 1e6, 2, true), 30e-6, 1e-11);
  // One GPU: nothing.
  EXPECT_EQ(Time(CollectiveOp::kAllReduce, 1e6, 1), 0);
}

TEST(Collectives, HierarchicalAcrossNodes) {
  // All-reduce over 16 GPUs (2 nodes of 8), 8e6 B:
  //   launch 5 us
  //   reduce-scatter in the node: 7 x 1 us + 7/8 x 8e6 / 450e9 = 7 + 15.5556
  //   all-reduce of 1e6 B over 2 nodes: 2 x 5 us + 1e6 / 50e9 = 10 + 20
  //   all-gather in the node: 7 + 15.5556
  // = 29 us latency + 51.1111 us bandwidth = 80.1111 us.
  absl::StatusOr<engine::CollectiveTime> t = engine::TimeCollective(
      {CollectiveOp::kAllReduce, 8e6, 16, false}, Node8());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->across_nodes);
  EXPECT_NEAR(t->latency_s, 29e-6, 1e-12);
  EXPECT_NEAR(t->bandwidth_s, 51.111111e-6, 1e-11);
  EXPECT_NEAR(t->total_s, 80.111111e-6, 1e-11);
}

TEST(Collectives, Errors) {
  Interconnect no_network = Node8();
  no_network.inter_node_bandwidth_bytes_per_s = 0;
  absl::StatusOr<engine::CollectiveTime> t = engine::TimeCollective(
      {CollectiveOp::kAllReduce, 1e6, 16, false}, no_network);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("no network"), std::string::npos)
      << t.status();
  t = engine::TimeCollective({CollectiveOp::kAllReduce, 1e6, 12, false},
                             Node8());
  EXPECT_FALSE(t.ok());  // 12 GPUs across nodes of 8
  t = engine::TimeCollective({CollectiveOp::kAllReduce, -1, 8, false}, Node8());
  EXPECT_FALSE(t.ok());
  t = engine::TimeCollective({CollectiveOp::kAllReduce, 1e6, 2, false},
                             Interconnect{});
  EXPECT_FALSE(t.ok());  // no link data
}

// NCCL all-reduce on H100 SXM (fp16), measured: aiconfigurator's NCCL table
// (ai-dynamo/aiconfigurator @4fabb773, NCCL 2.27/2.29), as restated in
// shared/reference/anchors_2026.md 3.2. Sizes are binary (8 KiB, 2 MiB,
// 128 MiB, 512 MiB): the table's bus bandwidths (0.9, 95, 406, 445 GB/s)
// follow from them. Predicted by the ring formula alone with
// zoo/hardware/h100-sxm.json's link constants (its measured tables taken
// out): what a flat runtime and a device without tables get.
TEST(Collectives, AgainstNcclMeasurementsOnH100) {
  absl::StatusOr<engine::Hardware> hw = testing::SourceHardware("h100-sxm");
  ASSERT_TRUE(hw.ok()) << hw.status();
  hw->interconnect.measured_collectives.clear();
  struct Row {
    int gpus;
    double bytes;
    double measured_s;
    double max_error;  // |predicted / measured - 1|
  };
  const Row rows[] = {
      {8, 8192, 16.4e-6, 0.25},       // predicted 19.0 us: +16%
      {8, 2097152, 38.6e-6, 0.35},    // 27.2 us: -30% (NCCL's LL128 phase)
      {8, 134217728, 578e-6, 0.10},   // 541 us: -6%
      {8, 536870912, 2112e-6, 0.05},  // 2107 us: -0.2%
      {2, 8192, 7.0e-6, 0.05},        // 7.0 us: +0.3%
      {2, 536870912, 1677e-6, 0.35},  // 1200 us: -28% (2 GPUs reach
                                      // 320 GB/s of 450)
  };
  for (const Row& r : rows) {
    absl::StatusOr<engine::CollectiveTime> t = engine::TimeCollective(
        {CollectiveOp::kAllReduce, r.bytes, r.gpus, false}, hw->interconnect);
    ASSERT_TRUE(t.ok()) << t.status();
    const double error = t->total_s / r.measured_s - 1;
    std::printf(
        "NCCL all-reduce %d GPUs %.0f B: predicted %.1f us, "
        "measured %.1f us, error %+.1f%%\n",
        r.gpus, r.bytes, t->total_s * 1e6, r.measured_s * 1e6, 100 * error);
    EXPECT_LE(std::abs(error), r.max_error) << r.gpus << " GPUs " << r.bytes;
  }
}

// A measured all-reduce table (engine/parallel/collectives.h): sizes 1000,
// 4000, 16000 B in 10, 20, 80 us on 8 GPUs, interpolated in log-log; an
// all-to-all table on 8 GPUs of one size, 1000 B in 7 us.
TEST(Collectives, MeasuredTablesByHand) {
  Interconnect ic = Node8();
  ic.measured_collectives.push_back(
      {.op = "all_to_all", .gpus = 8, .bytes = {1000}, .seconds = {7e-6}});
  ic.measured_collectives.push_back({.op = "all_reduce",
                                     .gpus = 8,
                                     .bytes = {1000, 4000, 16000},
                                     .seconds = {10e-6, 20e-6, 80e-6}});
  auto time = [&](CollectiveOp op, double bytes, int gpus,
                  const std::optional<engine::CustomAllReduce>& custom =
                      std::nullopt) {
    absl::StatusOr<engine::CollectiveTime> t =
        engine::TimeCollective({op, bytes, gpus, false}, ic, custom);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : engine::CollectiveTime{};
  };
  // Below and at the smallest size: its 10 us, all of it latency.
  engine::CollectiveTime t = time(CollectiveOp::kAllReduce, 500, 8);
  EXPECT_NEAR(t.total_s, 10e-6, 1e-15);
  EXPECT_NEAR(t.latency_s, 10e-6, 1e-15);
  EXPECT_EQ(t.bandwidth_s, 0);
  EXPECT_TRUE(t.measured);
  EXPECT_NEAR(time(CollectiveOp::kAllReduce, 1000, 8).total_s, 10e-6, 1e-15);
  // 2000 B is halfway from 1000 to 4000 in log(bytes): 10 x 2^0.5 us =
  // 14.142136 us; 4.142136 us of it bandwidth time.
  t = time(CollectiveOp::kAllReduce, 2000, 8);
  EXPECT_NEAR(t.total_s, 14.142136e-6, 1e-12);
  EXPECT_NEAR(t.bandwidth_s, 4.142136e-6, 1e-12);
  // 8000 B: halfway from 4000 to 16000: 20 x 4^0.5 = 40 us.
  EXPECT_NEAR(time(CollectiveOp::kAllReduce, 8000, 8).total_s, 40e-6, 1e-12);
  // Above the largest: 80 us + 4000 B x (60 us / 12000 B) = 100 us.
  EXPECT_NEAR(time(CollectiveOp::kAllReduce, 20000, 8).total_s, 100e-6, 1e-12);
  // Bus bandwidth of that: 20000 x 2 x 7/8 / 100e-6 = 350 MB/s.
  EXPECT_NEAR(
      time(CollectiveOp::kAllReduce, 20000, 8).bus_bandwidth_bytes_per_s, 350e6,
      1e-3);
  // The all-to-all table: 500 B at its floor, 7 us; 3000 B past its one
  // size grows at its only point's seconds per byte, 7 us x 3 = 21 us.
  EXPECT_NEAR(time(CollectiveOp::kAllToAll, 500, 8).total_s, 7e-6, 1e-15);
  EXPECT_NEAR(time(CollectiveOp::kAllToAll, 3000, 8).total_s, 21e-6, 1e-12);
  // A GPU count without a table, an op without one (all-gather), a
  // point-to-point and across nodes: the formulas. 4 GPUs, 2000 B: 5 + 6 x
  // 1 us + 1.5 x 2000 / 450e9 s = 11.006667 us.
  t = time(CollectiveOp::kAllReduce, 2000, 4);
  EXPECT_NEAR(t.total_s, 11.006667e-6, 1e-11);
  EXPECT_FALSE(t.measured);
  // All-gather of 1e6 B on 8 GPUs: 5 + 7 + 7/8 x 1e6 / 450e9 s = 13.944444 us.
  EXPECT_NEAR(time(CollectiveOp::kAllGather, 1e6, 8).total_s, 13.944444e-6,
              1e-11);
  // Send/receive of 1e6 B inside the node: 5 + 1 + 1e6 / 450e9 s =
  // 8.222222 us.
  EXPECT_NEAR(time(CollectiveOp::kPointToPoint, 1e6, 2).total_s, 8.222222e-6,
              1e-11);
  // 16 GPUs, 8e6 B: the hierarchical ring of HierarchicalAcrossNodes.
  EXPECT_NEAR(time(CollectiveOp::kAllReduce, 8e6, 16).total_s, 80.111111e-6,
              1e-11);
  // A custom all-reduce takes its sizes first: one-shot 2000 B on 8 GPUs =
  // 3.4 us + 7 x 2000 / 450e9 s = 3.431111 us; above its sizes the table.
  const engine::CustomAllReduce custom{
      .one_shot_max_bytes = 4000, .two_shot_max_bytes = 0, .latency_s = 3.4e-6};
  EXPECT_NEAR(time(CollectiveOp::kAllReduce, 2000, 8, custom).total_s,
              3.431111e-6, 1e-11);
  EXPECT_NEAR(time(CollectiveOp::kAllReduce, 8000, 8, custom).total_s, 40e-6,
              1e-12);
}

// The measured H100 tables (zoo/hardware/h100-sxm.json, aiconfigurator's NCCL
// 2.29.2 run) against an independent NCCL measurement beyond their largest
// size (512 MiB): nccl-tests all_reduce_perf on an 8-GPU Azure ND H100 v5 node
// (anchors_2026.md 3.2; samuel-bohman/AI-benchmarking-guide @26d18e94): bus
// bandwidth 466.4 GB/s at 1 GiB, 478.9 GB/s at 8 GiB, i.e. 1073741824 x
// 2 x 7/8 / 466.4e9 = 4.0289 ms and 8589934592 x 1.75 / 478.9e9 = 31.389 ms.
// The table's last segment (268 MiB to 512 MiB) extrapolates to 4.15 and
// 32.7 ms. (At 1 MB the two sources disagree: Azure's bus bandwidth 43.7
// GB/s is 42 us, the aiconfigurator table's 1 MiB row 25.4 us.)
TEST(Collectives, MeasuredTablesExtrapolateToAzureNcclTests) {
  absl::StatusOr<engine::Hardware> hw = testing::SourceHardware("h100-sxm");
  ASSERT_TRUE(hw.ok()) << hw.status();
  ASSERT_NE(hw->interconnect.MeasuredFor("all_reduce", 8), nullptr);
  const struct {
    double bytes, measured_s;
  } rows[] = {{1073741824.0, 4.0289e-3}, {8589934592.0, 31.389e-3}};
  for (const auto& r : rows) {
    absl::StatusOr<engine::CollectiveTime> t = engine::TimeCollective(
        {CollectiveOp::kAllReduce, r.bytes, 8, false}, hw->interconnect);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_TRUE(t->measured);
    EXPECT_NEAR(t->total_s / r.measured_s, 1, 0.06) << r.bytes;
  }
}

// A runtime's own all-reduce (engine/parallel/collectives.h): one-shot
// L' + (n-1) M / beta, two-shot L' + 2(n-1)/n M / beta, the ring above
// the two-shot size and across nodes. PyTorch IntraNodeComm's sizes
// (256 KiB, 10 MiB) and L' = 3.4 us, on Node8 (450 GB/s, ring 5 us launch +
// 1 us per step).
TEST(Collectives, CustomAllReduceByHand) {
  const engine::CustomAllReduce custom{.one_shot_max_bytes = 262144,
                                       .two_shot_max_bytes = 10485760,
                                       .latency_s = 3.4e-6};
  auto time = [&](CollectiveOp op, double bytes, int gpus) {
    absl::StatusOr<engine::CollectiveTime> t =
        engine::TimeCollective({op, bytes, gpus, false}, Node8(), custom);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? t->total_s : -1;
  };
  // One-shot, 8 GPUs, 8192 B: 3.4 us + 7 x 8192 / 450e9 s = 3.4 + 0.127431.
  EXPECT_NEAR(time(CollectiveOp::kAllReduce, 8192, 8), 3.527431e-6, 1e-11);
  // One-shot at its largest size, 2 GPUs, 262144 B: 3.4 + 0.582542 us.
  EXPECT_NEAR(time(CollectiveOp::kAllReduce, 262144, 2), 3.982542e-6, 1e-11);
  // Two-shot, 8 GPUs, 1 MiB: 3.4 + 2 x 7/8 x 1048576 / 450e9 s = 3.4 +
  // 4.077796 us.
  EXPECT_NEAR(time(CollectiveOp::kAllReduce, 1048576, 8), 7.477796e-6, 1e-11);
  // Above 10 MiB the ring: 16 MiB on 4 GPUs = 5 + 6 x 1 us + 2 x 3/4 x
  // 16777216 / 450e9 s = 11 + 55.924053 us.
  EXPECT_NEAR(time(CollectiveOp::kAllReduce, 16777216, 4), 66.924053e-6, 1e-11);
  // Other collectives keep the ring: all-gather of 1e6 B on 4 GPUs = 5 + 3
  // + 1.666667 us, as without the custom all-reduce.
  EXPECT_NEAR(time(CollectiveOp::kAllGather, 1e6, 4), 9.666667e-6, 1e-11);
  // Across nodes (16 GPUs, nodes of 8): the hierarchical ring, 80.1111 us
  // for 8e6 B as in HierarchicalAcrossNodes, though 8e6 B is a two-shot size.
  EXPECT_NEAR(time(CollectiveOp::kAllReduce, 8e6, 16), 80.111111e-6, 1e-11);
}

// aiconfigurator's measured TensorRT-LLM custom all-reduce on 8 H100s
// (anchors_2026.md 3.2): 8 KB in 3.5 us (the point L' = 3.4 us comes from)
// and 2 MB in 35.5 us, which the one-shot formula gives as 3.4 + 7 x
// 2097152 / 450e9 = 36.02 us (+1.5%); two-shot would be 11.56 us.
TEST(Collectives, CustomAllReduceAgainstTrtLlmOnH100) {
  absl::StatusOr<engine::Hardware> hw = testing::SourceHardware("h100-sxm");
  ASSERT_TRUE(hw.ok()) << hw.status();
  const engine::CustomAllReduce one_shot{.one_shot_max_bytes = 4194304,
                                         .two_shot_max_bytes = 0,
                                         .latency_s = 3.4e-6};
  const struct {
    double bytes, measured_s;
  } rows[] = {{8192, 3.5e-6}, {2097152, 35.5e-6}};
  for (const auto& r : rows) {
    absl::StatusOr<engine::CollectiveTime> t =
        engine::TimeCollective({CollectiveOp::kAllReduce, r.bytes, 8, false},
                               hw->interconnect, one_shot);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_NEAR(t->total_s / r.measured_s, 1, 0.03) << r.bytes;
  }
}

struct Sharded {
  engine::Analysis whole;
  engine::Analysis split;
};

absl::StatusOr<graph::Graph> ZooGraph(std::string_view name) {
  absl::StatusOr<zoo::ModelEntry> e = testing::SourceEntry(name);
  if (!e.ok()) return e.status();
  return testing::ImportEntry(*e);
}

// `runtime` "" = the device's default (compiled on a GPU: gpt-fast's layout,
// the LM head whole on every GPU); "tensorrt" splits the LM head by
// vocabulary (Megatron, TensorRT-LLM, vLLM).
absl::StatusOr<Sharded> Shard(const graph::Graph& g, std::string_view hw_key,
                              engine::ParallelOptions parallel,
                              std::string precision = "bf16",
                              std::string_view runtime = "") {
  absl::StatusOr<engine::Hardware> hw = testing::SourceHardware(hw_key);
  if (!hw.ok()) return hw.status();
  absl::StatusOr<engine::Runtime> rt = zoo::ResolveRuntime(
      runtime.empty() ? zoo::DefaultRuntimeKey(*hw) : runtime);
  if (!rt.ok()) return rt.status();
  engine::AnalyzeOptions o;
  o.runtime = &*rt;
  o.precision = precision;
  absl::StatusOr<engine::Analysis> a = engine::Analyze(g, *hw, o);
  if (!a.ok()) return a.status();
  // Planned with the collectives as fusion barriers, then sharded (one GPU:
  // the analysis itself sharded, for its parallel summary).
  absl::StatusOr<engine::Analysis> s =
      parallel.gpus() > 1 ? engine::AnalyzeSharded(g, *hw, o, parallel)
                          : engine::ShardAnalysis(g, *a, parallel);
  if (!s.ok()) return s.status();
  return Sharded{*std::move(a), *std::move(s)};
}

class Llama8bDecode : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<graph::Graph> g = ZooGraph("llama-3.1-8b-decode");
    ASSERT_TRUE(g.ok()) << g.status();
    graph_ = new graph::Graph(*std::move(g));
  }
  static graph::Graph* graph_;
};
graph::Graph* Llama8bDecode::graph_ = nullptr;

// The H100 in bf16 under a runtime profile, and weight-only int8: with
// "tensorrt", TensorRT's layout (the LM head split by vocabulary, as the
// weight counts below assume).
struct Bf16OnH100 {
  engine::Hardware hw;
  engine::Runtime runtime;
  engine::QuantizeOptions int8;
  // Points at `runtime`: keep this object in place while it is used.
  engine::AnalyzeOptions Options() const {
    engine::AnalyzeOptions o;
    o.runtime = &runtime;
    o.precision = "bf16";
    return o;
  }
};
std::unique_ptr<Bf16OnH100> MakeBf16OnH100(std::string_view runtime) {
  absl::StatusOr<engine::Hardware> hw = testing::SourceHardware("h100-sxm");
  absl::StatusOr<engine::Runtime> rt = zoo::ResolveRuntime(runtime);
  if (!hw.ok() || !rt.ok()) return nullptr;
  auto s = std::make_unique<Bf16OnH100>();
  s->hw = *std::move(hw);
  s->runtime = *std::move(rt);
  s->int8.weights = "int8";
  return s;
}

TEST_F(Llama8bDecode, FindsEveryTransformerBlock) {
  absl::StatusOr<engine::TransformerBlocks> b =
      engine::FindTransformerBlocks(*graph_);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->blocks.size(), 64u);  // 32 layers x (attention, MLP)
  int attention = 0;
  for (const engine::MegatronBlock& block : b->blocks) {
    if (block.attention) {
      ++attention;
      // Llama-3.1-8B config.json: 32 heads, 8 KV heads, head dim 128.
      EXPECT_EQ(block.heads, 32);
      EXPECT_EQ(block.kv_heads, 8);
      EXPECT_EQ(block.head_dim, 128);
      EXPECT_EQ(block.column.size(), 3u);  // Q, K, V
    } else {
      EXPECT_EQ(block.columns, 14336);     // FFN width
      EXPECT_EQ(block.column.size(), 2u);  // gate, up
    }
  }
  EXPECT_EQ(attention, 32);
  EXPECT_GE(b->lm_head, 0);
}

TEST_F(Llama8bDecode, ShardedFlopsTimesTpPlusReplicatedIsTheWhole) {
  absl::StatusOr<Sharded> s =
      Shard(*graph_, "h100-sxm", {.tp = 4}, "bf16", "tensorrt");
  ASSERT_TRUE(s.ok()) << s.status();
  double replicated = 0, sharded = 0, whole = 0;
  int sharded_layers = 0;
  size_t j = 0;
  for (const engine::LayerResult& l : s->whole.layers) {
    while (s->split.layers[j].node != l.node) ++j;  // skip collectives
    const engine::LayerResult& m = s->split.layers[j++];
    whole += l.flops;
    if (m.flops == l.flops) {
      replicated += m.flops;
    } else {
      EXPECT_NEAR(m.flops * 4, l.flops, 1e-9 * l.flops) << l.name;
      sharded += m.flops;
      ++sharded_layers;
    }
  }
  EXPECT_NEAR(sharded * 4 + replicated, whole, 1e-9 * whole);
  // Most of the work is split: the 7 projections of 32 layers + LM head.
  EXPECT_GT(sharded * 4, 0.95 * whole);
  EXPECT_GE(sharded_layers, 32 * 7 + 1);
}

TEST_F(Llama8bDecode, WeightsPerGpuSumToTheModel) {
  absl::StatusOr<Sharded> s =
      Shard(*graph_, "h100-sxm", {.tp = 8}, "bf16", "tensorrt");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_TRUE(s->split.summary.parallel.has_value());
  const engine::ParallelSummary& p = *s->split.summary.parallel;
  // By hand from config.json: split over 8 GPUs are the 32 layers'
  // projections, 32 x (218,112,000 - 2 x 4,096 norms) = 6,979,321,856, and
  // the LM head 525,336,576: 7,504,658,432; whole on each GPU are the
  // embedding 525,336,576, 32 x 8,192 norm weights and the final norm 4,096:
  // 525,602,816. Per GPU 525,602,816 + 7,504,658,432 / 8 = 1,463,685,120.
  EXPECT_EQ(p.params_per_gpu, 1463685120);
  EXPECT_EQ(525602816 + 7504658432, 8030261248);  // the published total
  // At bf16, 2 bytes each.
  EXPECT_NEAR(p.weight_bytes_per_gpu, 2.0 * 1463685120, 1);
  EXPECT_EQ(p.gpus, 8);
  EXPECT_TRUE(p.fits_in_memory_per_gpu);
}

// gpt-fast's tensor parallel (the compiled profile's tp_replicates_lm_head)
// keeps the LM head whole on every GPU: per GPU the split layers' 7,504,658,432
// - 525,336,576 = 6,979,321,856 parameters / 8 + the replicated 525,602,816 +
// the LM head 525,336,576 = 1,923,354,624; no all-gather of the logits.
TEST_F(Llama8bDecode, CompiledKeepsTheLmHeadWhole) {
  absl::StatusOr<Sharded> s = Shard(*graph_, "h100-sxm", {.tp = 8});
  ASSERT_TRUE(s.ok()) << s.status();
  const engine::ParallelSummary& p = *s->split.summary.parallel;
  EXPECT_EQ(p.params_per_gpu, 6979321856 / 8 + 525602816 + 525336576);
  EXPECT_EQ(p.params_per_gpu, 1923354624);
  EXPECT_EQ(p.collectives, 64);  // 2 all-reduces x 32 layers, no all-gather
  EXPECT_NE(p.lm_head.find("replicated"), std::string::npos) << p.lm_head;
}

TEST_F(Llama8bDecode, TwoAllReducesPerLayerWithTokenTimesHiddenMessages) {
  absl::StatusOr<Sharded> s =
      Shard(*graph_, "h100-sxm", {.tp = 2}, "bf16", "tensorrt");
  ASSERT_TRUE(s.ok()) << s.status();
  int all_reduce = 0, all_gather = 0;
  for (const engine::LayerResult& l : s->split.layers) {
    if (l.op_type == "AllReduce") {
      ++all_reduce;
      // 1 token x hidden 4096 x 2 bytes (bf16).
      EXPECT_EQ(l.message_bytes, 8192) << l.name;
      EXPECT_GT(l.latency_s, 0);
      ASSERT_GE(l.kernel, 0);
      EXPECT_EQ(s->split.kernels[l.kernel].work.kind,
                engine::KernelClass::kCollective);
    }
    if (l.op_type == "AllGather") {
      ++all_gather;
      EXPECT_EQ(l.message_bytes, 128256 * 2);  // the logits, bf16
    }
  }
  EXPECT_EQ(all_reduce, 2 * 32);
  EXPECT_EQ(all_gather, 1);
  EXPECT_EQ(s->split.summary.parallel->collectives, 65);
  // The latency is the sum of the kernels, collectives included.
  double sum = s->split.summary.per_inference_s;
  for (const engine::KernelResult& k : s->split.kernels) {
    sum += k.time.latency_s;
  }
  EXPECT_NEAR(s->split.summary.latency_s, sum, 1e-12);
}

TEST_F(Llama8bDecode, DecodeSpeedUpFromOneToEightGpusIsSublinear) {
  absl::StatusOr<Sharded> s = Shard(*graph_, "h100-sxm", {.tp = 8});
  ASSERT_TRUE(s.ok()) << s.status();
  const double speed_up =
      s->whole.summary.latency_s / s->split.summary.latency_s;
  std::printf(
      "Llama-3.1-8B decode bf16 H100: 1 GPU %.3f ms, 8 GPUs %.3f "
      "ms, speed-up %.2f\n",
      s->whole.summary.latency_s * 1e3, s->split.summary.latency_s * 1e3,
      speed_up);
  EXPECT_GT(speed_up, 1.5);
  EXPECT_LT(speed_up, 6.0);  // far from 8: all-reduce latency floors
  // Collectives take a visible share of the step: the default GPU runtime
  // (compiled) all-reduces 8 KB one-shot in 3.4 us + 7 x 8192 / 450e9 s =
  // 3.53 us, 64 of them = 0.226 ms of about 2.6 ms.
  EXPECT_GT(s->split.summary.parallel->collective_s,
            0.05 * s->split.summary.latency_s);
}

// --weights int8 with --tp 8 (AnalyzeQuantized with ParallelOptions):
// weight-only per-channel int8 is 1 B per element + one 2 B scale per
// output channel (engine/quantize.h), and each GPU holds its shard:
//   q_proj W [4096, 4096], column-parallel: (4096 x 4096 + 2 x 4096) / 8 =
//     2,098,176 B per GPU (bf16: 4096 x 4096 x 2 / 8 = 4,194,304);
//   down_proj W [14336, 4096], row-parallel: (14336 x 4096 + 2 x 4096) / 8
//     = 7,341,056 B per GPU (bf16: 14,680,064).
// The all-reduces keep their 1 token x 4096 x 2 B = 8,192 B messages.
TEST_F(Llama8bDecode, Int8WeightsOnEightGpusQuantizeEachShard) {
  const std::unique_ptr<Bf16OnH100> setup = MakeBf16OnH100("tensorrt");
  ASSERT_NE(setup, nullptr);
  const engine::Hardware* hw = &setup->hw;
  const engine::AnalyzeOptions o = setup->Options();
  engine::QuantizeOptions q = setup->int8;
  absl::StatusOr<engine::QuantizeResult> r =
      engine::AnalyzeQuantized(*graph_, *hw, o, q, {.tp = 8});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->gpus, 8);
  ASSERT_EQ(r->before.layers.size(), r->after.layers.size());
  int q_proj = 0, down_proj = 0, all_reduce = 0;
  for (size_t i = 0; i < r->after.layers.size(); ++i) {
    const engine::LayerResult& b = r->before.layers[i];
    const engine::LayerResult& a = r->after.layers[i];
    if (a.op_type == "MatMul" && a.name.find("q_proj") != std::string::npos) {
      ++q_proj;
      EXPECT_DOUBLE_EQ(b.cost.weight_bytes, 4194304) << a.name;
      EXPECT_DOUBLE_EQ(a.cost.weight_bytes, 2098176) << a.name;
    }
    if (a.op_type == "MatMul" &&
        a.name.find("down_proj") != std::string::npos) {
      ++down_proj;
      EXPECT_DOUBLE_EQ(b.cost.weight_bytes, 14680064) << a.name;
      EXPECT_DOUBLE_EQ(a.cost.weight_bytes, 7341056) << a.name;
    }
    if (a.op_type == "AllReduce") {
      ++all_reduce;
      EXPECT_EQ(a.message_bytes, 8192) << a.name;
      EXPECT_EQ(b.message_bytes, 8192) << a.name;
      EXPECT_DOUBLE_EQ(a.latency_s, b.latency_s) << a.name;
    }
  }
  EXPECT_EQ(q_proj, 32);
  EXPECT_EQ(down_proj, 32);
  EXPECT_EQ(all_reduce, 64);
  // Collectives unchanged; the result lists them (node -1) beside the layers.
  EXPECT_DOUBLE_EQ(r->collective_s, r->before.summary.parallel->collective_s);
  EXPECT_GT(r->collective_s, 0);
  // The latencies are one inference of the sharded model, before and after.
  EXPECT_DOUBLE_EQ(r->latency_before_s, r->before.summary.latency_s);
  EXPECT_DOUBLE_EQ(r->latency_s, r->after.summary.latency_s);
  // On TensorRT-LLM an eighth of an 8B model's GEMVs is small: the int8
  // weight-only kernel's 10.56 us fixed cost (the tensorrt profile's,
  // fitted to aiconfigurator's A100 table, where a 1 x 512 x 4096 GEMV takes
  // 7.3 us in bf16 and 18.4 us int8 weight-only) costs more than the halved
  // weights save (a q_proj shard: 4,194,304 B -> 1.4 us in bf16 at
  // 3.35 TB/s x 0.886, 0.7 us in int8), so the what-if is slower.
  EXPECT_GT(r->latency_s, r->latency_before_s);
  // Per GPU, bf16: 1,463,685,120 parameters (WeightsPerGpuSumToTheModel) x
  // 2 B = 2,927,370,240 B. int8 by hand: replicated the embedding (128,256 x
  // 4,096 + 2 B x 128,256 scales = 525,593,088) and the norms (32 x 8,192 +
  // 4,096 elements x 2 B = 532,480); split / 8 the 32 layers' projections
  // (218,103,808 elements + 2 B x 43,008 output channels = 218,189,824 B
  // each) and the LM head (525,593,088): 525,593,088 + 532,480 + (32 x
  // 218,189,824 + 525,593,088) / 8 = 1,464,584,000 B. The sharding prices
  // weights at the whole model's bytes per stored byte (one ratio: 2 x
  // 8,033,793,024 / 16,060,522,496 per bf16 element), within 0.1% of that.
  EXPECT_NEAR(r->weight_bytes_per_gpu_before, 2927370240.0, 1);
  EXPECT_NEAR(r->weight_bytes_per_gpu, 1464584000.0, 0.001 * 1464584000.0);
  EXPECT_NEAR(r->model_bytes, 8033793024.0, 1);  // the whole model, int8
  const std::string text = engine::RenderQuantizeText(*r);
  EXPECT_NE(text.find("one inference sharded over 8 GPUs"), std::string::npos)
      << text;
  EXPECT_NE(text.find("per GPU       weights as stored 2.93 GB"),
            std::string::npos)
      << text;
  const nlohmann::json j = engine::QuantizeJson(*r);
  EXPECT_EQ(j["summary"]["gpus"], 8);
  EXPECT_NEAR(j["summary"]["weight_bytes_per_gpu_before"].get<double>(),
              2927370240.0, 1);

  // Activation quantization would change the all-reduce messages: refused.
  q.activations = "int8";
  absl::StatusOr<engine::QuantizeResult> w8a8 =
      engine::AnalyzeQuantized(*graph_, *hw, o, q, {.tp = 8});
  ASSERT_FALSE(w8a8.ok());
  EXPECT_NE(w8a8.status().message().find("--activations int8 with --tp 8"),
            std::string::npos)
      << w8a8.status();

  // The what-if table on 2 GPUs: as stored is the sharded analysis, the int8
  // row equals AnalyzeQuantized at tp 2, the "fuse all" row ApplyFusion of
  // the sharded analysis (no group across an all-reduce); W8A8 rows
  // unavailable.
  engine::WhatIfOptions w;
  w.parallel.tp = 2;
  absl::StatusOr<std::vector<engine::WhatIfRow>> rows =
      engine::RunWhatIf(*graph_, *hw, o, w);
  ASSERT_TRUE(rows.ok()) << rows.status();
  absl::StatusOr<Sharded> tp2 =
      Shard(*graph_, "h100-sxm", {.tp = 2}, "bf16", "tensorrt");
  ASSERT_TRUE(tp2.ok()) << tp2.status();
  q.activations.clear();
  absl::StatusOr<engine::QuantizeResult> int8_tp2 =
      engine::AnalyzeQuantized(*graph_, *hw, o, q, {.tp = 2});
  ASSERT_TRUE(int8_tp2.ok()) << int8_tp2.status();
  absl::StatusOr<engine::FusionPlan> plan =
      engine::PlanFusion(*graph_, engine::FusionKinds::All(),
                         engine::CollectiveTensors(*graph_, tp2->split));
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<engine::FusionResult> fused_tp2 =
      engine::ApplyFusion(tp2->split, *plan, *graph_, o);
  ASSERT_TRUE(fused_tp2.ok()) << fused_tp2.status();
  int fusion_rows = 0;
  for (const engine::WhatIfRow& row : *rows) {
    if (row.scenario == "as stored") {
      EXPECT_DOUBLE_EQ(row.latency_s, tp2->split.summary.latency_s);
    }
    if (row.scenario == "weights int8") {
      EXPECT_TRUE(row.available) << row.note;
      EXPECT_DOUBLE_EQ(row.latency_s, int8_tp2->latency_s);
    }
    if (!row.best && row.fuse.any()) {
      ++fusion_rows;
      EXPECT_TRUE(row.available) << row.scenario << ": " << row.note;
    }
    if (row.scenario == "fuse all") {
      EXPECT_DOUBLE_EQ(row.latency_s, fused_tp2->latency_s);
    }
    if (!row.best && !row.quantize.activations.empty()) {
      EXPECT_FALSE(row.available) << row.scenario;
    }
  }
  EXPECT_EQ(fusion_rows, 4);
  EXPECT_TRUE(rows->back().best);
  EXPECT_TRUE(rows->back().available);
}

// --weights int8 with --pp 2 (and --tp 2 --pp 2): both analyses are
// sharded alike. One GPU holds one stage: its weights are the most loaded
// stage's, as the quantized analysis' own summary says. The pipeline send
// keeps its message, 1 token x 4096 hidden x 2 B (bf16) = 8,192 B, and
// its time; the KV cache of one GPU is the model's / (tp x pp), as --serve
// divides it. Weight-only int8 stores 1 B per element + 2 B per output
// channel instead of bf16's 2 B: every stage holds fewer than 0.51 of its
// bf16 bytes.
TEST_F(Llama8bDecode, Int8WeightsOnAPipelineQuantizeEachStage) {
  const std::unique_ptr<Bf16OnH100> setup = MakeBf16OnH100("tensorrt");
  ASSERT_NE(setup, nullptr);
  const engine::Hardware* hw = &setup->hw;
  const engine::AnalyzeOptions o = setup->Options();
  const engine::QuantizeOptions& q = setup->int8;
  absl::StatusOr<engine::QuantizeResult> whole =
      engine::AnalyzeQuantized(*graph_, *hw, o, q);
  ASSERT_TRUE(whole.ok()) << whole.status();
  for (const engine::ParallelOptions& layout :
       {engine::ParallelOptions{.pp = 2},
        engine::ParallelOptions{.tp = 2, .pp = 2}}) {
    SCOPED_TRACE(::testing::Message()
                 << "tp " << layout.tp << " pp " << layout.pp);
    absl::StatusOr<engine::QuantizeResult> r =
        engine::AnalyzeQuantized(*graph_, *hw, o, q, layout);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->gpus, layout.gpus());
    const engine::ParallelSummary& pb = *r->before.summary.parallel;
    const engine::ParallelSummary& pa = *r->after.summary.parallel;
    EXPECT_EQ(pa.pp, 2);
    EXPECT_DOUBLE_EQ(r->weight_bytes_per_gpu_before, pb.weight_bytes_per_gpu);
    EXPECT_DOUBLE_EQ(r->weight_bytes_per_gpu, pa.weight_bytes_per_gpu);
    EXPECT_LT(r->weight_bytes_per_gpu, 0.51 * r->weight_bytes_per_gpu_before);
    // A stage holds at least half of one tensor-parallel rank's weights.
    EXPECT_GE(r->weight_bytes_per_gpu,
              0.5 * whole->model_bytes / layout.tp * 0.999);
    int sends = 0;
    for (size_t i = 0; i < r->after.layers.size(); ++i) {
      const engine::LayerResult& b = r->before.layers[i];
      const engine::LayerResult& a = r->after.layers[i];
      if (a.name.rfind("SendRecv:", 0) != 0) continue;
      ++sends;
      EXPECT_EQ(a.message_bytes, 8192) << a.name;
      EXPECT_EQ(b.message_bytes, 8192) << a.name;
      EXPECT_DOUBLE_EQ(a.latency_s, b.latency_s) << a.name;
    }
    EXPECT_EQ(sends, 1);
    EXPECT_DOUBLE_EQ(r->kv_bytes_before,
                     whole->kv_bytes_before / layout.gpus());
    EXPECT_DOUBLE_EQ(r->kv_bytes, whole->kv_bytes / layout.gpus());
    EXPECT_LT(r->latency_s, r->latency_before_s);
    // Activation quantization would change the send's message: refused.
    engine::QuantizeOptions w8a8 = q;
    w8a8.activations = "int8";
    absl::StatusOr<engine::QuantizeResult> refused =
        engine::AnalyzeQuantized(*graph_, *hw, o, w8a8, layout);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.status().message().find("pipeline sends"),
              std::string::npos)
        << refused.status();
  }
}

// Mixtral-8x7B (8 experts, top-2; tests/moe_test.cc counts it), bf16 on
// H100s. One expert: 3 x 4096 x 14336 = 176,160,768 parameters,
// 352,321,536 bytes.
class MixtralGraphs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* name : {"mixtral-8x7b-decode", "mixtral-8x7b-prefill"}) {
      absl::StatusOr<graph::Graph> g = ZooGraph(name);
      ASSERT_TRUE(g.ok()) << g.status();
      (std::string(name).ends_with("decode") ? decode_ : prefill_) =
          new graph::Graph(*std::move(g));
    }
  }
  static graph::Graph* decode_;
  static graph::Graph* prefill_;
};
graph::Graph* MixtralGraphs::decode_ = nullptr;
graph::Graph* MixtralGraphs::prefill_ = nullptr;

constexpr double kExpertBytes = 352321536;  // bf16
constexpr double kExpertParams = 176160768;

// The all-to-alls' barriers: each MoE layer's output and the outputs of
// the nodes producing its activation inputs (the router's and the hidden
// state's), 32 layers; an --ep analysis plans no kernel across one.
TEST_F(MixtralGraphs, ExpertParallelBarriersFenceEveryMoeLayer) {
  const std::vector<int> barriers = engine::ExpertParallelBarriers(*decode_);
  int moe_nodes = 0;
  for (size_t n = 0; n < decode_->nodes().size(); ++n) {
    const graph::Node& node = decode_->node(static_cast<int>(n));
    if (!engine::IsMoeNode(node)) continue;
    ++moe_nodes;
    for (int t : node.outputs) {
      EXPECT_TRUE(std::binary_search(barriers.begin(), barriers.end(), t));
    }
    for (int t : node.inputs) {
      if (t < 0 || decode_->IsWeight(decode_->tensor(t))) continue;
      EXPECT_TRUE(std::binary_search(barriers.begin(), barriers.end(), t))
          << decode_->tensor(t).name;
    }
  }
  EXPECT_EQ(moe_nodes, 32);
  const std::unique_ptr<Bf16OnH100> priced = MakeBf16OnH100("compiled");
  ASSERT_NE(priced, nullptr);
  const engine::Hardware* hw = &priced->hw;
  const engine::AnalyzeOptions o = priced->Options();
  absl::StatusOr<engine::Analysis> a =
      engine::AnalyzeSharded(*decode_, *hw, o, {.ep = 8});
  ASSERT_TRUE(a.ok()) << a.status();
  for (const engine::KernelResult& k : a->kernels) {
    std::vector<int> nodes;
    for (int li : k.layers) {
      if (a->layers[li].node >= 0) nodes.push_back(a->layers[li].node);
    }
    for (int t : barriers) {
      const graph::Tensor& tensor = decode_->tensor(t);
      const bool has_producer =
          std::find(nodes.begin(), nodes.end(), tensor.producer) != nodes.end();
      for (int c : tensor.consumers) {
        EXPECT_FALSE(has_producer &&
                     std::find(nodes.begin(), nodes.end(), c) != nodes.end())
            << k.name << " spans " << tensor.name;
      }
    }
  }
}

// Expert parallel over 8 GPUs, one decode token: its 2 token-expert pairs
// land on 2 GPUs, the busiest runs 1 pair on its 1 expert. Dispatch and
// combine all-to-alls of 1 token x k 2 x 4096 x 2 bytes = 16,384 bytes:
// a measured size of zoo/hardware/h100-sxm.json's NCCL all-to-all table on
// 8 GPUs, 15.85 us (the ring formula would give 5 us launch + 7 x 1 us +
// 7/8 x 16,384 / 450e9 s = 12.031857 us).
TEST_F(MixtralGraphs, ExpertParallelDecodeByHand) {
  absl::StatusOr<Sharded> s = Shard(*decode_, "h100-sxm", {.ep = 8});
  ASSERT_TRUE(s.ok()) << s.status();
  const engine::ParallelSummary& p = *s->split.summary.parallel;
  EXPECT_EQ(p.gpus, 8);
  EXPECT_EQ(p.ep, 8);
  EXPECT_EQ(p.moe_layers, 32);
  EXPECT_EQ(p.experts_per_gpu, 1);
  int moe = 0, dispatch = 0, combine = 0;
  const std::vector<engine::LayerResult>& layers = s->split.layers;
  for (size_t i = 0; i < layers.size(); ++i) {
    const engine::LayerResult& l = layers[i];
    if (l.op_type == "MoE") {
      ++moe;
      EXPECT_DOUBLE_EQ(l.cost.weight_bytes, kExpertBytes) << l.name;
      EXPECT_DOUBLE_EQ(l.cost.macs, kExpertParams) << l.name;
      // Next to it: its dispatch before (after the router), combine after.
      ASSERT_LT(i + 1, layers.size());
      EXPECT_EQ(layers[i + 1].name, "AllToAll:combine:" + l.name);
    }
    if (l.op_type != "AllToAll") continue;
    (l.name.starts_with("AllToAll:dispatch:") ? dispatch : combine)++;
    EXPECT_EQ(l.message_bytes, 16384) << l.name;
    EXPECT_NEAR(l.latency_s, 15.85e-6, 1e-12) << l.name;
  }
  EXPECT_EQ(moe, 32);
  EXPECT_EQ(dispatch, 32);
  EXPECT_EQ(combine, 32);
  EXPECT_EQ(p.collectives, 64);
  // Weights per GPU: the dense part whole (46,702,792,704 - 32 x 8 experts
  // = 1,605,636,096) plus 1 expert of each layer (32 x 176,160,768).
  EXPECT_EQ(p.params_per_gpu, int64_t{1605636096} + 32 * int64_t{176160768});
  // Attention and the rest run the GPU's one request: unchanged.
  for (size_t i = 0; i < s->whole.layers.size(); ++i) {
    const engine::LayerResult& l = s->whole.layers[i];
    if (l.op_type == "MatMul" && l.name.find("q_proj") != std::string::npos) {
      bool found = false;
      for (const engine::LayerResult& m : layers) {
        if (m.name != l.name) continue;
        found = true;
        EXPECT_DOUBLE_EQ(m.cost.macs, l.cost.macs);
      }
      EXPECT_TRUE(found) << l.name;
    }
  }
}

// Prefill, 2048 tokens, ep 2: 4,096 pairs, 2,048 on each GPU over its 4
// experts (all touched): each GPU does half the MoE MACs and reads half the
// experts; dispatch messages 2048 x 2 x 4096 x 2 = 33,554,432 bytes.
TEST_F(MixtralGraphs, ExpertParallelPrefillSumsToTheWhole) {
  absl::StatusOr<Sharded> s = Shard(*prefill_, "h100-sxm", {.ep = 2});
  ASSERT_TRUE(s.ok()) << s.status();
  double whole = 0, split = 0;
  for (const engine::LayerResult& l : s->whole.layers) {
    if (l.op_type == "MoE") {
      whole += l.cost.macs;
      EXPECT_DOUBLE_EQ(l.cost.weight_bytes, 8 * kExpertBytes);
    }
  }
  for (const engine::LayerResult& l : s->split.layers) {
    if (l.op_type == "MoE") {
      split += l.cost.macs;
      EXPECT_DOUBLE_EQ(l.cost.weight_bytes, 4 * kExpertBytes);
    }
    if (l.op_type == "AllToAll") {
      EXPECT_EQ(l.message_bytes, 33554432);
    }
  }
  EXPECT_DOUBLE_EQ(whole, 32 * 4096 * kExpertParams);
  EXPECT_DOUBLE_EQ(2 * split, whole);
}

// Tensor parallel without expert parallel: every expert's width / tp (each
// decode MoE layer reads 2 experts / 2 = 352,321,536 bytes), an all-reduce
// of the MoE output (1 x 4096 x 2 bytes) after each: 32 + 32 + the logits'
// all-gather = 65 collectives.
TEST_F(MixtralGraphs, TensorParallelSplitsTheExperts) {
  absl::StatusOr<Sharded> s =
      Shard(*decode_, "h100-sxm", {.tp = 2}, "bf16", "tensorrt");
  ASSERT_TRUE(s.ok()) << s.status();
  int moe = 0;
  for (size_t i = 0; i < s->split.layers.size(); ++i) {
    const engine::LayerResult& l = s->split.layers[i];
    if (l.op_type != "MoE") continue;
    ++moe;
    EXPECT_DOUBLE_EQ(l.cost.weight_bytes, kExpertBytes);
    EXPECT_DOUBLE_EQ(l.cost.macs, kExpertParams);
    ASSERT_LT(i + 1, s->split.layers.size());
    EXPECT_EQ(s->split.layers[i + 1].op_type, "AllReduce");
    EXPECT_EQ(s->split.layers[i + 1].message_bytes, 8192);
  }
  EXPECT_EQ(moe, 32);
  EXPECT_EQ(s->split.summary.parallel->collectives, 65);
}

TEST_F(MixtralGraphs, PipelineCutsAfterMoeLayers) {
  absl::StatusOr<Sharded> s = Shard(*decode_, "h100-sxm", {.pp = 2, .ep = 4});
  ASSERT_TRUE(s.ok()) << s.status();
  const engine::ParallelSummary& p = *s->split.summary.parallel;
  EXPECT_EQ(p.gpus, 8);
  ASSERT_EQ(p.stage_latency_s.size(), 2u);
  EXPECT_GT(p.stage_latency_s[0], 0);
  EXPECT_GT(p.stage_latency_s[1], 0);
}

// Runs `--sweep spec` (tp=, pp= or ep=LIST) on `graph`, bf16 on H100 under
// the compiled runtime, and expects each point to be what AnalyzeSharded
// gives for that width alone (width 1: the analysis itself, sharded).
absl::StatusOr<engine::SweepResult> SweepAndCompare(const graph::Graph& graph,
                                                    std::string_view spec) {
  absl::StatusOr<engine::SweepSpec> s = engine::ParseSweepSpec(spec);
  if (!s.ok()) return s.status();
  const std::optional<engine::ParallelAxis> axis =
      engine::ParallelAxisOf(s->axis);
  if (!axis) return absl::InvalidArgumentError("not a parallel sweep");
  const std::unique_ptr<Bf16OnH100> priced = MakeBf16OnH100("compiled");
  if (priced == nullptr) return absl::InternalError("no pricing");
  const engine::AnalyzeOptions o = priced->Options();
  absl::StatusOr<engine::Analysis> base = engine::Analyze(graph, priced->hw, o);
  if (!base.ok()) return base.status();
  const engine::ShardAtWidth at =
      engine::ShardAtEachWidth(graph, priced->hw, o, *base, *axis);
  absl::StatusOr<engine::SweepResult> r =
      engine::SweepParallel(at, s->axis, s->widths);
  if (!r.ok()) return r.status();
  EXPECT_EQ(r->points.size(), s->widths.size());
  for (size_t i = 0; i < r->points.size() && i < s->widths.size(); ++i) {
    const int w = static_cast<int>(s->widths[i]);
    const engine::ParallelOptions layout = engine::LayoutAlong(*axis, w);
    absl::StatusOr<engine::Analysis> one =
        w > 1 ? engine::AnalyzeSharded(graph, priced->hw, o, layout)
              : engine::ShardAnalysis(graph, *base, layout);
    if (!one.ok()) return one.status();
    const engine::SweepPoint& p = r->points[i];
    EXPECT_EQ(p.tp, layout.tp) << spec;
    EXPECT_EQ(p.pp, layout.pp) << spec;
    EXPECT_EQ(p.ep, layout.ep) << spec;
    EXPECT_EQ(p.gpus, w) << spec;
    EXPECT_DOUBLE_EQ(p.latency_s, one->summary.latency_s) << spec << " " << w;
    EXPECT_DOUBLE_EQ(p.weight_bytes_per_gpu,
                     one->summary.parallel->weight_bytes_per_gpu);
  }
  return r;
}

// --sweep ep=LIST: each point is the expert-parallel analysis at that width,
// its key "ep"; ep 1 holds all 8 experts of each of the 32 MoE layers, ep 8
// one: 32 x 7 x 352,321,536 bytes fewer per GPU; a width that does not
// divide the 8 experts names itself.
TEST_F(MixtralGraphs, ExpertParallelSweepPointsAreShardedAnalyses) {
  EXPECT_FALSE(engine::ParseSweepSpec("ep=5000").ok());
  absl::StatusOr<engine::SweepResult> r =
      SweepAndCompare(*decode_, "ep=1,2,4,8");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->points.size(), 4u);
  EXPECT_EQ(r->axis, engine::SweepSpec::Axis::kExpertParallel);
  EXPECT_DOUBLE_EQ(
      r->points[0].weight_bytes_per_gpu - r->points[3].weight_bytes_per_gpu,
      32 * 7 * kExpertBytes);
  EXPECT_EQ(r->points[0].collective_s, 0);
  EXPECT_GT(r->points[3].collective_s, 0);  // the all-to-alls
  const nlohmann::json j = engine::SweepJson(*r);
  EXPECT_EQ(j["axis"], "ep");
  EXPECT_EQ(j["points"][3]["ep"], 8);
  EXPECT_FALSE(j["points"][3].contains("tp"));
  const std::string text = engine::FormatSweep(*r);
  EXPECT_NE(text.find("expert-parallel analysis"), std::string::npos) << text;
  absl::StatusOr<engine::SweepResult> bad = SweepAndCompare(*decode_, "ep=2,3");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--sweep ep=3"), std::string::npos)
      << bad.status();
}

// --sweep pp=LIST: the pipeline analysis per stage count, its key "pp";
// the weights per GPU are the most loaded stage's, less than the whole.
TEST_F(MixtralGraphs, PipelineSweepPointsAreShardedAnalyses) {
  absl::StatusOr<engine::SweepResult> r = SweepAndCompare(*decode_, "pp=1,2,4");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->points.size(), 3u);
  EXPECT_LT(r->points[2].weight_bytes_per_gpu,
            r->points[0].weight_bytes_per_gpu / 3);
  const nlohmann::json j = engine::SweepJson(*r);
  EXPECT_EQ(j["axis"], "pp");
  EXPECT_EQ(j["points"][2]["pp"], 4);
}

TEST_F(MixtralGraphs, ExpertParallelErrors) {
  absl::StatusOr<Sharded> s = Shard(*decode_, "h100-sxm", {.ep = 3});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("--ep 3 does not divide the 8 experts"),
            std::string::npos)
      << s.status();
  s = Shard(*decode_, "h100-sxm", {.tp = 2, .ep = 2});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("--tp 2 with --ep 2"), std::string::npos)
      << s.status();
}

TEST_F(Llama8bDecode, ExpertParallelNeedsAMixtureOfExperts) {
  absl::StatusOr<Sharded> s = Shard(*graph_, "h100-sxm", {.ep = 2});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("no mixture-of-experts layer"),
            std::string::npos)
      << s.status();
}

// --sweep tp=LIST: each point is the sharded analysis at that width.
// tp 1: the whole model on one GPU, 8,030,261,248 parameters x 2 bytes
// (bf16) = 16,060,522,496 bytes of weights, no collective.
TEST_F(Llama8bDecode, TensorParallelSweepPointsAreShardedAnalyses) {
  absl::StatusOr<engine::SweepSpec> spec =
      engine::ParseSweepSpec("tp=1,2,4,...,8");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->axis, engine::SweepSpec::Axis::kTensorParallel);
  EXPECT_EQ(spec->widths, (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_FALSE(engine::ParseSweepSpec("tp=8192").ok());
  EXPECT_FALSE(engine::ParseSweepSpec("tp=0").ok());
  absl::StatusOr<engine::SweepResult> r =
      SweepAndCompare(*graph_, "tp=1,2,4,...,8");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->points.size(), 4u);
  EXPECT_EQ(r->analyses, 4);
  EXPECT_DOUBLE_EQ(r->points[0].weight_bytes_per_gpu, 16060522496.0);
  EXPECT_EQ(r->points[0].collective_s, 0);
  // Sublinear: 8 GPUs are less than 8 times faster.
  EXPECT_LT(r->points[0].latency_s / r->points[3].latency_s, 8.0);
  const nlohmann::json j = engine::SweepJson(*r);
  EXPECT_EQ(j["axis"], "tp");
  EXPECT_EQ(j["points"][3]["tp"], 8);
  EXPECT_DOUBLE_EQ(j["points"][0]["speedup"].get<double>(), 1.0);
  // A width that does not divide the heads names itself.
  absl::StatusOr<engine::SweepResult> bad = SweepAndCompare(*graph_, "tp=2,3");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--sweep tp=3"), std::string::npos)
      << bad.status();
}

TEST_F(Llama8bDecode, TensorParallelMustDivideHeads) {
  absl::StatusOr<Sharded> s = Shard(*graph_, "h100-sxm", {.tp = 3});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("32 query heads and 8 KV heads"),
            std::string::npos)
      << s.status();
  s = Shard(*graph_, "h100-sxm", {.tp = 16});  // 2 nodes; 8 KV heads
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("8 KV heads"), std::string::npos)
      << s.status();
  s = Shard(*graph_, "l4", {.tp = 2});  // no interconnect data
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("no interconnect"), std::string::npos)
      << s.status();
}

TEST_F(Llama8bDecode, PipelineStagesAndBubble) {
  absl::StatusOr<Sharded> s =
      Shard(*graph_, "h100-sxm", {.tp = 2, .pp = 2, .microbatches = 4});
  ASSERT_TRUE(s.ok()) << s.status();
  const engine::ParallelSummary& p = *s->split.summary.parallel;
  ASSERT_EQ(p.stage_latency_s.size(), 2u);
  int sends = 0;
  for (const engine::LayerResult& l : s->split.layers) {
    if (l.op_type == "SendRecv") {
      ++sends;
      EXPECT_EQ(l.message_bytes, 8192);  // 1 token x 4096 x bf16
    }
  }
  EXPECT_EQ(sends, 1);
  // Balanced by time: the two stages within 15% of each other (the LM
  // head sits in the last).
  EXPECT_NEAR(p.stage_latency_s[0] / p.stage_latency_s[1], 1.0, 0.15);
  // One request runs the stages in turn.
  EXPECT_NEAR(p.stage_latency_s[0] + p.stage_latency_s[1] +
                  s->split.summary.per_inference_s,
              s->split.summary.latency_s, 1e-12);
  // Bubble (p - 1) / (m + p - 1) = 1 / 5.
  EXPECT_DOUBLE_EQ(p.bubble_fraction, 0.2);
  const double slowest = std::max(p.stage_latency_s[0], p.stage_latency_s[1]);
  EXPECT_NEAR(p.pipeline_latency_s, s->split.summary.latency_s + 3 * slowest,
              1e-12);
  EXPECT_EQ(p.gpus, 4);
}

// --- CLI -------------------------------------------------------------------

const std::string kAnalyze = RIDGELINE_BINARY_DIR "/tools/analyze";

struct CliRun {
  int code = -1;
  std::string out, err;
  double seconds = 0;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

CliRun RunAnalyze(const std::string& args) {
  // Per process: ctest -j runs the tests of this file as separate processes
  // at once, and a shared file name let one run read another's output (CI,
  // 2026-12-04: a JSON document followed by the tail of a longer one).
  const std::string base = ::testing::TempDir() + "/ridgeline_parallel_" +
                           std::to_string(::getpid());
  const std::string out = base + "_out", err = base + "_err";
  const std::string cmd =
      "'" + kAnalyze + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = Slurp(out);
  r.err = Slurp(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

TEST(ParallelCli, ErrorsExitTwo) {
  CliRun r = RunAnalyze("--zoo llama-3.1-8b-decode --hw h100 --tp 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("32 query heads and 8 KV heads"), std::string::npos)
      << r.err;
  r = RunAnalyze("--zoo llama-3.1-8b-decode --hw l4 --tp 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no interconnect"), std::string::npos) << r.err;
  r = RunAnalyze("--zoo resnet50 --hw h100 --tp 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no transformer layer"), std::string::npos) << r.err;
  r = RunAnalyze("--zoo llama-3.1-8b-decode --hw h100 --tp 0");
  EXPECT_EQ(r.code, 1);  // a usage error: not an integer in [1, 4096]
  r = RunAnalyze("--zoo llama-3.1-8b-decode --hw h100 --microbatches 4");
  EXPECT_EQ(r.code, 1);  // needs --pp
  r = RunAnalyze("--zoo mixtral-8x7b-decode --hw h100 --ep 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--ep 3 does not divide the 8 experts"),
            std::string::npos)
      << r.err;
}

TEST(ParallelCli, TensorParallelSweep) {
  CliRun r = RunAnalyze(
      "--zoo llama-3.1-8b-decode --hw h100 --precision bf16 --sweep tp=1,2 "
      "--format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sweep"]["axis"], "tp");
  ASSERT_EQ(j["sweep"]["points"].size(), 2u);
  EXPECT_EQ(j["sweep"]["points"][1]["gpus"], 2);
  r = RunAnalyze("--zoo llama-3.1-8b-decode --hw h100 --sweep tp=3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--sweep tp=3"), std::string::npos) << r.err;
  r = RunAnalyze("--zoo llama-3.1-8b-decode --hw h100 --sweep tp=2 --tp 2");
  EXPECT_EQ(r.code, 1);
  r = RunAnalyze(
      "--zoo llama-3.1-8b-decode --hw h100 --sweep tp=2 --whole-model");
  EXPECT_EQ(r.code, 1);
}

// Decode speed-up from 1 to 2, 4 and 8 GPUs as gpt-fast measured it
// (README @32971d3, Tensor Parallelism table, Llama-2-7B on 8xA100-80GB at
// 330 W, batch 1, ENABLE_INTRA_NODE_COMM=1: 104.9, 168.84, 254.02 and
// 328.43 tokens/s = 1.61x, 2.42x, 3.13x): sublinear, as the all-reduce
// latency and the per-kernel costs stay while the weights per GPU shrink.
// With NCCL's ring instead (gpt-fast before commit c5d3454: 136.27,
// 168.78, 179.27 tokens/s) 8 GPUs were only 1.71x.
TEST(ParallelCli, GptFastTensorParallelSpeedUps) {
  auto latency = [](int tp) {
    CliRun r = RunAnalyze(fmt::format(
        "--zoo llama-2-7b-decode --hw a100 --precision bf16 --runtime "
        "compiled --dim past_sequence=104 --tp {} --format json",
        tp));
    EXPECT_EQ(r.code, 0) << r.err;
    if (r.code != 0) return -1.0;
    return nlohmann::json::parse(r.out)["summary"]["latency_s"].get<double>();
  };
  const double one = latency(1);
  const struct {
    int tp;
    double measured_speed_up;
  } rows[] = {{2, 168.84 / 104.9}, {4, 254.02 / 104.9}, {8, 328.43 / 104.9}};
  for (const auto& r : rows) {
    const double speed_up = one / latency(r.tp);
    std::printf("gpt-fast Llama-2-7B TP%d: speed-up %.2f, measured %.2f\n",
                r.tp, speed_up, r.measured_speed_up);
    EXPECT_NEAR(speed_up / r.measured_speed_up, 1, 0.10) << r.tp;
  }
}

// Quantization what-ifs on a tensor-parallel analysis (the fusion what-if:
// fusion_parallel_test.cc); activation quantization and other parallel
// layouts stay usage errors.
TEST(ParallelCli, WeightWhatIfsWithTensorParallel) {
  CliRun r = RunAnalyze(
      "--zoo llama-3.1-8b-decode --hw h100 --precision bf16 --tp 8 "
      "--weights int8");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("one inference sharded over 8 GPUs"), std::string::npos)
      << r.out;
  r = RunAnalyze(
      "--zoo llama-3.1-8b-decode --hw h100 --precision bf16 --tp 2 "
      "--what-if --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("what_if"));
  EXPECT_DOUBLE_EQ(j["what_if"][0]["latency_s"].get<double>(),
                   j["summary"]["latency_s"].get<double>());
  for (const char* bad :
       {"--tp 2 --activations int8", "--pp 2 --activations int8"}) {
    r = RunAnalyze(std::string("--zoo llama-3.1-8b-decode --hw h100 ") + bad);
    EXPECT_EQ(r.code, 1) << bad;
  }
  // --ep with the fusion what-ifs runs (tests/fusion_parallel_test.cc); on a
  // model without MoE layers it is the input error of any --ep.
  r = RunAnalyze("--zoo llama-3.1-8b-decode --hw h100 --ep 2 --fuse all");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("found no mixture-of-experts layer"), std::string::npos)
      << r.err;
  // Expert parallel: each GPU holds 2 of Mixtral's 8 experts per layer, and
  // int4 weights (0.5 B + a 2 B scale per 128 elements = 0.515625 B per
  // element, engine/quantize.h) shrink them with the rest: one GPU's
  // weights after are 0.515625 / 2 = 0.258 of before (bf16).
  r = RunAnalyze(
      "--zoo mixtral-8x7b-decode --hw h100 --precision bf16 --ep 4 "
      "--weights int4 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json ep = nlohmann::json::parse(r.out)["quantize"]["summary"];
  EXPECT_EQ(ep["gpus"], 4);
  EXPECT_NEAR(ep["weight_bytes_per_gpu"].get<double>() /
                  ep["weight_bytes_per_gpu_before"].get<double>(),
              0.515625 / 2, 0.005);
}

// Messages name a layout as the user gave it: the flags above 1.
TEST(ParallelOptionsTest, LayoutFlagsNameTheFlagsAboveOne) {
  EXPECT_EQ(engine::LayoutFlags({.tp = 8}), "--tp 8");
  EXPECT_EQ(engine::LayoutFlags({.tp = 2, .pp = 2}), "--tp 2 --pp 2");
  EXPECT_EQ(engine::LayoutFlags({.ep = 4}), "--ep 4");
  EXPECT_EQ(engine::LayoutFlags({}), "--tp 1");
  // A layout on a device without links between GPUs.
  CliRun r = RunAnalyze("--zoo llama-3.1-8b-decode --hw l4 --tp 8");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--tp 8 (8 GPUs): hardware 'l4' has no interconnect"),
            std::string::npos)
      << r.err;
}

TEST(ParallelCli, ExpertParallelJson) {
  CliRun r = RunAnalyze(
      "--zoo mixtral-8x7b-decode --hw h100 --precision bf16 --ep 8 "
      "--format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["summary"]["gpus"], 8);
  EXPECT_EQ(j["summary"]["parallel"]["ep"], 8);
  EXPECT_EQ(j["summary"]["parallel"]["experts_per_gpu"], 1);
  EXPECT_EQ(j["summary"]["active_params"], 12879925248);
  int all_to_all = 0;
  for (const auto& l : j["layers"]) all_to_all += l["op"] == "AllToAll";
  EXPECT_EQ(all_to_all, 64);
}

TEST(ParallelCli, JsonHasGpusAndCollectiveLayers) {
  CliRun r = RunAnalyze(
      "--zoo llama-3.1-8b-decode --hw h100 --precision bf16 --tp 2 --pp 2 "
      "--format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["summary"]["gpus"], 4);
  EXPECT_EQ(j["summary"]["parallel"]["tp"], 2);
  EXPECT_EQ(j["summary"]["parallel"]["pp"], 2);
  int all_reduce = 0;
  for (const auto& l : j["layers"]) {
    if (l["op"] == "AllReduce") {
      ++all_reduce;
      EXPECT_EQ(l["message_bytes"], 8192);
    }
  }
  EXPECT_EQ(all_reduce, 64);
}

// An HF/optimum-style decoder (tests/fixtures/field/make_field_fixtures.py:
// one layer, past_key_values.* inputs, attention mask): the same blocks are
// found by structure.
TEST(ParallelCli, HfDecoderFixture) {
  CliRun r = RunAnalyze("'" RIDGELINE_SOURCE_DIR
                        "/tests/fixtures/field/hf_decoder.onnx' --hw h100 "
                        "--batch 1 --dim sequence=8 --dim past_sequence=16 "
                        "--dim total_sequence=24 --tp 2 --runtime tensorrt "
                        "--format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  int all_reduce = 0, all_gather = 0;
  for (const auto& l : j["layers"]) {
    all_reduce += l["op"] == "AllReduce";
    all_gather += l["op"] == "AllGather";
  }
  EXPECT_EQ(all_reduce, 2);  // one layer: attention and MLP
  EXPECT_EQ(all_gather, 1);  // the logits (tensorrt splits the LM head)
  EXPECT_EQ(j["summary"]["parallel"]["transformer_layers"], 1);
}

TEST(ParallelCli, ServeWithTensorParallel) {
  CliRun one = RunAnalyze(
      "--zoo llama-3.1-8b-decode --hw h100 --precision bf16 --serve "
      "--prompt 128 --generate 8 --format json");
  CliRun two = RunAnalyze(
      "--zoo llama-3.1-8b-decode --hw h100 --precision bf16 --serve "
      "--prompt 128 --generate 8 --tp 2 --format json");
  ASSERT_EQ(one.code, 0) << one.err;
  ASSERT_EQ(two.code, 0) << two.err;
  const nlohmann::json a = nlohmann::json::parse(one.out)["serve"];
  const nlohmann::json b = nlohmann::json::parse(two.out)["serve"];
  EXPECT_LT(b["tpot_s"].get<double>(), a["tpot_s"].get<double>());
  EXPECT_LT(b["ttft_s"].get<double>(), a["ttft_s"].get<double>());
}

// A sharded model must fit one GPU's share, not the whole: Llama-3.1-405B
// in bf16 (its checkpoint's dtype) is 405.9 G parameters x 2 B = 812 GB,
// far over an H100's 80 GiB, but 1/16 of it (about 51 GB, plus the
// replicated embedding on the first stage) fits each of 16 GPUs. The text
// summary says both, per GPU first.
TEST(ParallelCli, FitsInMemoryIsPerGpuWhenSharded) {
  CliRun r =
      RunAnalyze("--zoo llama-3.1-405b-decode --hw h100 --tp 8 --pp 2 --top 1");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              ::testing::HasSubstr("fits in memory    yes on each of the 16 "
                                   "GPUs: its weights "));
  EXPECT_THAT(r.out, ::testing::HasSubstr("would not fit one"));
  CliRun one = RunAnalyze("--zoo llama-3.1-8b-decode --hw h100 --top 1");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_THAT(one.out,
              ::testing::HasSubstr("fits in memory    yes: weights + peak "
                                   "activations = "));
}

// Issue 14: Llama-3.1-70B decode on 8 H100s with --tp 8 under 100 ms, the
// whole process. The bound here is generous (a shared, loaded 2-core test
// machine; tests run in parallel); the README gives the measured figure.
TEST(ParallelCli, Llama70bDecodeTp8IsFast) {
  CliRun r =
      RunAnalyze("--zoo llama-3.1-70b-decode --hw h100 --tp 8 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  std::printf("llama-3.1-70b-decode --tp 8 whole process: %.1f ms\n",
              r.seconds * 1e3);
  // The target is 100 ms (README, Multi-GPU); 2 s leaves room for a loaded
  // CI host. AddressSanitizer's instrumentation multiplies the run time
  // (2.0 s measured under it beside a compile), so its builds get 10x.
#if defined(__SANITIZE_ADDRESS__)
  constexpr double kSlowdown = 10;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  constexpr double kSlowdown = 10;
#else
  constexpr double kSlowdown = 1;
#endif
#else
  constexpr double kSlowdown = 1;
#endif
  EXPECT_LT(r.seconds, 2.0 * kSlowdown);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["summary"]["gpus"], 8);
  EXPECT_EQ(j["summary"]["parallel"]["transformer_layers"], 80);
}

}  // namespace
}  // namespace ridgeline
