// Issue 4's table of published mlsysim results, reproduced from OUR zoo
// graphs' counted MACs and parameters with the zoo's A100/H100 entries and
// mlsysim's assumptions (1 FLOP per MAC for CNNs, 2 x params per token for
// transformers, efficiency 0.5, 10 us per layer, the device's dispatch tax).
// Published figures: mlsysim 0.1.1 Engine.solve (blog "MLSys·im Roofline
// tutorial notes"; see engine/WHOLE_MODEL.md). Tolerance 1% where the figure
// has three significant digits, half a unit of the last digit otherwise.
#include <string>
#include <vector>

#include "engine/analysis.h"
#include "engine/sweep.h"
#include "engine/whole_model.h"
#include "gtest/gtest.h"
#include "tests/zoo_test_util.h"

namespace ridgeline {
namespace {

struct MlsysimRun {
  engine::Analysis analysis;
  engine::WholeModelResult whole;
};

// Imports entry `name` at `batch`, analyzes on `hw` at fp16 with mlsysim's
// assumptions, and computes the mlsysim whole-model estimate.
absl::StatusOr<MlsysimRun> Mlsysim(const std::string& name,
                                   const std::string& hw, int64_t batch) {
  absl::StatusOr<zoo::ModelEntry> entry = testing::SourceEntry(name);
  if (!entry.ok()) return entry.status();
  absl::StatusOr<graph::Graph> g = testing::ImportEntry(*entry, batch);
  if (!g.ok()) return g.status();
  absl::StatusOr<engine::Hardware> device = testing::SourceHardware(hw);
  if (!device.ok()) return device.status();
  absl::StatusOr<engine::Analysis> a = engine::Analyze(
      *g, *device, testing::MlsysimAnalyzeOptions("fp16", batch));
  if (!a.ok()) return a.status();
  auto dims = zoo::EntryDims(*entry, {}, batch);
  absl::StatusOr<engine::WholeModelResult> w =
      engine::WholeModel(*a, zoo::MlsysimOptions(*entry, dims));
  if (!w.ok()) return w.status();
  return MlsysimRun{*std::move(a), *w};
}

void ExpectWithin(double actual, double expected, double fraction) {
  EXPECT_NEAR(actual, expected, fraction * std::abs(expected));
}

// Our ResNet-50 counts 4,089,184,256 MACs and 25,530,472 parameters
// (BatchNorm folded), within 1% of mlsysim's 4.1e9 and 25.6e6.
TEST(ZooMlsysim, ResNet50CountsAreMlsysims) {
  absl::StatusOr<MlsysimRun> r = Mlsysim("resnet50", "a100-80gb-sxm", 1);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectWithin(r->analysis.summary.macs, 4.1e9, 0.01);
  ExpectWithin(static_cast<double>(r->analysis.summary.params), 25.6e6, 0.01);
}

// A100 fp16 batch 1: memory-bound, 0.543 ms, 1843 img/s, intensity 72.8,
// MFU 2.4%.
TEST(ZooMlsysim, ResNet50A100Batch1) {
  absl::StatusOr<MlsysimRun> r = Mlsysim("resnet50", "a100-80gb-sxm", 1);
  ASSERT_TRUE(r.ok()) << r.status();
  const engine::WholeModelResult& w = r->whole;
  EXPECT_EQ(w.bound, engine::Bound::kMemory);
  ExpectWithin(w.latency_s, 0.543e-3, 0.01);
  ExpectWithin(w.throughput_per_s, 1843, 0.01);
  ExpectWithin(w.intensity, 72.8, 0.01);
  EXPECT_NEAR(w.mfu, 0.024, 0.0005);  // two significant digits
  // The fixed part: dispatch 15 us + 50 layers x 10 us = 0.515 ms.
  EXPECT_NEAR(w.t_overhead_s, 0.515e-3, 1e-12);
}

// A100 fp16 batch 2: intensity 133.5, compute-bound.
TEST(ZooMlsysim, ResNet50A100Batch2) {
  absl::StatusOr<MlsysimRun> r = Mlsysim("resnet50", "a100-80gb-sxm", 2);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->whole.bound, engine::Bound::kCompute);
  ExpectWithin(r->whole.intensity, 133.5, 0.01);
}

// A100 fp16 batch 256: compute-bound, 7.24 ms, MFU 46.4%, throughput 19.2x
// batch 1's.
TEST(ZooMlsysim, ResNet50A100Batch256) {
  absl::StatusOr<MlsysimRun> r1 = Mlsysim("resnet50", "a100-80gb-sxm", 1);
  absl::StatusOr<MlsysimRun> r = Mlsysim("resnet50", "a100-80gb-sxm", 256);
  ASSERT_TRUE(r1.ok()) << r1.status();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->whole.bound, engine::Bound::kCompute);
  ExpectWithin(r->whole.latency_s, 7.24e-3, 0.01);
  ExpectWithin(r->whole.mfu, 0.464, 0.01);
  ExpectWithin(r->whole.throughput_per_s / r1->whole.throughput_per_s, 19.2,
               0.01);
}

