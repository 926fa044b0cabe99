// Sweeps: --sweep parsing, batch interpolation (exact, verified, with a
// fallback), re-pricing that agrees with Analyze(), device sweeps.
#include "engine/sweep.h"

#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "tests/zoo_test_util.h"

namespace ridgeline::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseSweepSpec, GeometricArithmeticRangesAndDevices) {
  absl::StatusOr<SweepSpec> s = ParseSweepSpec("batch=1,2,4,...,256");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->axis, SweepSpec::Axis::kBatch);
  EXPECT_THAT(s->batches, ElementsAre(1, 2, 4, 8, 16, 32, 64, 128, 256));
  s = ParseSweepSpec("batch=1,2,...,5");
  ASSERT_TRUE(s.ok());
  EXPECT_THAT(s->batches, ElementsAre(1, 2, 3, 4, 5));
  s = ParseSweepSpec("batch=8,16,...,40");
  ASSERT_TRUE(s.ok());
  EXPECT_THAT(s->batches, ElementsAre(8, 16, 24, 32, 40));
  s = ParseSweepSpec("batch=1,3,9,...,100");  // last value kept as given
  ASSERT_TRUE(s.ok());
  EXPECT_THAT(s->batches, ElementsAre(1, 3, 9, 27, 81, 100));
  s = ParseSweepSpec("batch=1:1000");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->batches.size(), 1000u);
  EXPECT_EQ(s->batches.back(), 1000);
  s = ParseSweepSpec("batch=1:9:4,32");
  ASSERT_TRUE(s.ok());
  EXPECT_THAT(s->batches, ElementsAre(1, 5, 9, 32));
  s = ParseSweepSpec("hw=a100, h100,h200");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->axis, SweepSpec::Axis::kHardware);
  EXPECT_THAT(s->hardware, ElementsAre("a100", "h100", "h200"));
}

TEST(ParseSweepSpec, RejectsBadSpecs) {
  for (const char* bad :
       {"batch", "batch=", "batch=0", "batch=1,x", "batch=...,4",
        "batch=1,...,4", "batch=4,2,...,8", "batch=1:0", "seq=1,2",
        "hw=a100,,h100", "batch=1:1000000"}) {
    EXPECT_FALSE(ParseSweepSpec(bad).ok()) << bad;
  }
}

// A fake model whose layer costs are given functions of the batch.
Analysis FakeAnalysis(int64_t batch, bool quadratic) {
  const double b = static_cast<double>(batch);
  Analysis a;
  a.batch = batch;
  a.hardware.key = "toy";
  a.hardware.memory_bandwidth_bytes_per_s = 1e12;
  a.assumptions.flops_per_mac = 2;
  a.assumptions.compute_efficiency = 0.5;
  a.assumptions.memory_efficiency = 1;
  a.assumptions.per_layer_tax_s = 1e-6;
  a.assumptions.dispatch_tax_s = 2e-6;
  a.assumptions.peak_precision = "fp16";
  a.assumptions.peak_flops_per_s = 1e12;
  a.assumptions.memory_bandwidth_bytes_per_s = 1e12;
  // "mm": 1e6 MACs per sample, 2e6 weight bytes + 1e3 B per sample.
  LayerResult mm;
  mm.node = 0;
  mm.name = "mm";
  mm.cost.macs = 1e6 * (quadratic ? b * b : b);
  mm.cost.bytes_read = 2e6 + 1e3 * b;
  LayerResult view;
  view.node = 1;
  view.name = "view";
  view.cost.view = true;
  mm.kernel = 0;
  a.layers = {mm, view};
  // Priced with the flat roofline (efficiency 0.5, bandwidth as specified,
  // 1 us per kernel, 2 us per inference); "mm" is the only kernel.
  a.pricing.runtime = FlatRuntime(0.5, 1.0, 1e-6);
  a.pricing.peak_flops_per_s = 1e12;
  a.pricing.memory_bandwidth_bytes_per_s = 1e12;
  a.pricing.flops_per_mac = 2;
  a.pricing.per_inference_s = 2e-6;
  KernelResult k;
  k.name = "mm";
  k.layers = {0};
  k.work.kind = KernelClass::kMatrix;
  k.work.matrix_flops = 2 * mm.cost.macs;
  k.work.bytes = mm.cost.Bytes();
  a.kernels = {k};
  a.summary.macs = mm.cost.macs;
  a.summary.flops = 2 * mm.cost.macs;
  a.summary.bytes = mm.cost.Bytes();
  a.summary.layers = 1;
  return a;
}

