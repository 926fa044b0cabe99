// Reading measured profiles: real ONNX Runtime profiles written by
// tests/profiles/profile_models.js (onnxruntime-node 1.30, CPU, 1 thread,
// 4 runs per file), a real PyTorch trace written by
// tests/profiles/make_models.py (Debian's torch, legacy layout), and
// hand-made traces for the Kineto layout and for every kind of damage.
#include "importers/profile/profile_reader.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "graph/fmt_absl.h"
#include "graph/measured_profile.h"
#include "gtest/gtest.h"
#include "importers/profile/aten_op_map.h"

namespace ridgeline::importers {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  return std::string(RIDGELINE_SOURCE_DIR) + "/tests/fixtures/profiles/" + name;
}

std::string Message(const absl::Status& s) { return std::string(MessageOf(s)); }

const graph::MeasuredNode* Find(const graph::MeasuredProfile& p,
                                const std::string& name) {
  for (const graph::MeasuredNode& n : p.nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

std::vector<std::string> Names(const graph::MeasuredProfile& p) {
  std::vector<std::string> names;
  for (const graph::MeasuredNode& n : p.nodes) names.push_back(n.name);
  return names;
}

// The 11 nodes of small_cnn.onnx in execution order, as torch.onnx names
// them for tests/profiles/make_models.py's SmallCnn (BatchNorm folded into
// conv1 by constant folding).
const std::vector<std::string> kSmallCnnNodes = {
    "/conv1/Conv", "/Relu",   "/pool/MaxPool",
    "/conv2/Conv", "/Add",    "/Relu_1",
    "/conv3/Conv", "/Relu_2", "/GlobalAveragePool",
    "/Flatten",    "/fc/Gemm"};

TEST(OrtProfileTest, DisabledOptimizationListsEveryNode) {
  auto p = ReadProfile(Fixture("small_cnn_disabled.json"));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->source_format, graph::kOnnxRuntimeProfileFormat);
  EXPECT_EQ(p->runs_in_trace, 4);  // profile_models.js default --runs 4
  EXPECT_EQ(p->runs_used, 4);
  EXPECT_THAT(Names(*p), ElementsAreArray(kSmallCnnNodes));
  for (const graph::MeasuredNode& n : p->nodes) {
    EXPECT_EQ(n.count, 4) << n.name;  // once per run
    EXPECT_EQ(n.provider, "CPUExecutionProvider") << n.name;
    EXPECT_GT(n.seconds, 0) << n.name;
  }
  EXPECT_EQ(Find(*p, "/conv1/Conv")->op_type, "Conv");
  EXPECT_EQ(Find(*p, "/Add")->op_type, "Add");
  // A whole run contains its node executions.
  ASSERT_TRUE(p->run_seconds.has_value());
  EXPECT_GE(*p->run_seconds, p->NodeSeconds());
}

TEST(OrtProfileTest, SkippingWarmUpRuns) {
  auto all = ReadProfile(Fixture("small_cnn_disabled.json"));
  auto p = ReadProfile(Fixture("small_cnn_disabled.json"), {.skip_runs = 1});
  ASSERT_TRUE(all.ok() && p.ok());
  EXPECT_EQ(p->runs_in_trace, 4);
  EXPECT_EQ(p->runs_used, 3);
  for (const graph::MeasuredNode& n : p->nodes) EXPECT_EQ(n.count, 3) << n.name;
  // mean(all 4) * 4 = first run + mean(last 3) * 3, per node.
  const graph::MeasuredNode* a = Find(*all, "/conv1/Conv");
  const graph::MeasuredNode* b = Find(*p, "/conv1/Conv");
  EXPECT_LT(b->seconds * 3, a->seconds * 4 + 1e-12);

  auto none = ReadProfile(Fixture("small_cnn_disabled.json"), {.skip_runs = 4});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(Message(none.status()), HasSubstr("skipping 4 leaves none"));
  EXPECT_THAT(Message(none.status()), HasSubstr("small_cnn_disabled.json"));
}

TEST(OrtProfileTest, EnabledOptimizationKeepsOrtNames) {
  auto p = ReadProfile(Fixture("small_cnn_all.json"));
  ASSERT_TRUE(p.ok()) << p.status();
  // ORT's NCHWc transformer names the fused Conv+Relu after the Relu's output
  // tensor, and adds a layout conversion node of its own.
  const graph::MeasuredNode* fused = Find(*p, "/Relu_output_0_nchwc");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op_type, "Conv");
  ASSERT_NE(Find(*p, "ReorderOutput"), nullptr);
  EXPECT_EQ(Find(*p, "/conv1/Conv"), nullptr);
}

