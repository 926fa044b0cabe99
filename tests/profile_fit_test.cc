// Fitting per-op-type efficiencies: exact synthetic data must give back the
// efficiencies it was made with.
#include <string>
#include <vector>

#include "engine/analysis.h"
#include "engine/fit.h"
#include "engine/hardware.h"
#include "engine/measured.h"
#include "gmock/gmock.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"

namespace ridgeline::engine {
namespace {

using ::testing::HasSubstr;

// Roof times of one sample made with efficiencies e_c = 0.4, e_m = 0.8:
// measured = max(c / 0.4, m / 0.8).
FitSample Exact(double c, double m) {
  return {
      .compute_s = c, .memory_s = m, .measured_s = std::max(c / 0.4, m / 0.8)};
}

TEST(FitRoofTest, RecoversBothEfficienciesFromExactData) {
  // c = 1 ms, m = 0.1 ms: 2.5 ms (compute); c = 2, m = 1: 5 ms (compute);
  // c = 0.01, m = 1: 1.25 ms (memory); c = 0, m = 2: 2.5 ms (memory).
  std::vector<FitSample> s = {Exact(1e-3, 1e-4), Exact(2e-3, 1e-3),
                              Exact(1e-5, 1e-3), Exact(0, 2e-3)};
  RoofFit fit = FitRoof(s, 0.001);
  ASSERT_TRUE(fit.compute_efficiency.has_value());
  ASSERT_TRUE(fit.memory_efficiency.has_value());
  EXPECT_NEAR(*fit.compute_efficiency, 0.4, 1e-12);
  EXPECT_NEAR(*fit.memory_efficiency, 0.8, 1e-12);
  EXPECT_EQ(fit.compute_bound, 2);
  EXPECT_EQ(fit.memory_bound, 2);
  EXPECT_NEAR(fit.sse_s2, 0, 1e-24);
  EXPECT_FALSE(fit.compute_clamped);
  EXPECT_FALSE(fit.memory_clamped);
}

TEST(FitRoofTest, LeastSquaresOnNoisyMemoryBoundData) {
  // All memory-bound (no FLOPs): y = b * m, least squares b = sum(y m) /
  // sum(m^2) = (2 * 1 + 5 * 2) / (1 + 4) = 12 / 5 = 2.4 -> e_m = 1 / 2.4.
  std::vector<FitSample> s = {{.compute_s = 0, .memory_s = 1, .measured_s = 2},
                              {.compute_s = 0, .memory_s = 2, .measured_s = 5}};
  RoofFit fit = FitRoof(s, 0.001);
  EXPECT_FALSE(fit.compute_efficiency.has_value());  // nothing compute-bound
  ASSERT_TRUE(fit.memory_efficiency.has_value());
  EXPECT_NEAR(*fit.memory_efficiency, 1 / 2.4, 1e-12);
  // Residuals 2 - 2.4 = -0.4 and 5 - 4.8 = 0.2: SSE = 0.16 + 0.04 = 0.2.
  EXPECT_NEAR(fit.sse_s2, 0.2, 1e-12);
}

TEST(FitRoofTest, FasterThanTheRoofIsClampedToOne) {
  // Measured at half the roof time (e.g. data served from cache): the
  // unconstrained e_m would be 2; it is clamped to 1.
  std::vector<FitSample> s = {
      {.compute_s = 0, .memory_s = 1e-3, .measured_s = 5e-4}};
  RoofFit fit = FitRoof(s, 0.001);
  ASSERT_TRUE(fit.memory_efficiency.has_value());
  EXPECT_DOUBLE_EQ(*fit.memory_efficiency, 1.0);
  EXPECT_TRUE(fit.memory_clamped);
}

TEST(FitRoofTest, CacheSpeedKeepsTheMemoryRoof) {
  // A layer with a little compute (c = 1 us) that ran in 0.3 ms although its
  // bytes need 1 ms at the DRAM bandwidth (its tensors were in cache). The
  // memory roof cannot be dropped: e_m is clamped at 1, and no compute
  // efficiency is claimed (nothing is compute-bound).
  std::vector<FitSample> s = {
      {.compute_s = 1e-6, .memory_s = 1e-3, .measured_s = 3e-4}};
  RoofFit fit = FitRoof(s, 0.001, /*fallback_compute_efficiency=*/0.5,
                        /*fallback_memory_efficiency=*/1.0);
  EXPECT_FALSE(fit.compute_efficiency.has_value());
  ASSERT_TRUE(fit.memory_efficiency.has_value());
  EXPECT_DOUBLE_EQ(*fit.memory_efficiency, 1.0);
  EXPECT_TRUE(fit.memory_clamped);
  EXPECT_EQ(fit.memory_bound, 1);
  // The prediction stays at the roof: (0.3 ms - 1 ms)^2.
  EXPECT_NEAR(fit.sse_s2, 0.7e-3 * 0.7e-3, 1e-15);
}

TEST(FitRoofTest, TiesKeepTheEnginesOwnBound) {
  // One layer either term fits exactly: c = 10 us, m = 300 us, measured
  // 400 us. With the engine's efficiencies (0.5, 1) it is memory-bound
  // (20 us < 300 us), so the fit explains it by memory: e_m = 300 / 400.
  std::vector<FitSample> s = {
      {.compute_s = 10e-6, .memory_s = 300e-6, .measured_s = 400e-6}};
  RoofFit fit = FitRoof(s, 0.001, 0.5, 1.0);
  EXPECT_FALSE(fit.compute_efficiency.has_value());
  ASSERT_TRUE(fit.memory_efficiency.has_value());
  EXPECT_NEAR(*fit.memory_efficiency, 0.75, 1e-12);
}

TEST(FitRoofTest, VerySlowIsClampedToTheMinimum) {
  // 10000x the roof time with min efficiency 0.001: clamped to 0.001.
  std::vector<FitSample> s = {
      {.compute_s = 1e-6, .memory_s = 0, .measured_s = 1e-2}};
  RoofFit fit = FitRoof(s, 0.001);
  ASSERT_TRUE(fit.compute_efficiency.has_value());
  EXPECT_NEAR(*fit.compute_efficiency, 0.001, 1e-15);
  EXPECT_TRUE(fit.compute_clamped);
}

TEST(FitRoofTest, EmptyInput) {
  RoofFit fit = FitRoof({}, 0.001);
  EXPECT_FALSE(fit.compute_efficiency.has_value());
  EXPECT_FALSE(fit.memory_efficiency.has_value());
}

// An analysis of small_cnn's graph with chosen numbers: peak 1e9 FLOP/s and
// 1e9 B/s, so c = FLOPs * 1e-9 s and m = bytes * 1e-9 s; per-layer tax 10 us.
class FitEfficienciesTest : public ::testing::Test {
 protected:
  static constexpr double kTax = 10e-6;