TEST(SweepBatch, InterpolatesAffineCostsExactly) {
  int calls = 0;
  AnalyzeAtBatch at = [&](int64_t b) -> absl::StatusOr<Analysis> {
    ++calls;
    return FakeAnalysis(b, false);
  };
  absl::StatusOr<SweepResult> r = SweepBatch(at, {1, 3, 64}, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->interpolated);
  EXPECT_EQ(calls, 3);  // batch 1, 2 and the check at 64
  ASSERT_EQ(r->points.size(), 3u);
  // Batch 3: FLOPs 6e6 -> 12 us at 0.5e12; bytes 2.003e6 -> 2.003 us;
  // latency 12 + 1 (layer tax) + 2 (dispatch) = 15 us; compute-bound.
  const SweepPoint& p = r->points[1];
  EXPECT_EQ(p.batch, 3);
  EXPECT_NEAR(p.latency_s, 15e-6, 1e-15);
  EXPECT_NEAR(p.throughput_per_s, 3 / 15e-6, 1e-6);
  EXPECT_EQ(p.bound, Bound::kCompute);
  EXPECT_NEAR(p.mfu, (6e6 / 15e-6) / 1e12, 1e-12);
  // Batch 1: FLOPs 2e6 -> 4 us; bytes 2.001e6 -> 2.001 us: compute too.
  EXPECT_FALSE(r->layer_flip.has_value());
}

TEST(SweepBatch, FallsBackWhenACostIsNotAffine) {
  int calls = 0;
  AnalyzeAtBatch at = [&](int64_t b) -> absl::StatusOr<Analysis> {
    ++calls;
    return FakeAnalysis(b, true);
  };
  absl::StatusOr<SweepResult> r = SweepBatch(at, {1, 4, 8}, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->interpolated);
  EXPECT_THAT(r->non_affine_layers, ElementsAre("mm"));
  EXPECT_EQ(calls, 3 + 3);  // 1, 2, check at 8, then every point
  // Batch 4: 16e6 MACs = 32e6 FLOPs -> 64 us + 1 + 2.
  EXPECT_NEAR(r->points[1].latency_s, 67e-6, 1e-15);
  EXPECT_THAT(FormatSweep(*r), HasSubstr("not affine"));
}

TEST(SweepBatch, FindsTheFlipAndFormats) {
  // Memory-bound at small batch: bytes 2e6 + 1e3 b vs FLOPs 2e6 b at half
  // the rate: T_c = 4 b us, T_m = 2 + 0.001 b us. b=1: 4 > 2.001: compute.
  // Make the weights heavier to get a flip: use batch 1 with 10x bytes.
  AnalyzeAtBatch at = [&](int64_t b) -> absl::StatusOr<Analysis> {
    Analysis a = FakeAnalysis(b, false);
    a.layers[0].cost.bytes_read = 1e7 + 1e3 * static_cast<double>(b);
    a.kernels[0].work.bytes = a.layers[0].cost.Bytes();
    return a;
  };
  WholeModelOptions lumped;
  SweepOptions options;
  options.whole_model = lumped;
  absl::StatusOr<SweepResult> r = SweepBatch(at, {1, 2, 4}, options);
  ASSERT_TRUE(r.ok()) << r.status();
  // T_m = 10.001 us at b=1, 10.002 at 2, 10.004 at 4; T_c = 4, 8, 16 us:
  // memory, memory, compute.
  EXPECT_EQ(r->points[0].bound, Bound::kMemory);
  EXPECT_EQ(r->points[1].bound, Bound::kMemory);
  EXPECT_EQ(r->points[2].bound, Bound::kCompute);
  ASSERT_TRUE(r->layer_flip.has_value());
  EXPECT_EQ(*r->layer_flip, 2u);
  ASSERT_TRUE(r->whole_model_flip.has_value());
  EXPECT_EQ(*r->whole_model_flip, 2u);
  std::string text = FormatSweep(*r);
  EXPECT_THAT(text, HasSubstr("flips from memory to compute at batch 4"));
  nlohmann::json j = SweepJson(*r);
  EXPECT_EQ(j["bound_flip"]["batch"], 4);
  EXPECT_EQ(j["points"].size(), 3u);
  EXPECT_TRUE(j["points"][0].contains("whole_model"));
}