TEST(OrtProfileTest, TransformerDisabledRunsAllButConstants) {
  auto p = ReadProfile(Fixture("small_transformer_disabled.json"));
  ASSERT_TRUE(p.ok()) << p.status();
  // small_transformer.onnx has 76 nodes, 19 of them Constant; ORT turns
  // Constant nodes into initializers, so 76 - 19 = 57 nodes run.
  EXPECT_EQ(p->nodes.size(), 57u);
  EXPECT_EQ(Find(*p, "/norm1/Constant"), nullptr);
  ASSERT_NE(Find(*p, "/Softmax"), nullptr);
  EXPECT_EQ(Find(*p, "/Softmax")->op_type, "Softmax");
}

TEST(PyTorchTraceTest, LegacyCpuTraceFromDebianTorch) {
  auto p = ReadProfile(Fixture("small_cnn_pytorch.json"));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->source_format, graph::kPyTorchProfileFormat);
  // make_models.py profiles 4 iterations with schedule(warmup=1, active=3).
  EXPECT_EQ(p->runs_in_trace, 3);
  // SmallCnn.forward calls conv1, conv2, conv3 in that order: three outermost
  // aten::conv2d per run, named by their position in the run.
  for (const char* name :
       {"aten::conv2d#0", "aten::conv2d#1", "aten::conv2d#2"}) {
    const graph::MeasuredNode* n = Find(*p, name);
    ASSERT_NE(n, nullptr) << name;
    EXPECT_EQ(n->op_type, "Conv");
    EXPECT_EQ(n->count, 3);  // once per run
    EXPECT_EQ(n->provider, "cpu");
  }
  EXPECT_EQ(Find(*p, "aten::conv2d#3"), nullptr);
  ASSERT_NE(Find(*p, "aten::batch_norm#0"), nullptr);
  EXPECT_EQ(Find(*p, "aten::batch_norm#0")->op_type, "BatchNormalization");
  ASSERT_NE(Find(*p, "aten::linear#0"), nullptr);
  EXPECT_EQ(Find(*p, "aten::linear#0")->op_type, "Gemm");
  // Operators nested in another (aten::addmm inside aten::linear) are not
  // nodes of their own.
  EXPECT_EQ(Find(*p, "aten::addmm#0"), nullptr);
  EXPECT_EQ(Find(*p, "aten::convolution#0"), nullptr);
}