  void SetUp() override {
    auto g = importers::ImportOnnxFile(
        std::string(RIDGELINE_SOURCE_DIR) +
            "/tests/fixtures/profile_models/small_cnn.onnx",
        {});
    ASSERT_TRUE(g.ok()) << g.status();
    graph_ = std::move(*g);
    analysis_.assumptions.peak_flops_per_s = 1e9;
    analysis_.assumptions.memory_bandwidth_bytes_per_s = 1e9;
    analysis_.assumptions.per_layer_tax_s = kTax;
    for (int n : graph_.topological_order()) {
      LayerResult l;
      l.node = n;
      l.name = graph_.node(n).name;
      l.op_type = graph_.node(n).op_type;
      l.cost.view = true;  // until given numbers below
      analysis_.layers.push_back(l);
    }
  }

  // Gives a layer FLOPs and bytes, the analysis' default prediction
  // (e_c 0.5, e_m 1) and a measured time.
  void Set(const std::string& name, double flops, double bytes,
           double measured) {
    for (LayerResult& l : analysis_.layers) {
      if (l.name != name) continue;
      l.cost.view = false;
      l.flops = flops;
      l.bytes = bytes;
      l.t_compute_s = flops * 1e-9 / 0.5;
      l.t_memory_s = bytes * 1e-9;
      l.t_overhead_s = kTax;
      l.latency_s = std::max(l.t_compute_s, l.t_memory_s) + kTax;
      profile_.nodes.push_back({.name = name,
                                .op_type = l.op_type,
                                .seconds = measured,
                                .count = 1});
      return;
    }
    FAIL() << name;
  }

