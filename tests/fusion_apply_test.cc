// ApplyFusion and the fusion renderers on hand-built graphs and the toy
// device of what_if_graphs.h (1 TFLOP/s, 100 GB/s, efficiencies 1).
// Expected bytes and times are worked out by hand in the comments (fp32 = 4
// bytes per element); unfused layer bytes follow issue 3's default traffic
// (every input read once, every output written once).
#include <algorithm>
#include <string>
#include <vector>

#include "engine/fusion.h"
#include "engine/fusion_report.h"
#include "gtest/gtest.h"
#include "tests/what_if_graphs.h"

namespace ridgeline::engine {
namespace {

using ::ridgeline::testing::Attrs;
using ::ridgeline::testing::GraphBuilder;
using ::ridgeline::testing::ToyDevice;
using ::ridgeline::testing::ToyOptions;

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

TEST(ApplyFusionTest, ConvBiasReluEpilogue) {
  graph::Graph g = ConvBiasRelu();
  const AnalyzeOptions options = ToyOptions(10e-6);
  Analysis unfused = *Analyze(g, ToyDevice(), options);
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("epilogue"));
  absl::StatusOr<FusionResult> r = ApplyFusion(unfused, plan, g, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->groups.size(), 1u);
  const GroupResult& group = r->groups[0];
  // Unfused: conv reads x 768 + w 432, writes c 1024 (2224 B); add reads
  // c 1024 + bias 16, writes 1024 (2064 B); relu reads 1024, writes 1024
  // (2048 B): 6336 B.
  EXPECT_DOUBLE_EQ(group.bytes_unfused, 6336);
  // Fused: reads x, w, bias (1216 B), writes out (1024 B): 2240 B.
  EXPECT_DOUBLE_EQ(group.bytes_read, 768 + 432 + 16);
  EXPECT_DOUBLE_EQ(group.bytes_written, 1024);
  EXPECT_DOUBLE_EQ(group.bytes, 2240);
  EXPECT_DOUBLE_EQ(group.weight_bytes, 432 + 16);
  double flops = 0;
  for (const LayerResult& l : unfused.layers) flops += l.flops;
  EXPECT_DOUBLE_EQ(group.flops, flops);
  // Conv: 6912 MACs = 13824 FLOPs -> 13.8 ns < 2224 B / 100 GB/s = 22.24 ns,
  // so every member is memory-bound; fused 2240 B -> 22.4 ns vs ~14.3 ns of
  // compute. Latency = max + 10 us tax.
  EXPECT_NEAR(group.latency_s, 10e-6 + 22.4e-9, 1e-15);
  EXPECT_NEAR(group.latency_unfused_s, 30e-6 + 63.36e-9, 1e-15);
  // Saved: two taxes and (6336 - 2240) B / 100 GB/s = 40.96 ns.
  EXPECT_NEAR(group.saved_s, 20e-6 + 40.96e-9, 1e-15);
  EXPECT_EQ(group.bound, Bound::kOverhead);
  EXPECT_EQ(r->kernels_unfused, 3);
  EXPECT_EQ(r->kernels, 1);
  EXPECT_NEAR(r->latency_unfused_s, unfused.summary.latency_s, 1e-15);
  EXPECT_NEAR(r->latency_s, r->latency_unfused_s - group.saved_s, 1e-15);
  EXPECT_GT(r->speedup, 2.9);  // 30.06 us / 10.02 us
}

TEST(ApplyFusionTest, PricesBoundaryTensorsWithThePrecisionOfTheAnalysis) {
  graph::Graph g = ConvBiasRelu();
  AnalyzeOptions options = ToyOptions(10e-6);
  options.precision = "fp16";
  Analysis unfused = *Analyze(g, ToyDevice(), options);
  FusionPlan plan = *PlanFusion(g, FusionKinds::All());
  absl::StatusOr<FusionResult> r = ApplyFusion(unfused, plan, g, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->groups.size(), 1u);
  // Every tensor at 2 bytes: half of 2240 B.
  EXPECT_DOUBLE_EQ(r->groups[0].bytes, 1120);
  EXPECT_DOUBLE_EQ(r->groups[0].bytes_unfused, 3168);
}

// Y = Relu(A[64,64] @ W[64,64] + b[64]) with no per-layer tax.
//   MatMul: 64^3 = 262144 MACs = 524288 FLOPs -> 524.3 ns; bytes 3 * 16384
//           = 49152 -> 491.5 ns: compute-bound.
//   Add:    reads 16384 + 256, writes 16384 = 33024 B -> 330.2 ns: memory.
//   Relu:   32768 B -> 327.7 ns: memory.
// Summed: ~0.53 us of compute vs 1.149 us of memory: memory-bound. Fused:
// 16384 + 16384 + 256 + 16384 = 49408 B -> 494.1 ns < ~0.53 us of compute:
// compute-bound. The group and its Add and Relu flip.
TEST(ApplyFusionTest, ListsBoundFlips) {
  GraphBuilder b;
  int a = b.Input("a", {64, 64});
  int w = b.Weight("w", {64, 64});
  int bias = b.Weight("b", {64});
  int m = b.Value("m", {64, 64});
  int s = b.Value("s", {64, 64});
  int y = b.Value("y", {64, 64});
  b.Node("fc", "MatMul", {a, w}, {m});
  b.Node("bias", "Add", {m, bias}, {s});
  b.Node("relu", "Relu", {s}, {y});
  b.Output(y);
  graph::Graph g = b.Finish();
  const AnalyzeOptions options = ToyOptions(0);
  Analysis unfused = *Analyze(g, ToyDevice(), options);
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("epilogue"));
  FusionResult r = *ApplyFusion(unfused, plan, g, options);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_DOUBLE_EQ(r.groups[0].bytes, 49408);
  EXPECT_EQ(r.groups[0].bound_unfused, Bound::kMemory);
  EXPECT_EQ(r.groups[0].bound, Bound::kCompute);
  ASSERT_EQ(r.group_flips.size(), 1u);
  EXPECT_EQ(r.group_flips[0].group, "epilogue:fc");
  ASSERT_EQ(r.layer_flips.size(), 2u);
  EXPECT_EQ(r.layer_flips[0].layer, "bias");
  EXPECT_EQ(r.layer_flips[1].layer, "relu");
  // Saved: the group's memory time 1149.4 ns drops to its compute time.
  EXPECT_GT(r.groups[0].saved_s, 0.6e-6);
  EXPECT_NEAR(r.groups[0].latency_s, r.groups[0].flops / 1e12, 1e-15);