// A Kineto trace with two steps: conv2d launches two kernels per step inside
// a record_function label, relu launches one unlabeled kernel, and one kernel
// has no launch in the trace.
constexpr char kKinetoTrace[] = R"({
  "schemaVersion": 1,
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
    {"ph": "X", "cat": "user_annotation", "name": "/conv1/Conv", "pid": 1, "tid": 1, "ts": 10, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 11, "dur": 90},
    {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 1, "tid": 1, "ts": 12, "dur": 80},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 5, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 200, "dur": 20},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 205, "dur": 5, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "implicit_gemm", "pid": 0, "tid": 7, "ts": 300, "dur": 100, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "bias_add", "pid": 0, "tid": 7, "ts": 400, "dur": 50, "args": {"correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "relu_kernel", "pid": 0, "tid": 7, "ts": 450, "dur": 10, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "mystery_kernel", "pid": 0, "tid": 7, "ts": 470, "dur": 4, "args": {"correlation": 99}},

    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
    {"ph": "X", "cat": "user_annotation", "name": "/conv1/Conv", "pid": 1, "tid": 1, "ts": 1010, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 1011, "dur": 90},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1020, "dur": 5, "args": {"correlation": 11}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1030, "dur": 5, "args": {"correlation": 12}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 1200, "dur": 20},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1205, "dur": 5, "args": {"correlation": 13}},
    {"ph": "X", "cat": "kernel", "name": "implicit_gemm", "pid": 0, "tid": 7, "ts": 1300, "dur": 120, "args": {"correlation": 11}},
    {"ph": "X", "cat": "kernel", "name": "bias_add", "pid": 0, "tid": 7, "ts": 1420, "dur": 30, "args": {"correlation": 12}},
    {"ph": "X", "cat": "kernel", "name": "relu_kernel", "pid": 0, "tid": 7, "ts": 1450, "dur": 14, "args": {"correlation": 13}},
    {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}}
  ]
})";

TEST(PyTorchTraceTest, KinetoGpuKernelsChargedToTheirOperators) {
  auto p = ParseProfileJson(kKinetoTrace, "kineto.json");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->runs_in_trace, 2);
  // /conv1/Conv (the label): step 1 100 + 50 us, step 2 120 + 30 us;
  // mean per run = (150 + 150) / 2 = 150 us; 2 operator calls (one per
  // run) of 2 kernels each.
  const graph::MeasuredNode* conv = Find(*p, "/conv1/Conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_NEAR(conv->seconds, 150e-6, 1e-12);
  EXPECT_EQ(conv->count, 2);
  EXPECT_EQ(conv->op_type, "Conv");
  EXPECT_EQ(conv->provider, "gpu");
  // Unlabeled relu: (10 + 14) / 2 = 12 us.
  const graph::MeasuredNode* relu = Find(*p, "aten::relu#0");
  ASSERT_NE(relu, nullptr);
  EXPECT_NEAR(relu->seconds, 12e-6, 1e-12);
  EXPECT_EQ(relu->op_type, "Relu");
  // The kernel without a launch: 4 us in one of two runs -> 2 us per run.
  const graph::MeasuredNode* orphan = Find(*p, "mystery_kernel");
  ASSERT_NE(orphan, nullptr);
  EXPECT_NEAR(orphan->seconds, 2e-6, 1e-12);
  EXPECT_FALSE(p->warnings.empty());
  // Steps are 1000 us each.
  ASSERT_TRUE(p->run_seconds.has_value());
  EXPECT_NEAR(*p->run_seconds, 1000e-6, 1e-12);
}

TEST(PyTorchTraceTest, CpuOnlyKinetoTraceWithoutSteps) {
  // No steps: one run. aten::linear holds aten::addmm; only linear counts.
  auto p = ParseProfileJson(R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 40},
      {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 5, "dur": 30},
      {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 50, "dur": 20},
      {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 1, "tid": 1, "ts": 0, "dur": 45}
  ]})",
                            "cpu.json");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->runs_in_trace, 1);
  EXPECT_THAT(Names(*p),
              ElementsAreArray({"aten::linear#0", "aten::linear#1"}));
  EXPECT_NEAR(Find(*p, "aten::linear#0")->seconds, 40e-6, 1e-12);
  EXPECT_FALSE(p->run_seconds.has_value());
}

TEST(AtenOpMapTest, MapsCommonOps) {
  EXPECT_EQ(OnnxOpForAten("aten::conv2d"), "Conv");
  EXPECT_EQ(OnnxOpForAten("aten::relu_"), "Relu");        // in-place variant
  EXPECT_EQ(OnnxOpForAten("aten::_softmax"), "Softmax");  // leading _ kept
  EXPECT_EQ(OnnxOpForAten("aten::silu"), std::nullopt);
  EXPECT_EQ(OnnxOpForAten("conv2d"), std::nullopt);  // not an aten name
}

