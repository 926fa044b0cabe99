// Model-local functions (importers/function_inliner.h) on the fixtures of
// tests/fixtures/make_importer_fixtures.py (local_functions()): the graph
// that calls them imports as the graph written out by hand.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"
#include "nlohmann/json.hpp"
#include "tests/cli_test_util.h"

namespace ridgeline::importers {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  return std::string(RIDGELINE_SOURCE_DIR) + "/tests/fixtures/importer/" + name;
}

// Nodes by op type, not counting those of an If branch that does not run.
std::map<std::string, int> OpCounts(const graph::Graph& g) {
  std::map<std::string, int> counts;
  for (const graph::Node& n : g.nodes()) {
    if (!n.not_run) ++counts[n.op_type];
  }
  return counts;
}

TEST(ImporterFunctionsTest, CallsImportAsTheHandWrittenGraph) {
  absl::StatusOr<graph::Graph> fn =
      ImportOnnxFile(Fixture("local_functions.onnx"), {});
  ASSERT_TRUE(fn.ok()) << MessageOf(fn.status());
  absl::StatusOr<graph::Graph> flat =
      ImportOnnxFile(Fixture("local_functions_flat.onnx"), {});
  ASSERT_TRUE(flat.ok()) << MessageOf(flat.status());
  EXPECT_TRUE(fn->unresolved.empty());
  // Two Blocks of two Affines (MatMul, Add, LeakyRelu) and an If each; the
  // If's condition folds to true, so each takes its Relu branch.
  EXPECT_EQ(OpCounts(*fn), OpCounts(*flat));
  EXPECT_EQ(OpCounts(*fn)["MatMul"], 4);
  EXPECT_EQ(OpCounts(*fn).count("Block"), 0u);
  EXPECT_EQ(OpCounts(*fn).count("Affine"), 0u);
  // x [2,8] -> Affine to 16 -> Affine to 8 -> Relu: y1 and y2 are [2,8].
  std::optional<int> y2 = fn->FindTensor("y2");
  ASSERT_TRUE(y2.has_value());
  EXPECT_EQ(fn->tensor(*y2).dims, (graph::Dims{2, 8}));
}

TEST(ImporterFunctionsTest, ReferencedAttributesAndNames) {
  absl::StatusOr<graph::Graph> g =
      ImportOnnxFile(Fixture("local_functions.onnx"), {});
  ASSERT_TRUE(g.ok()) << MessageOf(g.status());
  // Each call's nodes are named "<call>/<body node>" (an unnamed body node
  // by its op type and position); the graph's calls have no names, so the
  // function's name stands in, made unique ("#n").
  std::vector<std::string> leaky;
  std::vector<double> alphas;
  for (const graph::Node& n : g->nodes()) {
    if (n.op_type != "LeakyRelu") continue;
    leaky.push_back(n.name);
    alphas.push_back(n.GetFloat("alpha", -1));
  }
  ASSERT_EQ(leaky.size(), 4u);
  EXPECT_EQ(leaky[0], "Block/Affine_0/LeakyRelu_2");
  EXPECT_EQ(leaky[2], "Block#1/Affine_0/LeakyRelu_2");
  // The first Affine of a Block is called with alpha 0.2; the second gives
  // none, so the function's declared default (attribute_proto) applies.
  EXPECT_FLOAT_EQ(alphas[0], 0.2f);
  EXPECT_FLOAT_EQ(alphas[1], 0.3f);
  EXPECT_FLOAT_EQ(alphas[2], 0.2f);
}

TEST(ImporterFunctionsTest, AnalysisEqualsTheHandWrittenGraphs) {
  auto summary = [](const std::string& name) {
    const cli_testing::Result r = cli_testing::RunCli(
        {Fixture(name), "--hw", "a100", "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out)["summary"];
  };
  const nlohmann::json fn = summary("local_functions.onnx");
  const nlohmann::json flat = summary("local_functions_flat.onnx");
  EXPECT_DOUBLE_EQ(fn["flops"].get<double>(), flat["flops"].get<double>());
  EXPECT_DOUBLE_EQ(fn["bytes"].get<double>(), flat["bytes"].get<double>());
  EXPECT_DOUBLE_EQ(fn["latency_s"].get<double>(),
                   flat["latency_s"].get<double>());
  // 2 Blocks x 2 MatMuls: [2,8]x[8,16] and [2,16]x[16,8], 256 MACs each.
  EXPECT_DOUBLE_EQ(fn["macs"].get<double>(), 4 * 256);
}

TEST(ImporterFunctionsTest, RecursionAndArityAreErrorsNamingTheFunction) {
  absl::StatusOr<graph::Graph> loop =
      ImportOnnxFile(Fixture("recursive_function.onnx"), {});
  ASSERT_FALSE(loop.ok());
  EXPECT_THAT(MessageOf(loop.status()), HasSubstr("'Loopy'"));
  EXPECT_THAT(MessageOf(loop.status()), HasSubstr("deeper than 64"));
  absl::StatusOr<graph::Graph> arity =
      ImportOnnxFile(Fixture("function_arity.onnx"), {});
  ASSERT_FALSE(arity.ok());
  EXPECT_THAT(MessageOf(arity.status()),
              HasSubstr("node 'bad_call' calls model-local function 'One' "
                        "with 2 inputs"));
  // The CLI's exit code for a bad model file.
  EXPECT_EQ(
      cli_testing::RunCli({Fixture("recursive_function.onnx"), "--hw", "a100"})
          .code,
      2);
}

}  // namespace
}  // namespace ridgeline::importers