  const std::string text = RenderFusionText(r);
  EXPECT_NE(text.find("epilogue:fc"), std::string::npos);
  EXPECT_NE(text.find("memory->compute"), std::string::npos);
  EXPECT_NE(text.find("bias, relu"), std::string::npos);
  nlohmann::ordered_json report = {{"layers", nlohmann::ordered_json::array()}};
  AddFusionJson(r, &report);
  ASSERT_EQ(report["groups"].size(), 1u);
  const nlohmann::ordered_json& group = report["groups"][0];
  EXPECT_EQ(group["name"], "epilogue:fc");
  EXPECT_EQ(group["members"], nlohmann::ordered_json({"fc", "bias", "relu"}));
  for (const char* key : {"flops", "bytes", "latency_s", "saved_s"}) {
    EXPECT_TRUE(group.contains(key)) << key;
  }
  EXPECT_DOUBLE_EQ(group["bytes"].get<double>(), 49408);
  EXPECT_EQ(report["fusion"]["flips"].size(), 3u);
  EXPECT_TRUE(report["layers"].empty());  // layers stay unfused
}

// The attention pattern of fusion_plan_test: flash attention saves the
// score traffic (S, S2, S3, P are each written once and read once: 8 * 512
// B = 4096 B) and the transposed K (512 B).
TEST(ApplyFusionTest, AttentionSavesTheScoreTraffic) {
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
  graph::Graph g = b.Finish();
  const AnalyzeOptions options = ToyOptions(0);
  Analysis unfused = *Analyze(g, ToyDevice(), options);
  FusionResult r = *ApplyFusion(
      unfused, *PlanFusion(g, *ParseFusionKinds("attention")), g, options);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_DOUBLE_EQ(r.groups[0].bytes, 1284);
  // Unfused: transpose 256 + 256 (512); qk 256 + 256 + 512 (1024); div
  // 512 + 4 + 512 (1028); add 512 + 256 + 512 (1280); softmax 512 + 512
  // (1024); av 512 + 256 + 256 (1024): 5892 B.
  EXPECT_DOUBLE_EQ(r.groups[0].bytes_unfused, 5892);
  EXPECT_GT(r.groups[0].saved_s, 0);
  // Every layer and the fused kernel are memory-bound, no tax: the saving is
  // the traffic saved at 100 GB/s.
  EXPECT_NEAR(r.saved_s, (5892.0 - 1284.0) / 1e11, 1e-15);
}