// Re-pricing an analysis' own counts reproduces Analyze() (same roofline).
TEST(PricePoint, AgreesWithAnalyzeOnAZooModel) {
  absl::StatusOr<zoo::ModelEntry> entry = testing::SourceEntry("bert-base");
  ASSERT_TRUE(entry.ok());
  absl::StatusOr<graph::Graph> g = testing::ImportEntry(*entry);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<Hardware> hw = testing::SourceHardware("a100-80gb-sxm");
  ASSERT_TRUE(hw.ok());
  absl::StatusOr<Analysis> a = Analyze(*g, *hw, AnalyzeOptions{});
  ASSERT_TRUE(a.ok()) << a.status();
  SweepPoint p = PricePoint(*a, *hw, a->assumptions.peak_flops_per_s,
                            a->assumptions.dispatch_tax_s);
  EXPECT_NEAR(p.latency_s, a->summary.latency_s, 1e-12 * a->summary.latency_s);
  EXPECT_NEAR(p.mfu, a->summary.mfu, 1e-12);
  EXPECT_EQ(p.bound, a->summary.bound);
  EXPECT_DOUBLE_EQ(p.flops, a->summary.flops);
  EXPECT_DOUBLE_EQ(p.bytes, a->summary.bytes);
}

// Interpolated zoo sweeps equal direct analyses at every point.
TEST(SweepBatch, ZooModelsAreAffineInTheBatch) {
  for (const char* name : {"resnet50", "bert-base", "llama-3.1-8b-decode"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<zoo::ModelEntry> entry = testing::SourceEntry(name);
    ASSERT_TRUE(entry.ok());
    absl::StatusOr<Hardware> hw = testing::SourceHardware("h100-sxm");
    ASSERT_TRUE(hw.ok());
    AnalyzeAtBatch at = [&](int64_t b) -> absl::StatusOr<Analysis> {
      absl::StatusOr<graph::Graph> g = testing::ImportEntry(*entry, b);
      if (!g.ok()) return g.status();
      AnalyzeOptions o;
      o.batch = b;
      return Analyze(*g, *hw, o);
    };
    absl::StatusOr<SweepResult> r = SweepBatch(at, {1, 3, 16}, {});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->interpolated)
        << (r->non_affine_layers.empty() ? "" : r->non_affine_layers.front());
    absl::StatusOr<Analysis> direct = at(3);
    ASSERT_TRUE(direct.ok());
    EXPECT_NEAR(r->points[1].latency_s, direct->summary.latency_s,
                1e-9 * direct->summary.latency_s);
    EXPECT_NEAR(r->points[1].flops, direct->summary.flops,
                1e-9 * direct->summary.flops);
    EXPECT_EQ(r->points[1].bound, direct->summary.bound);
  }
}

TEST(SweepHardware, RepricesAtAnExplicitPrecision) {
  absl::StatusOr<zoo::ModelEntry> entry = testing::SourceEntry("resnet50");
  ASSERT_TRUE(entry.ok());
  absl::StatusOr<graph::Graph> g = testing::ImportEntry(*entry);
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<Hardware> devices;
  for (const char* key : {"a100-80gb-sxm", "h100-sxm", "h200-sxm"}) {
    absl::StatusOr<Hardware> hw = testing::SourceHardware(key);
    ASSERT_TRUE(hw.ok()) << key;
    devices.push_back(*hw);
  }
  AnalyzeOptions options;
  options.precision = "fp16";
  absl::StatusOr<Analysis> base = Analyze(*g, devices[0], options);
  ASSERT_TRUE(base.ok()) << base.status();
  int calls = 0;
  AnalyzeOnHardware on = [&](const Hardware& hw) {
    ++calls;
    return Analyze(*g, hw, options);
  };
  absl::StatusOr<SweepResult> r =
      SweepHardware(*base, options, devices, on, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(calls, 0);
  ASSERT_EQ(r->points.size(), 3u);
  for (size_t i = 0; i < devices.size(); ++i) {
    absl::StatusOr<Analysis> direct = Analyze(*g, devices[i], options);
    ASSERT_TRUE(direct.ok());
    EXPECT_EQ(r->points[i].hardware, devices[i].key);
    EXPECT_NEAR(r->points[i].latency_s, direct->summary.latency_s,
                1e-12 * direct->summary.latency_s);
  }
  // At model dtypes the device picks the peak: analyzed per device.
  AnalyzeOptions dtypes;
  absl::StatusOr<SweepResult> r2 =
      SweepHardware(*base, dtypes, devices, on, {});
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(calls, 3);
  EXPECT_THAT(FormatSweep(*r2), HasSubstr("h200-sxm"));
}

}  // namespace
}  // namespace ridgeline::engine
