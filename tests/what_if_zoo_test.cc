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

int CountGroupsWithOp(const FusionPlan& plan, const graph::Graph& g,
                      FusionKind kind, const std::string& op) {
  int n = 0;
  for (const FusionGroup& group : plan.groups) {
    if (group.kind != kind) continue;
    for (int m : group.members) {
      if (g.node(m).op_type == op) {
        ++n;
        break;
      }
    }
  }
  return n;
}

TEST(WhatIfZooTest, ResNet50AtBatch32ListsBoundFlips) {
  absl::StatusOr<std::vector<zoo::ModelEntry>> catalog = zoo::ModelCatalog();
  ASSERT_TRUE(catalog.ok());
  absl::StatusOr<zoo::ModelEntry> entry = zoo::FindModel(*catalog, "resnet50");
  if (!entry.ok()) GTEST_SKIP() << "zoo entry resnet50 is missing";
  importers::ImportOptions import;
  import.dims = zoo::EntryDims(*entry, {}, 32);
  graph::Graph g =
      *importers::ImportOnnxBytes(entry->onnx, entry->name, "", import);
  const Hardware hw = H100();
  AnalyzeOptions options;
  options.precision = "fp16";
  options.batch = 32;
  Analysis unfused = *Analyze(g, hw, options);
  FusionResult r = *ApplyFusion(
      unfused, *PlanFusion(g, *ParseFusionKinds("epilogue")), g, options);
  std::cout << RenderFusionText(r, {.top = 10});
  EXPECT_GT(r.saved_s, 0);
  // The flips are the memory-bound epilogue members (Relu, residual Add)
  // whose traffic disappears into the conv's kernel.
  EXPECT_FALSE(r.layer_flips.empty());
  for (const BoundFlip& f : r.layer_flips) {
    EXPECT_TRUE(f.layer.find("Relu") != std::string::npos ||
                f.layer.find("Add") != std::string::npos)
        << f.layer;
    EXPECT_EQ(f.from, Bound::kMemory) << f.layer;
  }
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
  std::cout << RenderFusionText(r, {.top = 12});
  // One flash-attention kernel per layer, and one group per RMSNorm
  // (2 per layer + the final norm: 65), each holding its ReduceMean.
  EXPECT_EQ(CountKind(plan, FusionKind::kAttention), 32);
  EXPECT_EQ(CountGroupsWithOp(plan, *g, FusionKind::kElementwise, "ReduceMean"),
            65);
  EXPECT_GT(r.saved_s, 0);
  for (const GroupResult& group : r.groups) {
    EXPECT_GT(group.saved_s, 0) << group.name;
    if (group.kind != FusionKind::kAttention) continue;
    // Reads the KV cache once: present key and value, [1, 8, 2049, 128]
    // at fp16 = 4196352 B each; q (32 * 128 * 2 = 8192 B), the mask
    // [1, 1, 1, 2049] (4098 B) and the scale (2 B); writes the output
    // (8192 B). The [1, 32, 1, 2049] scores are never written.
    EXPECT_DOUBLE_EQ(group.bytes, 2 * 4196352.0 + 8192 + 4098 + 2 + 8192)
        << group.name;
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
  // Matrices go from 2 B to 0.5 + 2/128 = 0.515625 B per element: 3.879x
  // (the embedding Gather reads only one row, the 1-D norm weights stay).
  EXPECT_NEAR(r->weight_traffic_before / r->weight_traffic, 2 / 0.515625, 0.01);
  EXPECT_NEAR(r->model_bytes_before / r->model_bytes, 2 / 0.515625, 0.01);
  // A decode step is memory-bound: every layer's roofline time is its bytes
  // over the bandwidth, so the roofline time falls with the bytes...
  double bytes_before = 0, bytes_after = 0;
  for (const QuantizedLayer& l : r->layers) {
    bytes_before += l.bytes_before;
    bytes_after += l.bytes;
  }
  const double bandwidth =
      hw.memory_bandwidth_bytes_per_s * options.memory_efficiency;
  EXPECT_NEAR(r->roof_before_s, bytes_before / bandwidth,
              1e-3 * r->roof_before_s);
  EXPECT_NEAR(r->roof_s, bytes_after / bandwidth, 1e-3 * r->roof_s);
  // ... and the speed-up is that saving, diluted by the unchanged taxes.
  EXPECT_NEAR(r->speedup,
              (r->roof_before_s + r->taxes_s) / (r->roof_s + r->taxes_s), 1e-9);
  EXPECT_GT(r->speedup, 1);
  // Without per-layer taxes (a captured graph), the speed-up is the byte
  // ratio: weights shrink 3.88x, the KV cache and activations do not.
  AnalyzeOptions no_tax = options;
  no_tax.per_layer_tax_s = 0;
  no_tax.dispatch_tax_s = 0;
  QuantizeResult bare = *AnalyzeQuantized(*g, hw, no_tax, q);
  EXPECT_NEAR(bare.speedup, bytes_before / bytes_after, 0.01);
  std::cout << "no-tax speed-up " << bare.speedup << "\n";

  absl::StatusOr<std::vector<WhatIfRow>> rows = RunWhatIf(*g, hw, options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  std::cout << RenderWhatIfText(*rows);
}

}  // namespace
}  // namespace ridgeline::engine