TEST(ApplyFusionTest, NoGroupsChangesNothing) {
  graph::Graph g = ConvBiasRelu();
  const AnalyzeOptions options = ToyOptions();
  Analysis unfused = *Analyze(g, ToyDevice(), options);
  FusionResult r = *ApplyFusion(unfused, *PlanFusion(g, {}), g, options);
  EXPECT_TRUE(r.groups.empty());
  EXPECT_DOUBLE_EQ(r.latency_s, r.latency_unfused_s);
  EXPECT_DOUBLE_EQ(r.speedup, 1);
  EXPECT_NE(RenderFusionText(r).find("speed-up 1.00x"), std::string::npos);
}

// A QDQ (explicitly quantized) chain: x -> Q -> DQ -> MatMul(DQ(w0)) ->
// Relu -> Q -> DQ -> MatMul(DQ(w1)) -> y. The int8 activations and weights
// hold the MACs, so the model runs at the int8 peak; and each DequantizeLinear
// belongs to the MatMul that reads it (its prologue), so the first kernel
// writes the quantized int8 tensor, not the dequantized fp32 one.
TEST(ApplyFusionTest, AQdqModelRunsInt8AndWritesQuantizedTensors) {
  GraphBuilder b;
  using graph::DType;
  int x = b.Input("x", {4, 16});
  int s = b.Weight("s", {});
  int z = b.Weight("z", {}, DType::kInt8);
  int w0 = b.Weight("w0", {16, 16}, DType::kInt8);
  int w1 = b.Weight("w1", {16, 16}, DType::kInt8);
  int xq = b.Value("xq", {4, 16}, DType::kInt8);
  int xd = b.Value("xd", {4, 16});
  int w0d = b.Value("w0d", {16, 16});
  int w1d = b.Value("w1d", {16, 16});
  int m0 = b.Value("m0", {4, 16});
  int r0 = b.Value("r0", {4, 16});
  int rq = b.Value("rq", {4, 16}, DType::kInt8);
  int rd = b.Value("rd", {4, 16});
  int y = b.Value("y", {4, 16});
  b.Node("x_q", "QuantizeLinear", {x, s, z}, {xq});
  b.Node("x_dq", "DequantizeLinear", {xq, s, z}, {xd});
  b.Node("w0_dq", "DequantizeLinear", {w0, s, z}, {w0d});
  b.Node("w1_dq", "DequantizeLinear", {w1, s, z}, {w1d});
  b.Node("mm0", "MatMul", {xd, w0d}, {m0});
  b.Node("relu0", "Relu", {m0}, {r0});
  b.Node("r_q", "QuantizeLinear", {r0, s, z}, {rq});
  b.Node("r_dq", "DequantizeLinear", {rq, s, z}, {rd});
  b.Node("mm1", "MatMul", {rd, w1d}, {y});
  b.Output(y);
  graph::Graph g = b.Finish();
  const Analysis a = *Analyze(g, ToyDevice(), ToyOptions());
  EXPECT_EQ(a.assumptions.peak_precision, "int8");
  EXPECT_EQ(a.assumptions.peak_flops_per_s, 2e12);
  FusionPlan plan = *PlanFusion(g, *ParseFusionKinds("epilogue"));
  bool first = false, second = false;
  for (const FusionGroup& group : plan.groups) {
    std::vector<std::string> names;
    for (int m : group.members) names.push_back(g.node(m).name);
    std::sort(names.begin(), names.end());
    if (std::find(names.begin(), names.end(), "mm0") != names.end()) {
      // x_dq and w0_dq as prologue, Relu and the Q as epilogue; not r_dq.
      EXPECT_EQ(names, (std::vector<std::string>{"mm0", "r_q", "relu0", "w0_dq",
                                                 "x_dq"}));
      first = true;
    } else if (std::find(names.begin(), names.end(), "mm1") != names.end()) {
      EXPECT_EQ(names, (std::vector<std::string>{"mm1", "r_dq", "w1_dq"}));
      second = true;
    }
  }
  EXPECT_TRUE(first && second);
}

}  // namespace
}  // namespace ridgeline::engine