// H100 fp16 batch 1: 1898 img/s.
TEST(ZooMlsysim, ResNet50H100Batch1) {
  absl::StatusOr<MlsysimRun> r = Mlsysim("resnet50", "h100-sxm", 1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->whole.bound, engine::Bound::kMemory);
  ExpectWithin(r->whole.throughput_per_s, 1898, 0.01);
}

// H100: crossover to compute-bound at batch 4 on a 1,2,4,... sweep (A100's
// is at 2), found by the batch sweep (one analysis re-priced per point).
engine::AnalyzeAtBatch ResNet50At(const engine::Hardware& hw) {
  return [hw](int64_t batch) -> absl::StatusOr<engine::Analysis> {
    absl::StatusOr<zoo::ModelEntry> entry = testing::SourceEntry("resnet50");
    if (!entry.ok()) return entry.status();
    absl::StatusOr<graph::Graph> g = testing::ImportEntry(*entry, batch);
    if (!g.ok()) return g.status();
    return engine::Analyze(*g, hw,
                           testing::MlsysimAnalyzeOptions("fp16", batch));
  };
}

TEST(ZooMlsysim, ResNet50CrossoverBatch) {
  absl::StatusOr<zoo::ModelEntry> entry = testing::SourceEntry("resnet50");
  ASSERT_TRUE(entry.ok());
  absl::StatusOr<engine::SweepSpec> spec =
      engine::ParseSweepSpec("batch=1,2,4,...,256");
  ASSERT_TRUE(spec.ok());
  engine::SweepOptions options;
  options.whole_model =
      zoo::MlsysimOptions(*entry, zoo::EntryDims(*entry, {}, 1));
  const std::pair<std::string, int64_t> cases[] = {{"h100-sxm", 4},
                                                   {"a100-80gb-sxm", 2}};
  for (const auto& [hw, crossover] : cases) {
    SCOPED_TRACE(hw);
    absl::StatusOr<engine::Hardware> device = testing::SourceHardware(hw);
    ASSERT_TRUE(device.ok());
    absl::StatusOr<engine::SweepResult> sweep =
        engine::SweepBatch(ResNet50At(*device), spec->batches, options);
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    EXPECT_TRUE(sweep->interpolated);
    ASSERT_TRUE(sweep->whole_model_flip.has_value());
    const engine::SweepPoint& p = sweep->points[*sweep->whole_model_flip];
    EXPECT_EQ(p.batch, crossover);
    EXPECT_EQ(p.whole_model->bound, engine::Bound::kCompute);
    // Every later point stays compute-bound.
    for (size_t i = *sweep->whole_model_flip; i < sweep->points.size(); ++i) {
      EXPECT_EQ(sweep->points[i].whole_model->bound, engine::Bound::kCompute);
    }
  }
}

// Llama-3.1-8B decode, A100 fp16 batch 1: memory-bound, 9.0 ms, 111 tok/s,
// T_memory 8.66 ms, T_compute 0.10 ms, intensity 0.91. Ops = 2 x
// 8,030,261,248 params x 1 token.
TEST(ZooMlsysim, LlamaDecodeA100Batch1) {
  absl::StatusOr<MlsysimRun> r =
      Mlsysim("llama-3.1-8b-decode", "a100-80gb-sxm", 1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->analysis.summary.params, 8030261248);
  const engine::WholeModelResult& w = r->whole;
  EXPECT_EQ(w.bound, engine::Bound::kMemory);
  EXPECT_NEAR(w.latency_s, 9.0e-3, 0.05e-3);  // two significant digits
  ExpectWithin(w.throughput_per_s, 111, 0.01);
  ExpectWithin(w.t_memory_s, 8.66e-3, 0.01);
  EXPECT_NEAR(w.t_compute_s, 0.10e-3, 0.005e-3);  // two significant digits
  EXPECT_NEAR(w.intensity, 0.91, 0.005);
  EXPECT_DOUBLE_EQ(w.ops, 2.0 * 8030261248.0);
}

// The layer-level result is never faster than the lumped one with the same
// overhead model (a sum of per-layer maxima >= the max of the sums).
TEST(ZooMlsysim, LayerLevelIsNeverBelowLumped) {
  for (const char* name : {"resnet50", "llama-3.1-8b-decode", "bert-base"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<MlsysimRun> r = Mlsysim(name, "a100-80gb-sxm", 1);
    ASSERT_TRUE(r.ok()) << r.status();
    absl::StatusOr<engine::WholeModelResult> lumped =
        engine::WholeModel(r->analysis, engine::WholeModelOptions{});
    ASSERT_TRUE(lumped.ok());
    EXPECT_GE(r->analysis.summary.latency_s, lumped->latency_s * (1 - 1e-12));
    EXPECT_NEAR(lumped->t_overhead_s,
                r->analysis.assumptions.dispatch_tax_s +
                    r->analysis.summary.layers * 10e-6,
                1e-12);
  }
}

}  // namespace
}  // namespace ridgeline