// --- Damaged input: clear errors naming the file and the field. ---

struct BadCase {
  const char* label;
  const char* json;
  std::vector<const char*> expected;  // substrings of the message
};

class DamagedProfileTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(DamagedProfileTest, ClearError) {
  const BadCase& c = GetParam();
  auto p = ParseProfileJson(c.json, "bad.json");
  ASSERT_FALSE(p.ok()) << c.label;
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  std::string message = Message(p.status());
  EXPECT_THAT(message, HasSubstr("bad.json")) << c.label;
  for (const char* s : c.expected)
    EXPECT_THAT(message, HasSubstr(s)) << c.label;
}

INSTANTIATE_TEST_SUITE_P(
    All, DamagedProfileTest,
    ::testing::Values(
        BadCase{"not json", "{\"traceEvents\": [", {"not valid JSON"}},
        BadCase{"empty text", "", {"not valid JSON"}},
        BadCase{"a number", "42", {"not a recognized profile", "number"}},
        BadCase{"empty array", "[]", {"not a recognized profile"}},
        BadCase{"foreign object",
                R"({"layers": []})",
                {"not a recognized profile", "object"}},
        BadCase{"ort: missing dur",
                R"([{"cat": "Node", "name": "a_kernel_time", "ts": 1,
                     "args": {"op_name": "Relu"}}])",
                {"event 0", "\"a_kernel_time\"", "field \"dur\" is missing",
                 "microseconds"}},
        BadCase{
            "ort: dur is text",
            R"([{"cat": "Node", "name": "a_kernel_time", "ts": 1, "dur": "5",
                     "args": {"op_name": "Relu"}}])",
            {"field \"dur\" is not a number"}},
        BadCase{"ort: negative dur",
                R"([{"cat": "Node", "name": "a_kernel_time", "ts": 1, "dur": -5,
                     "args": {"op_name": "Relu"}}])",
                {"field \"dur\" is negative"}},
        BadCase{"ort: missing op_name",
                R"([{"cat": "Node", "name": "a_kernel_time", "ts": 1, "dur": 5,
                     "args": {"provider": "CPUExecutionProvider"}}])",
                {"field \"args.op_name\" is missing"}},
        BadCase{
            "ort: missing args",
            R"([{"cat": "Node", "name": "a_kernel_time", "ts": 1, "dur": 5}])",
            {"field \"args\" is missing"}},
        BadCase{"ort: name not a string",
                R"([{"cat": "Node", "name": 7, "ts": 1, "dur": 5}])",
                {"field \"name\" is not a string"}},
        BadCase{
            "ort: event not an object",
            R"([{"cat": "Session", "name": "model_run", "ts": 0, "dur": 9}, 5])",
            {"event 1", "not a trace event object"}},
        BadCase{
            "ort: only session events",
            R"([{"cat": "Session", "name": "model_run", "ts": 0, "dur": 9}])",
            {"no ONNX Runtime node events"}},
        BadCase{"ort: model_run without dur",
                R"([{"cat": "Session", "name": "model_run", "ts": 0}])",
                {"field \"dur\" is missing"}},
        BadCase{"pytorch: traceEvents not an array",
                R"({"traceEvents": {"a": 1}})",
                {"\"traceEvents\"", "array"}},
        BadCase{"pytorch: no operators",
                R"({"traceEvents": [{"ph": "X", "cat": "python_function",
                     "name": "f", "ts": 0, "dur": 1}]})",
                {"no PyTorch operator events"}},
        BadCase{
            "pytorch: missing ts",
            R"({"traceEvents": [{"ph": "X", "cat": "cpu_op",
                     "name": "aten::relu", "dur": 1}]})",
            {"traceEvents[0]", "\"aten::relu\"", "field \"ts\" is missing"}}),
    [](const ::testing::TestParamInfo<BadCase>& info) {
      std::string name;
      for (const char* p = info.param.label; *p; ++p) {
        name += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
      }
      return name;
    });

