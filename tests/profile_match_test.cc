// Matching measured profiles to analyzed layers: real ONNX Runtime profiles
// of the committed small models (graph optimization disabled and enabled), a
// real PyTorch trace, unknown names, and the comparison arithmetic on a
// hand-built analysis.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "engine/analysis.h"
#include "engine/hardware.h"
#include "engine/measured.h"
#include "engine/measured_report.h"
#include "gmock/gmock.h"
#include "graph/fmt_absl.h"
#include "graph/measured_profile.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"
#include "importers/profile/profile_reader.h"

namespace ridgeline::engine {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

std::string Source(const std::string& path) {
  return std::string(RIDGELINE_SOURCE_DIR) + "/tests/fixtures/" + path;
}

// A toy device: 1 TFLOP/s fp32, 100 GB/s.
Hardware ToyHardware() {
  Hardware hw;
  hw.key = "toy";
  hw.name = "Toy";
  hw.peak_flops_per_s["fp32"] = 1e12;
  hw.memory_bandwidth_bytes_per_s = 1e11;
  hw.memory_capacity_bytes = 1e9;
  return hw;
}

struct Loaded {
  graph::Graph graph;
  Analysis analysis;
};

Loaded Load(const std::string& model) {
  auto g = importers::ImportOnnxFile(Source("profile_models/" + model), {});
  EXPECT_TRUE(g.ok()) << g.status();
  Loaded out{std::move(*g), {}};
  auto a = Analyze(out.graph, ToyHardware(), AnalyzeOptions{});
  EXPECT_TRUE(a.ok()) << a.status();
  out.analysis = std::move(*a);
  return out;
}

graph::MeasuredProfile Profile(const std::string& name) {
  auto p = importers::ReadProfile(Source("profiles/" + name));
  EXPECT_TRUE(p.ok()) << p.status();
  return *p;
}

int LayerIndex(const Analysis& a, const std::string& name) {
  for (size_t i = 0; i < a.layers.size(); ++i) {
    if (a.layers[i].name == name) return static_cast<int>(i);
  }
  ADD_FAILURE() << "no layer " << name;
  return -1;
}

const MeasuredUnit* UnitOf(const Comparison& c, const Analysis& a,
                           const std::string& layer) {
  int l = LayerIndex(a, layer);
  if (l < 0) return nullptr;
  int u = c.unit_of_layer[static_cast<size_t>(l)];
  return u < 0 ? nullptr : &c.units[static_cast<size_t>(u)];
}

std::vector<std::string> LayerNames(const Analysis& a, const MeasuredUnit& u) {
  std::vector<std::string> names;
  for (int l : u.layers) names.push_back(a.layers[static_cast<size_t>(l)].name);
  return names;
}

TEST(ProfileMatchTest, OrtDisabledMatchesEveryLayerByName) {
  Loaded m = Load("small_cnn.onnx");
  graph::MeasuredProfile p = Profile("small_cnn_disabled.json");
  auto c = CompareWithProfile(m.graph, m.analysis, p, {});
  ASSERT_TRUE(c.ok()) << c.status();
  // All 11 nodes ran as themselves: 11 one-layer units, nothing unmatched.
  EXPECT_EQ(c->units.size(), 11u);
  for (const MeasuredUnit& u : c->units) {
    EXPECT_EQ(u.kind, MatchKind::kName) << u.name;
    EXPECT_EQ(u.layers.size(), 1u) << u.name;
    EXPECT_TRUE(u.absorbed_layers.empty()) << u.name;
  }
  EXPECT_TRUE(c->unmatched_nodes.empty());
  EXPECT_TRUE(c->unmatched_layers.empty());
  EXPECT_EQ(c->predicted_total_s, m.analysis.summary.latency_s);
  EXPECT_TRUE(c->measured_total_is_whole_run);
  EXPECT_EQ(c->measured_total_s, *p.run_seconds);
  EXPECT_DOUBLE_EQ(c->matched_measured_s, p.NodeSeconds());
  EXPECT_TRUE(c->spearman.has_value());
}

TEST(ProfileMatchTest, OrtEnabledFusedNodesBecomeGroups) {
  Loaded m = Load("small_cnn.onnx");
  auto c = CompareWithProfile(m.graph, m.analysis,
                              Profile("small_cnn_all.json"), {});
  ASSERT_TRUE(c.ok()) << c.status();
  const Analysis& a = m.analysis;
  // "/Relu_output_0_nchwc" (op Conv) is named after the Relu's output: the
  // group reaches up from /Relu to the Conv that feeds it.
  const MeasuredUnit* conv1 = UnitOf(*c, a, "/Relu");
  ASSERT_NE(conv1, nullptr);
  EXPECT_EQ(conv1->name, "/conv1/Conv");
  EXPECT_EQ(conv1->kind, MatchKind::kRenamed);
  EXPECT_THAT(LayerNames(a, *conv1), ElementsAre("/conv1/Conv", "/Relu"));
  EXPECT_THAT(conv1->measured_nodes, ElementsAre("/Relu_output_0_nchwc"));
  // conv2 fused with the residual Add and the Relu after it: no trace of
  // them, inferred from the single-consumer chain.
  const MeasuredUnit* conv2 = UnitOf(*c, a, "/conv2/Conv");
  ASSERT_NE(conv2, nullptr);
  EXPECT_THAT(LayerNames(a, *conv2),
              ElementsAre("/conv2/Conv", "/Add", "/Relu_1"));
  EXPECT_EQ(conv2->absorbed_layers.size(), 2u);
  const MeasuredUnit* conv3 = UnitOf(*c, a, "/conv3/Conv");
  ASSERT_NE(conv3, nullptr);
  EXPECT_THAT(LayerNames(a, *conv3), ElementsAre("/conv3/Conv", "/Relu_2"));
  // Conv1+Relu, MaxPool, Conv2+Add+Relu, Conv3+Relu, GlobalAveragePool,
  // Flatten, Gemm.
  EXPECT_EQ(c->units.size(), 7u);
  // ORT's own layout conversion has no layer.
  ASSERT_EQ(c->unmatched_nodes.size(), 1u);
  EXPECT_EQ(c->unmatched_nodes[0].name, "ReorderOutput");
  EXPECT_GT(c->unmatched_measured_s, 0);
  EXPECT_TRUE(c->unmatched_layers.empty());
  EXPECT_THAT(c->warnings, Contains(HasSubstr("ReorderOutput")));
}

TEST(ProfileMatchTest, OrtEnabledTransformerFusions) {
  Loaded m = Load("small_transformer.onnx");
  auto c = CompareWithProfile(m.graph, m.analysis,
                              Profile("small_transformer_all.json"), {});
  ASSERT_TRUE(c.ok()) << c.status();
  const Analysis& a = m.analysis;
  // "/norm1/Mul/LayerNormFusion/" (op LayerNormalization) anchors at
  // /norm1/Mul; the decomposed LayerNorm around it joins the group.
  const MeasuredUnit* ln = UnitOf(*c, a, "/norm1/Mul");
  ASSERT_NE(ln, nullptr);
  EXPECT_EQ(ln->kind, MatchKind::kRenamed);
  for (const char* part : {"/norm1/ReduceMean", "/norm1/Sub", "/norm1/Pow",
                           "/norm1/Sqrt", "/norm1/Div", "/norm1/Add_1"}) {
    EXPECT_EQ(UnitOf(*c, a, part), ln) << part;
  }
  // "/MatMul/MatMulScaleFusion/" (FusedMatMul) folds the scaling Div.
  const MeasuredUnit* qk = UnitOf(*c, a, "/MatMul");
  ASSERT_NE(qk, nullptr);
  EXPECT_EQ(UnitOf(*c, a, "/Div_1"), qk);
  // MatMul + Add became one Gemm named "/qkv/MatMul/MatMulAddFusion".
  EXPECT_EQ(UnitOf(*c, a, "/qkv/Add"), UnitOf(*c, a, "/qkv/MatMul"));
  // Nodes ORT made up (Gelu, gemm reshapes) stay unmatched.
  std::vector<std::string> unmatched;
  for (const graph::MeasuredNode& n : c->unmatched_nodes)
    unmatched.push_back(n.name);
  EXPECT_THAT(unmatched, Contains("Gelu"));
  EXPECT_THAT(unmatched, Contains("gemm_input_reshape"));
}

TEST(ProfileMatchTest, OrtDisabledTransformerMatchesByName) {
  Loaded m = Load("small_transformer.onnx");
  graph::MeasuredProfile p = Profile("small_transformer_disabled.json");
  auto c = CompareWithProfile(m.graph, m.analysis, p, {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->unmatched_nodes.empty());
  EXPECT_EQ(c->units.size(), p.nodes.size());
}

TEST(ProfileMatchTest, PyTorchTraceMatchesByOrder) {
  Loaded m = Load("small_cnn.onnx");
  auto c = CompareWithProfile(m.graph, m.analysis,
                              Profile("small_cnn_pytorch.json"), {});
  ASSERT_TRUE(c.ok()) << c.status();
  const Analysis& a = m.analysis;
  // aten::conv2d calls pair with the Conv layers in order.
  const MeasuredUnit* conv2 = UnitOf(*c, a, "/conv2/Conv");
  ASSERT_NE(conv2, nullptr);
  EXPECT_EQ(conv2->kind, MatchKind::kOrder);
  EXPECT_THAT(conv2->measured_nodes, ElementsAre("aten::conv2d#1"));
  EXPECT_THAT(UnitOf(*c, a, "/Relu_2")->measured_nodes,
              ElementsAre("aten::relu#2"));
  EXPECT_THAT(UnitOf(*c, a, "/fc/Gemm")->measured_nodes,
              ElementsAre("aten::linear#0"));
  // Every layer is matched; BatchNorm was folded into conv1 by the export,
  // so aten::batch_norm has no layer.
  for (size_t l = 0; l < a.layers.size(); ++l) {
    EXPECT_GE(c->unit_of_layer[l], 0) << a.layers[l].name;
  }
  std::vector<std::string> unmatched;
  for (const graph::MeasuredNode& n : c->unmatched_nodes)
    unmatched.push_back(n.name);
  EXPECT_THAT(unmatched, Contains("aten::batch_norm#0"));
}

// A profile of another model: `nodes`, matched by name only.
absl::StatusOr<Comparison> CompareWithOther(
    const Loaded& m, std::vector<graph::MeasuredNode> nodes) {
  graph::MeasuredProfile p;
  p.path = "other_model.json";
  p.source_format = graph::kOnnxRuntimeProfileFormat;
  p.runs_used = 1;
  p.nodes = std::move(nodes);
  MatchOptions options;
  options.match_by_order = false;
  return CompareWithProfile(m.graph, m.analysis, p, options);
}

TEST(ProfileMatchTest, UnknownNamesWarnNeverFail) {
  Loaded m = Load("small_cnn.onnx");
  auto c = CompareWithOther(
      m,
      {{.name = "encoder/layer.0/attention",
        .op_type = "Attention",
        .seconds = 1e-3,
        .count = 1},
       {.name = "", .op_type = "", .seconds = 0, .count = 1},
       {.name = "/", .op_type = "Weird", .seconds = 2e-3, .count = 1},
       {.name = "_token_3", .op_type = "Conv2", .seconds = 1e-6, .count = 1}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->units.empty());
  EXPECT_EQ(c->unmatched_nodes.size(), 4u);
  EXPECT_FALSE(c->spearman.has_value());
  EXPECT_THAT(c->warnings, Contains(HasSubstr("no measured node matches")));
  EXPECT_THAT(c->warnings, Contains(HasSubstr("4 of 4 measured node(s)")));
  // Reports render without crashing.
  EXPECT_THAT(FormatComparison(m.analysis, *c, {}),
              HasSubstr("Unmatched measured"));
  EXPECT_TRUE(MeasuredSummaryJson(*c)["spearman"].is_null());
  EXPECT_TRUE(MeasuredLayerJson(*c, 0)["measured_s"].is_null());
}

// The comparison's tables are report::TextTables: a long exported name is
// elided in the middle to the width asked for (its distinguishing tail
// kept), and model text is escaped.
TEST(ProfileMatchTest, TablesFitTheWidthAndEscapeNames) {
  Loaded m = Load("small_cnn.onnx");
  const std::string name = "/model/decoder" + std::string(150, 'x') +
                           "\x1b[2J/layers.11/attn/MatMul";
  auto c = CompareWithOther(
      m, {{.name = name, .op_type = "MatMul", .seconds = 1e-3, .count = 1}});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->unmatched_nodes.size(), 1u);
  const std::string text = FormatComparison(m.analysis, *c, {.max_width = 80});
  const size_t table = text.find("Unmatched measured nodes");
  ASSERT_NE(table, std::string::npos) << text;
  // Title, header, rule, the node: each line at most 80 columns.
  size_t begin = table;
  for (int line = 0; line < 4; ++line) {
    const size_t end = text.find('\n', begin);
    ASSERT_NE(end, std::string::npos);
    EXPECT_LE(end - begin, 80u) << text.substr(begin, end - begin);
    begin = end + 1;
  }
  EXPECT_THAT(text, HasSubstr("...xxx"));
  EXPECT_THAT(text, HasSubstr("\\x1b[2J/layers.11/attn/MatMul"));
  EXPECT_THAT(text, Not(HasSubstr("\x1b")));
  // The node's share of measured node time: all of it.
  EXPECT_THAT(text, HasSubstr("1.000 ms  100.0%"));
}

// The totals are one report::TextTable (no hand-padded columns). Expected
// lines written by hand: two spaces between columns, times right-aligned.
TEST(ProfileMatchTest, TotalsAreOneTextTable) {
  Comparison c;
  c.profile_path = "p.json";
  c.profile_format = "onnxruntime";
  c.runs_used = 3;
  c.predicted_total_s = 2e-3;
  c.measured_total_s = 3e-3;
  c.measured_total_is_whole_run = true;
  c.matched_predicted_s = 1.5e-3;
  c.matched_measured_s = 1.2e-3;
  const std::string text = FormatComparison(Analysis{}, c, {});
  EXPECT_THAT(
      text,
      HasSubstr("  total        predicted  measured  ratio  over\n"
                "  -----------  ---------  --------  -----  "
                "----------------------------------------\n"
                "  whole model   2.000 ms  3.000 ms   1.50  measured: the "
                "runtime's whole-run events\n"
                "  matched       1.500 ms  1.200 ms   0.80  0 units covering 0 "
                "of 0 layers\n"))
      << text;
}

TEST(ProfileMatchTest, AnalysisOfAnotherGraphIsAnError) {
  Loaded m = Load("small_cnn.onnx");
  Analysis a = m.analysis;
  a.layers.push_back(a.layers.back());
  a.layers.back().node = 1000;
  auto c = CompareWithProfile(m.graph, a, graph::MeasuredProfile{}, {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(MessageOf(c.status())),
              HasSubstr("not computed on this graph"));
}

// --- Arithmetic on a hand-built analysis of small_cnn's graph. ---

// Layers with chosen FLOPs, bytes and latency; peak 1e9 FLOP/s and 1e9 B/s,
// so a layer's roof time is max(flops, bytes) nanoseconds... in seconds:
// max(flops, bytes) * 1e-9.
Analysis HandAnalysis(const graph::Graph& g) {
  Analysis a;
  a.assumptions.peak_flops_per_s = 1e9;
  a.assumptions.memory_bandwidth_bytes_per_s = 1e9;
  for (int n : g.topological_order()) {
    LayerResult l;
    l.node = n;
    l.name = g.node(n).name;
    l.op_type = g.node(n).op_type;
    a.layers.push_back(l);
  }
  return a;
}

LayerResult& Layer(Analysis& a, const std::string& name) {
  return a.layers[static_cast<size_t>(LayerIndex(a, name))];
}

TEST(ProfileCompareArithmeticTest, RatiosRoofTotalsAndStatistics) {
  auto g =
      importers::ImportOnnxFile(Source("profile_models/small_cnn.onnx"), {});
  ASSERT_TRUE(g.ok()) << g.status();
  Analysis a = HandAnalysis(*g);
  // Three Convs and one Relu with predictions; other layers are views here.
  struct Row {
    const char* name;
    double flops, bytes, predicted, measured;
  };
  const Row rows[] = {
      {"/conv1/Conv", 4e6, 1e6, 2e-3, 4e-3},  // roof 4 ms, ratio 2, roof 100%
      {"/conv2/Conv", 2e6, 1e6, 1e-3, 4e-3},  // roof 2 ms, ratio 4, roof 50%
      {"/conv3/Conv", 1e6, 1e6, 4e-3, 4e-3},  // roof 1 ms, ratio 1, roof 25%
      {"/Relu", 0, 1e6, 1e-3, 2.5e-3},        // roof 1 ms, ratio 2.5, roof 40%
  };
  graph::MeasuredProfile p;
  p.path = "hand.json";
  p.source_format = graph::kOnnxRuntimeProfileFormat;
  p.runs_used = 1;
  p.run_seconds = 20e-3;
  for (const Row& r : rows) {
    LayerResult& l = Layer(a, r.name);
    l.flops = r.flops;
    l.bytes = r.bytes;
    l.latency_s = r.predicted;
    p.nodes.push_back({.name = r.name,
                       .op_type = l.op_type,
                       .seconds = r.measured,
                       .count = 1});
  }
  for (LayerResult& l : a.layers) {
    if (l.latency_s == 0) l.cost.view = true;
  }
  // Sum of predictions 8 ms + 1 ms dispatch.
  a.summary.latency_s = 9e-3;
  MatchOptions options;
  options.targets = 2;
  auto c = CompareWithProfile(*g, a, p, options);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->units.size(), 4u);
  const MeasuredUnit* conv2 = UnitOf(*c, a, "/conv2/Conv");
  EXPECT_DOUBLE_EQ(conv2->ratio, 4.0);          // 4 ms / 1 ms
  EXPECT_DOUBLE_EQ(conv2->roof_s, 2e-3);        // max(2e6, 1e6) / 1e9
  EXPECT_DOUBLE_EQ(conv2->roof_fraction, 0.5);  // 2 ms / 4 ms
  EXPECT_DOUBLE_EQ(c->predicted_total_s, 9e-3);
  EXPECT_DOUBLE_EQ(c->measured_total_s, 20e-3);  // the whole-run time
  EXPECT_NEAR(c->matched_predicted_s, 8e-3, 1e-15);
  EXPECT_NEAR(c->matched_measured_s, 14.5e-3, 1e-15);
  // Conv ratios {2, 4, 1}: sorted {1, 2, 4}; median 2; p25 = 1 + 0.5 * 1 =
  // 1.5; p75 = 2 + 0.5 * 2 = 3; min 1, max 4. Conv first (12 ms measured).
  ASSERT_EQ(c->by_op_type.size(), 2u);
  const OpTypeRatios& conv = c->by_op_type[0];
  EXPECT_EQ(conv.op_type, "Conv");
  EXPECT_EQ(conv.units, 3);
  EXPECT_DOUBLE_EQ(conv.median, 2);
  EXPECT_DOUBLE_EQ(conv.p25, 1.5);
  EXPECT_DOUBLE_EQ(conv.p75, 3);
  EXPECT_DOUBLE_EQ(conv.min, 1);
  EXPECT_DOUBLE_EQ(conv.max, 4);
  // Gaps measured - roof: conv1 0, conv2 2 ms, conv3 3 ms, Relu 1.5 ms.
  // Top 2: conv3, then conv2.
  ASSERT_EQ(c->targets.size(), 2u);
  EXPECT_EQ(c->units[static_cast<size_t>(c->targets[0])].name, "/conv3/Conv");
  EXPECT_EQ(c->units[static_cast<size_t>(c->targets[1])].name, "/conv2/Conv");
  // Spearman over (predicted, measured) in topological order conv1, Relu,
  // conv2, conv3: predicted {2, 1, 1, 4} -> ranks {3, 1.5, 1.5, 4};
  // measured {4, 2.5, 4, 4} -> ranks {3, 1, 3, 3}. Centered (mean 2.5):
  // x {0.5, -1, -1, 1.5}, y {0.5, -1.5, 0.5, 0.5}; sxy = 0.25 + 1.5 - 0.5 +
  // 0.75 = 2; sxx = 0.25 + 1 + 1 + 2.25 = 4.5; syy = 0.25 + 2.25 + 0.25 +
  // 0.25 = 3. rho = 2 / sqrt(13.5).
  ASSERT_TRUE(c->spearman.has_value());
  EXPECT_NEAR(*c->spearman, 2 / std::sqrt(13.5), 1e-12);

  // JSON fragments.
  nlohmann::json layer = MeasuredLayerJson(*c, LayerIndex(a, "/conv2/Conv"));
  EXPECT_DOUBLE_EQ(layer["measured_s"].get<double>(), 4e-3);
  EXPECT_DOUBLE_EQ(layer["ratio"].get<double>(), 4.0);
  EXPECT_EQ(layer["match"], "name");
  nlohmann::json summary = MeasuredSummaryJson(*c);
  EXPECT_DOUBLE_EQ(summary["predicted_s"].get<double>(), 9e-3);
  EXPECT_DOUBLE_EQ(summary["measured_s"].get<double>(), 20e-3);
  EXPECT_EQ(summary["by_op_type"][0]["op"], "Conv");
  // The text names the conventions and the correlation.
  std::string text = FormatComparison(a, *c, {});
  EXPECT_THAT(text, HasSubstr("ratio = measured / predicted"));
  EXPECT_THAT(text, HasSubstr("Spearman"));
}

TEST(ProfileCompareArithmeticTest, MeasuredNodesOfOneLayerAreSummed) {
  auto g =
      importers::ImportOnnxFile(Source("profile_models/small_cnn.onnx"), {});
  ASSERT_TRUE(g.ok()) << g.status();
  Analysis a = HandAnalysis(*g);
  Layer(a, "/fc/Gemm").latency_s = 1e-3;
  graph::MeasuredProfile p;
  // ORT's unique-name suffix and a fusion path part both lead to /fc/Gemm.
  p.nodes = {
      {.name = "/fc/Gemm", .op_type = "Gemm", .seconds = 1e-3},
      {.name = "/fc/Gemm_token_7", .op_type = "Gemm", .seconds = 2e-3},
      {.name = "/fc/Gemm/SomeFusion", .op_type = "FusedGemm", .seconds = 3e-3}};
  auto c = CompareWithProfile(*g, a, p, {});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->units.size(), 1u);
  EXPECT_DOUBLE_EQ(c->units[0].measured_s, 6e-3);
  EXPECT_THAT(c->units[0].measured_nodes,
              UnorderedElementsAre("/fc/Gemm", "/fc/Gemm_token_7",
                                   "/fc/Gemm/SomeFusion"));
  EXPECT_TRUE(c->unmatched_nodes.empty());
}

}  // namespace
}  // namespace ridgeline::engine