  graph::Graph graph_;
  Analysis analysis_;
  graph::MeasuredProfile profile_;
};

TEST_F(FitEfficienciesTest, RecoversPerOpEfficienciesAndSkipsTheRest) {
  // Convs made with e_c = 0.25 (compute-bound: bytes tiny):
  // measured = FLOPs * 1e-9 / 0.25 + tax.
  Set("/conv1/Conv", 4e6, 1e4, 4e6 * 1e-9 / 0.25 + kTax);  // 16.01 ms
  Set("/conv2/Conv", 2e6, 1e4, 2e6 * 1e-9 / 0.25 + kTax);  // 8.01 ms
  Set("/conv3/Conv", 1e6, 1e4, 1e6 * 1e-9 / 0.25 + kTax);  // 4.01 ms
  // Relus made with e_m = 0.5: measured = bytes * 1e-9 / 0.5 + tax.
  Set("/Relu", 0, 1e5, 1e5 * 1e-9 / 0.5 + kTax);    // 0.21 ms
  Set("/Relu_1", 0, 2e5, 2e5 * 1e-9 / 0.5 + kTax);  // 0.41 ms
  Set("/Relu_2", 0, 1e3, 5e-6);  // below the 10 us tax: overhead, skipped
  auto c = CompareWithProfile(graph_, analysis_, profile_, {});
  ASSERT_TRUE(c.ok()) << c.status();
  auto fit = FitEfficiencies(analysis_, *c, {});
  ASSERT_TRUE(fit.ok()) << fit.status();
  ASSERT_EQ(fit->op_types.size(), 2u);
  const OpTypeFit& conv = fit->op_types[0];  // more measured time
  EXPECT_EQ(conv.op_type, "Conv");
  EXPECT_EQ(conv.layers_used, 3);
  ASSERT_TRUE(conv.fit.compute_efficiency.has_value());
  EXPECT_NEAR(*conv.fit.compute_efficiency, 0.25, 1e-12);
  EXPECT_FALSE(conv.fit.memory_efficiency.has_value());
  EXPECT_NEAR(conv.rms_after_s, 0, 1e-12);
  EXPECT_GT(conv.rms_before_s, 1e-3);  // default 0.5 predicted half the time
  const OpTypeFit& relu = fit->op_types[1];
  EXPECT_EQ(relu.op_type, "Relu");
  EXPECT_EQ(relu.layers_used, 2);
  EXPECT_EQ(relu.layers_skipped, 1);
  ASSERT_TRUE(relu.fit.memory_efficiency.has_value());
  EXPECT_NEAR(*relu.fit.memory_efficiency, 0.5, 1e-12);
  EXPECT_FALSE(relu.fit.compute_efficiency.has_value());
  EXPECT_THAT(FormatFit(*fit), HasSubstr("Conv"));

  // Into a hardware entry and through its JSON format.
  Hardware hw;
  hw.key = "host";
  hw.name = "Test host";
  hw.peak_flops_per_s["fp32"] = 1e9;
  hw.memory_bandwidth_bytes_per_s = 1e9;
  hw.memory_capacity_bytes = 1e9;
  hw.memory_efficiency_by_op["Softmax"] = 0.7;  // kept: not fitted here
  ApplyFit(*fit, "p.json", &hw);
  auto back = ParseHardwareJson(HardwareToJson(hw), "fitted.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_NEAR(back->compute_efficiency_by_op.at("Conv"), 0.25, 1e-12);
  EXPECT_NEAR(back->memory_efficiency_by_op.at("Relu"), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(back->memory_efficiency_by_op.at("Softmax"), 0.7);
  EXPECT_FALSE(back->compute_efficiency_by_op.contains("Relu"));
  EXPECT_THAT(back->source, HasSubstr("p.json"));
}

TEST_F(FitEfficienciesTest, NeedsPeakAndBandwidth) {
  analysis_.assumptions.peak_flops_per_s = 0;
  Comparison empty;
  auto fit = FitEfficiencies(analysis_, empty, {});
  ASSERT_FALSE(fit.ok());
  EXPECT_THAT(std::string(MessageOf(fit.status())), HasSubstr("peak"));
}

}  // namespace
}  // namespace ridgeline::engine