TEST(DamagedProfileFileTest, MissingFileAndDirectory) {
  auto missing = ReadProfile("/nonexistent/profile.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(missing.status()),
              HasSubstr("/nonexistent/profile.json"));
  auto dir = ReadProfile(std::string(RIDGELINE_SOURCE_DIR) + "/tests");
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(Message(dir.status()), HasSubstr("directory"));
}

TEST(DamagedProfileFileTest, TruncatedRealProfileNamesTheFile) {
  std::ifstream in(Fixture("small_cnn_disabled.json"));
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  ASSERT_GT(text.size(), 1000u);
  std::string path = ::testing::TempDir() + "truncated_profile_" +
                     std::to_string(::getpid()) + ".json";
  std::ofstream(path) << text.substr(0, text.size() / 2);
  auto p = ReadProfile(path);
  std::remove(path.c_str());
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(Message(p.status()), HasSubstr(path));
  EXPECT_THAT(Message(p.status()), HasSubstr("not valid JSON"));
}

TEST(OrtProfileTest, WithoutModelRunEventsRunsAreInferred) {
  // Node "a" appears twice, "b" once: 2 runs assumed; b's mean is 6 / 2 us.
  auto p = ParseProfileJson(R"([
      {"cat": "Node", "name": "a_kernel_time", "ts": 0, "dur": 4, "args": {"op_name": "Relu"}},
      {"cat": "Node", "name": "b_kernel_time", "ts": 5, "dur": 6, "args": {"op_name": "Add"}},
      {"cat": "Node", "name": "a_kernel_time", "ts": 20, "dur": 2, "args": {"op_name": "Relu"}},
      {"cat": "Node", "name": "a_fence_before", "ts": 20, "dur": 0, "args": {}}
  ])",
                            "norun.json");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->runs_in_trace, 2);
  EXPECT_NEAR(Find(*p, "a")->seconds, 3e-6, 1e-15);  // (4 + 2) / 2
  EXPECT_NEAR(Find(*p, "b")->seconds, 3e-6, 1e-15);  // 6 / 2
  EXPECT_FALSE(p->run_seconds.has_value());
  EXPECT_FALSE(p->warnings.empty());
}

TEST(OrtProfileTest, UnnamedNodesAreNamedByOpAndIndex) {
  // ORT writes "_kernel_time" for a node without a name; args.node_index
  // (a string) gives its position: "Relu_3", like the importer's names.
  auto p = ParseProfileJson(R"([
      {"cat": "Node", "name": "_kernel_time", "ts": 0, "dur": 4,
       "args": {"op_name": "Relu", "node_index": "3"}},
      {"cat": "Node", "name": "_kernel_time", "ts": 5, "dur": 6,
       "args": {"op_name": "Add"}}
  ])",
                            "unnamed.json");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(Names(*p), ElementsAreArray({"Relu_3", "Add_unnamed"}));
  EXPECT_THAT(p->warnings, ::testing::Contains(HasSubstr("unnamed")));
}

TEST(OrtProfileTest, EventsOutsideRunsAreIgnoredWithAWarning) {
  auto p = ParseProfileJson(R"([
      {"cat": "Session", "name": "model_run", "ts": 0, "dur": 10},
      {"cat": "Node", "name": "a_kernel_time", "ts": 1, "dur": 4, "args": {"op_name": "Relu"}},
      {"cat": "Node", "name": "a_kernel_time", "ts": 50, "dur": 9, "args": {"op_name": "Relu"}}
  ])",
                            "outside.json");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->runs_in_trace, 1);
  EXPECT_NEAR(Find(*p, "a")->seconds, 4e-6, 1e-15);
  EXPECT_NEAR(*p->run_seconds, 10e-6, 1e-15);
  ASSERT_EQ(p->warnings.size(), 1u);
  EXPECT_THAT(p->warnings[0], HasSubstr("outside"));
}

}  // namespace
}  // namespace ridgeline::importers
