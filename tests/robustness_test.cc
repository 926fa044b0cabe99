// Robustness of the whole model path (import, shape resolution,
// Graph::Finalize, Analyze) on hostile or extreme input: counts that would
// overflow int64, graphs 100k nodes deep, truncated and corrupted files, and
// error messages that must name the file and the problem (issue 8).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/onnx_builder.h"
#include "engine/analysis.h"
#include "engine/hardware.h"
#include "gmock/gmock.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"

namespace ridgeline {
namespace {

using bench::FloatAttr;
using bench::IntAttr;
using bench::IntsAttr;
using bench::OnnxBuilder;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int kF32 = onnx::TensorProto::FLOAT;
constexpr int kI8 = onnx::TensorProto::INT8;
constexpr int64_t k2Pow31 = int64_t{1} << 31;

engine::Hardware TestHardware() {
  engine::Hardware hw;
  hw.key = "robustness-device";
  hw.name = "robustness test device";
  hw.peak_flops_per_s = {{"fp32", 60e12},  {"fp16", 900e12}, {"bf16", 900e12},
                         {"tf32", 400e12}, {"fp8", 1800e12}, {"int8", 1800e12},
                         {"int4", 3600e12}};
  hw.memory_bandwidth_bytes_per_s = 3e12;
  hw.memory_capacity_bytes = 80e9;
  hw.dispatch_tax_s = 5e-6;
  hw.source = "built in code by tests/robustness_test.cc";
  return hw;
}

absl::StatusOr<graph::Graph> Import(const std::string& bytes,
                                    std::string_view display_name,
                                    importers::ImportOptions options = {}) {
  return importers::ImportOnnxBytes(bytes, display_name,
                                    "/nonexistent-robustness-dir", options);
}

// Import then Analyze; the first error wins.
absl::StatusOr<engine::Analysis> ImportAndAnalyze(
    const std::string& bytes, std::string_view display_name,
    importers::ImportOptions options = {}) {
  absl::StatusOr<graph::Graph> g = Import(bytes, display_name, options);
  if (!g.ok()) return g.status();
  return engine::Analyze(*g, TestHardware(), engine::AnalyzeOptions{});
}

std::string Message(const absl::Status& s) { return std::string(MessageOf(s)); }

// A small valid CNN with inline weights (~3 KB): Conv -> Relu -> MaxPool ->
// Flatten -> Gemm -> Softmax.
std::string SmallCnnBytes() {
  OnnxBuilder b("small_cnn", /*opset=*/17);
  b.Input("image", kF32, {1, 3, 8, 8});
  b.FloatInitializer("conv.weight", {4, 3, 3, 3},
                     std::vector<float>(4 * 3 * 3 * 3, 0.1f));
  b.FloatInitializer("conv.bias", {4}, std::vector<float>(4, 0.0f));
  b.FloatInitializer("fc.weight", {10, 64}, std::vector<float>(10 * 64, 0.01f));
  b.FloatInitializer("fc.bias", {10}, std::vector<float>(10, 0.0f));
  std::string x = b.Node(
      "Conv", {"image", "conv.weight", "conv.bias"},
      {IntsAttr("kernel_shape", {3, 3}), IntsAttr("pads", {1, 1, 1, 1})});
  x = b.Node("Relu", {x});
  x = b.Node("MaxPool", {x},
             {IntsAttr("kernel_shape", {2, 2}), IntsAttr("strides", {2, 2})});
  x = b.Node("Flatten", {x}, {IntAttr("axis", 1)});
  x = b.Node("Gemm", {x, "fc.weight", "fc.bias"},
             {IntAttr("transB", 1), FloatAttr("alpha", 1.0f)});
  b.Output(b.Node("Softmax", {x}, {IntAttr("axis", -1)}));
  return b.Serialize();
}

// ---------------------------------------------------------------------------
// Overflow-checked counts.

// A float32 input of [2^31, 2^31] claims 2^62 elements: each dim is below the
// 2^40 limit and the element count still fits in int64 (2^62 < 2^63), but its
// size, 2^62 * 4 = 2^64 bytes, does not. The model must be rejected (the limit
// is 2^59 elements, graph::kMaxElements), not analyzed with a wrapped or
// meaningless number.
TEST(RobustnessTest, TwoToThe62ElementInputIsAnError) {
  OnnxBuilder b("huge_input", 17);
  b.Input("x", kF32, {k2Pow31, k2Pow31});
  b.Output(b.Node("Relu", {"x"}));
  absl::StatusOr<engine::Analysis> a =
      ImportAndAnalyze(b.Serialize(), "huge_input.onnx");
  ASSERT_FALSE(a.ok()) << "2^62 float32 elements (2^64 bytes) were accepted; "
                          "total bytes = "
                       << a->summary.bytes;
  EXPECT_THAT(Message(a.status()), StartsWith("huge_input.onnx"));
  EXPECT_THAT(Message(a.status()), HasSubstr("'x'"));
}

// The same claim made by a weight (external data, never read).
TEST(RobustnessTest, TwoToThe62ElementWeightIsAnError) {
  OnnxBuilder b("huge_weight", 17);
  b.Input("x", kF32, {1, k2Pow31});
  b.ExternalInitializer("w", kF32, {k2Pow31, k2Pow31}, "absent.data", 4);
  b.Output(b.Node("MatMul", {"x", "w"}));
  absl::StatusOr<graph::Graph> g = Import(b.Serialize(), "huge_weight.onnx");
  ASSERT_FALSE(g.ok()) << "a 2^62-element float32 weight was accepted";
  EXPECT_THAT(Message(g.status()), StartsWith("huge_weight.onnx"));
  EXPECT_THAT(Message(g.status()), HasSubstr("'w'"));
}

// A product of dims that overflows int64 (2^40 * 2^40 = 2^80).
TEST(RobustnessTest, DimProductOverflowIsAnError) {
  OnnxBuilder b("overflow", 17);
  const int64_t k2Pow40 = int64_t{1} << 40;
  b.Input("x", kF32, {k2Pow40, k2Pow40});
  b.Output(b.Node("Relu", {"x"}));
  absl::StatusOr<graph::Graph> g = Import(b.Serialize(), "overflow.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(Message(g.status()), StartsWith("overflow.onnx"));
  EXPECT_THAT(Message(g.status()), HasSubstr("int64"));
}

// A shape computed by an op that would overflow: Tile of a [1, 1] tensor by
// repeats [2^40, 2^40] gives 2^80 elements. Import must fail (or leave the
// output unresolved); it must never hold a shape whose count overflows.
TEST(RobustnessTest, DerivedShapeOverflowIsNotWrapped) {
  OnnxBuilder b("tile_overflow", 17);
  const int64_t k2Pow40 = int64_t{1} << 40;
  b.Input("x", kF32, {1, 1});
  b.Int64Initializer("repeats", {2}, {k2Pow40, k2Pow40});
  std::string y = b.Node("Tile", {"x", "repeats"});
  b.Output(y);
  absl::StatusOr<graph::Graph> g = Import(b.Serialize(), "tile_overflow.onnx");
  if (!g.ok()) {
    EXPECT_THAT(Message(g.status()), StartsWith("tile_overflow.onnx"));
    return;
  }
  const graph::Tensor& t = g->tensor(*g->FindTensor(y));
  if (t.shape_known) {
    EXPECT_TRUE(graph::CheckedNumElements(t.dims, t.name).ok())
        << "Tile output has shape " << graph::ShapeString(t);
  }
}

// MatMul [2^31, 1] x [1, 2^31] claims a [2^31, 2^31] float32 output: 2^62
// elements, 2^64 bytes. Same rule as for inputs.
TEST(RobustnessTest, TwoToThe62ElementMatMulOutputIsAnError) {
  OnnxBuilder b("huge_matmul", 17);
  b.Input("a", kF32, {k2Pow31, 1});
  b.Input("b", kF32, {1, k2Pow31});
  b.Output(b.Node("MatMul", {"a", "b"}));
  absl::StatusOr<engine::Analysis> a =
      ImportAndAnalyze(b.Serialize(), "huge_matmul.onnx");
  ASSERT_FALSE(a.ok()) << "a 2^62-element float32 MatMul output was accepted; "
                          "bytes = "
                       << a->summary.bytes;
  EXPECT_THAT(Message(a.status()), StartsWith("huge_matmul.onnx"));
}

// Sixteen int8 weights of 2^59 elements each (the most one tensor may hold)
// sum to 16 * 2^59 = 2^63 parameters, one more than int64 holds. The
// parameter count must not wrap negative: an error, or a positive
// (saturated) total.
TEST(RobustnessTest, ParameterCountDoesNotWrap) {
  OnnxBuilder b("many_params", 17);
  b.Input("x", kI8, {1});
  std::vector<std::string> shapes;
  for (int i = 0; i < 16; ++i) {
    const std::string w = "w" + std::to_string(i);
    b.ExternalInitializer(w, kI8, {int64_t{1} << 30, int64_t{1} << 29},
                          "absent.data", 1);
    shapes.push_back(b.Node("Shape", {w}));  // consumed, so never dropped
  }
  b.Output(b.Node("Concat", shapes, {IntAttr("axis", 0)}));
  b.Output(b.Node("Identity", {"x"}));
  absl::StatusOr<graph::Graph> g = Import(b.Serialize(), "many_params.onnx");
  if (!g.ok()) {
    EXPECT_THAT(Message(g.status()), StartsWith("many_params.onnx"));
    return;
  }
  absl::StatusOr<engine::Analysis> a =
      engine::Analyze(*g, TestHardware(), engine::AnalyzeOptions{});
  if (!a.ok()) return;  // an error is an acceptable answer
  EXPECT_GT(a->summary.params, 0) << "parameter count wrapped";
}

// Counts derived from valid tensors can still exceed int64: MatMul
// [2^29, 2^21] x [2^21, 2^30] (output 2^59 elements, the most allowed) is
// 2^29 * 2^30 * 2^21 = 2^80 MACs. Counted in double that is exact; multiplied
// in int64 it wraps (undefined behaviour, which the sanitizer build turns
// into a failure).
TEST(RobustnessTest, MatMulMacsAboveInt64AreNotWrapped) {
  OnnxBuilder b("huge_macs", 17);
  b.Input("a", kF32, {int64_t{1} << 29, int64_t{1} << 21});
  b.Input("b", kF32, {int64_t{1} << 21, int64_t{1} << 30});
  b.Output(b.Node("MatMul", {"a", "b"}));
  absl::StatusOr<engine::Analysis> a =
      ImportAndAnalyze(b.Serialize(), "huge_macs.onnx");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_DOUBLE_EQ(a->summary.macs, 0x1p80);
}

// Conv of a [1, 2^20, 2^10, 2^10] float32 input by a [2^20, 2^20, 3, 3]
// weight with pads 1 keeps the 2^10 x 2^10 output: MACs = N * Cout * Hout *
// Wout * Cin * kh * kw = 1 * 2^20 * 2^10 * 2^10 * 2^20 * 9 = 9 * 2^60, above
// int64's 2^63 - 1.
TEST(RobustnessTest, ConvMacsAboveInt64AreNotWrapped) {
  OnnxBuilder b("huge_conv", 17);
  const int64_t c = int64_t{1} << 20, hw = int64_t{1} << 10;
  b.Input("x", kF32, {1, c, hw, hw});
  b.ExternalInitializer("w", kF32, {c, c, 3, 3}, "absent.data", 4);
  b.Output(b.Node(
      "Conv", {"x", "w"},
      {IntsAttr("kernel_shape", {3, 3}), IntsAttr("pads", {1, 1, 1, 1})}));
  absl::StatusOr<engine::Analysis> a =
      ImportAndAnalyze(b.Serialize(), "huge_conv.onnx");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_DOUBLE_EQ(a->summary.macs, 9 * 0x1p60);
}

// ---------------------------------------------------------------------------
// Deep graphs: nothing may recurse once per node.

// 100,000 Relu nodes in one chain, built as protobuf and imported through
// ImportOnnxBytes: Graph::Finalize, the shape resolver and Analyze must all
// handle it without overflowing the (8 MiB) stack.
TEST(RobustnessTest, HundredThousandNodeChainDoesNotOverflowTheStack) {
  constexpr int kNodes = 100'000;
  OnnxBuilder b("deep_chain", 17);
  b.Input("x", kF32, {1, 16});
  std::string h = "x";
  for (int i = 0; i < kNodes; ++i) h = b.Node("Relu", {h});
  b.Output(h);
  absl::StatusOr<graph::Graph> g = Import(b.Serialize(), "deep_chain.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->nodes().size(), static_cast<size_t>(kNodes));
  EXPECT_EQ(g->topological_order().size(), static_cast<size_t>(kNodes));
  EXPECT_TRUE(g->unresolved.empty());
  const graph::Tensor& out = g->tensor(*g->FindTensor(h));
  ASSERT_TRUE(out.shape_known);
  EXPECT_EQ(out.dims, (graph::Dims{1, 16}));
  absl::StatusOr<engine::Analysis> a =
      engine::Analyze(*g, TestHardware(), engine::AnalyzeOptions{});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->layers.size(), static_cast<size_t>(kNodes));
}

// Subgraphs nested deep (If inside the then_branch of If ...): 100 levels
// (about 300 protobuf message levels, under the parser's limit of 512) must
// not crash the converter, the resolver or Analyze; 1,000 levels exceed the
// parser's limit and must be an error naming the file, not a stack overflow.
onnx::GraphProto LeafGraph(const std::string& name) {
  onnx::GraphProto g;
  g.set_name(name);
  onnx::NodeProto* n = g.add_node();
  n->set_op_type("Identity");
  n->add_input("x");
  n->add_output(name + "_out");
  g.add_output()->set_name(name + "_out");
  return g;
}

std::string NestedIfModel(int depth) {
  onnx::GraphProto inner = LeafGraph("leaf");
  for (int level = 0; level < depth; ++level) {
    onnx::GraphProto outer;
    outer.set_name("level");
    onnx::NodeProto* n = outer.add_node();
    n->set_op_type("If");
    n->add_input("cond");
    n->add_output("out");
    onnx::AttributeProto* then_branch = n->add_attribute();
    then_branch->set_name("then_branch");
    then_branch->set_type(onnx::AttributeProto::GRAPH);
    *then_branch->mutable_g() = std::move(inner);
    onnx::AttributeProto* else_branch = n->add_attribute();
    else_branch->set_name("else_branch");
    else_branch->set_type(onnx::AttributeProto::GRAPH);
    *else_branch->mutable_g() = LeafGraph("else");
    outer.add_output()->set_name("out");
    inner = std::move(outer);
  }
  OnnxBuilder b("nested", 17);
  b.Input("cond", onnx::TensorProto::BOOL, {});
  b.Input("x", kF32, {2});
  *b.graph().add_node() = inner.node(0);
  b.Output("out");
  return b.Serialize();
}

TEST(RobustnessTest, DeeplyNestedSubgraphsDoNotCrash) {
  absl::StatusOr<engine::Analysis> a =
      ImportAndAnalyze(NestedIfModel(100), "nested100.onnx");
  if (!a.ok()) {
    EXPECT_THAT(Message(a.status()), StartsWith("nested100.onnx"));
  }
}

TEST(RobustnessTest, SubgraphsNestedBeyondTheParserLimitAreAnError) {
  absl::StatusOr<graph::Graph> g =
      Import(NestedIfModel(1000), "nested1000.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(Message(g.status()), StartsWith("nested1000.onnx"));
}

// ---------------------------------------------------------------------------
// Every error names the file and what is wrong.

struct BadModel {
  std::string name;     // display name, also the case's label
  std::string bytes;    // the model
  std::string keyword;  // a word of the expected "what is wrong"
};

std::vector<BadModel> BadModels() {
  std::vector<BadModel> cases;
  cases.push_back({"empty.onnx", "", "empty"});
  cases.push_back({"text.onnx", "this is plainly not a protobuf\n", "ONNX"});
  {
    std::string valid = SmallCnnBytes();
    cases.push_back(
        {"truncated.onnx", valid.substr(0, valid.size() / 2), "truncated"});
  }
  {
    onnx::ModelProto no_graph;
    no_graph.set_ir_version(8);
    cases.push_back({"no_graph.onnx", no_graph.SerializeAsString(), "graph"});
  }
  {
    OnnxBuilder b("cycle", 17);
    b.Input("x", kF32, {2});
    b.Node("Add", {"x", "b"}, {}, {"a"});
    b.Node("Relu", {"a"}, {}, {"b"});
    b.Output("b");
    cases.push_back({"cycle.onnx", b.Serialize(), "cycle"});
  }
  {
    OnnxBuilder b("dangling", 17);
    b.Input("x", kF32, {2});
    b.Output(b.Node("Add", {"x", "nobody_makes_me"}));
    cases.push_back({"dangling.onnx", b.Serialize(), "nobody_makes_me"});
  }
  {
    OnnxBuilder b("twice", 17);
    b.Input("x", kF32, {2});
    b.Node("Relu", {"x"}, {}, {"y"});
    b.Node("Neg", {"x"}, {}, {"y"});
    b.Output("y");
    cases.push_back({"duplicate_output.onnx", b.Serialize(), "'y'"});
  }
  {
    OnnxBuilder b("big_dim", 17);
    b.Input("x", kF32, {(int64_t{1} << 40) + 1});
    b.Output(b.Node("Relu", {"x"}));
    cases.push_back({"big_dim.onnx", b.Serialize(), "2^40"});
  }
  {
    OnnxBuilder b("negative_dim", 17);
    b.Input("x", kF32, {2, -3});
    b.Output(b.Node("Relu", {"x"}));
    cases.push_back({"negative_dim.onnx", b.Serialize(), "negative"});
  }
  {
    OnnxBuilder b("negative_weight_dim", 17);
    b.Input("x", kF32, {2});
    b.ExternalInitializer("w", kF32, {-2}, "absent.data", 4);
    b.Output(b.Node("Add", {"x", "w"}));
    cases.push_back({"negative_weight_dim.onnx", b.Serialize(), "negative"});
  }
  {
    OnnxBuilder b("bad_dtype", 17);
    b.Input("x", /*elem_type=*/99, {2});
    b.Output(b.Node("Relu", {"x"}));
    cases.push_back({"bad_dtype.onnx", b.Serialize(), "data type"});
  }
  {
    OnnxBuilder b("bad_weight_dtype", 17);
    b.Input("x", kF32, {2});
    b.ExternalInitializer("w", /*elem_type=*/77, {2}, "absent.data", 4);
    b.Output(b.Node("Add", {"x", "w"}));
    cases.push_back({"bad_weight_dtype.onnx", b.Serialize(), "data type"});
  }
  {
    OnnxBuilder b("unbound", 17);
    b.Input("x", kF32, {2, "seq_len"});
    b.Output(b.Node("Relu", {"x"}));
    cases.push_back({"unbound.onnx", b.Serialize(), "seq_len"});
  }
  {
    OnnxBuilder b("missing_output", 17);
    b.Input("x", kF32, {2});
    b.Node("Relu", {"x"});
    b.Output("not_there");
    cases.push_back({"missing_output.onnx", b.Serialize(), "not_there"});
  }
  // Arity against the ONNX schema at the model's opset (found by the fuzzer:
  // a one-input ConvTranspose read its missing weight out of bounds).
  // ConvTranspose-11 takes X, W and an optional B; Gemm-13's C is optional
  // but A and B are not; Relu-14 has one output (onnx/defs/*/defs.cc).
  {
    OnnxBuilder b("convtranspose_one_input", 17);
    b.Input("x", kF32, {1, 1, 3, 3});
    b.Output(b.Node("ConvTranspose", {"x"}));
    cases.push_back({"convtranspose_one_input.onnx", b.Serialize(),
                     "(ConvTranspose): has 1 input; ConvTranspose-11 takes 2 "
                     "to 3"});
  }
  {
    OnnxBuilder b("gemm_empty_b", 17);
    b.Input("a", kF32, {2, 2});
    b.Output(b.Node("Gemm", {"a", ""}));
    cases.push_back({"gemm_empty_b.onnx", b.Serialize(),
                     "input 1 ('B') of Gemm-13 is required but empty"});
  }
  {
    OnnxBuilder b("relu_two_outputs", 17);
    b.Input("x", kF32, {2});
    b.Node("Relu", {"x"}, {}, {"y", "z"});
    b.Output("y");
    cases.push_back({"relu_two_outputs.onnx", b.Serialize(),
                     "has 2 outputs; Relu-14 produces 1"});
  }
  // Found by the fuzzer: a Scan whose body attribute is missing reached
  // libonnx's Scan inference, which dereferenced a null subgraph inferencer.
  {
    OnnxBuilder b("scan_without_body", 17);
    b.Input("x", kF32, {2, 3});
    b.Output(b.Node("Scan", {"x"}, {IntAttr("num_scan_inputs", 1)}));
    cases.push_back({"scan_without_body.onnx", b.Serialize(),
                     "(Scan): required attribute 'body' of Scan-16 is "
                     "missing"});
  }
  return cases;
}

TEST(RobustnessTest, EveryImportErrorNamesTheFileAndTheProblem) {
  for (const BadModel& bad : BadModels()) {
    SCOPED_TRACE(bad.name);
    absl::StatusOr<graph::Graph> g = Import(bad.bytes, bad.name);
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(Message(g.status()), StartsWith(bad.name));
    EXPECT_THAT(Message(g.status()), HasSubstr(bad.keyword));
  }
}

// Found by the fuzzer: a Gather whose data is declared a scalar built an
// iterator past an empty dims vector. A scalar has no axis (ONNX: axis in
// [-r, r-1]), so every op that takes an axis leaves its output unresolved
// with the reason instead of indexing the scalar's dims.
TEST(RobustnessTest, AxisOfAScalarIsOutOfRange) {
  for (const std::string op :
       {"Gather", "Split", "ArgMax", "Concat", "SplitToSequence"}) {
    SCOPED_TRACE(op);
    OnnxBuilder b("scalar_axis", 17);
    b.Input("data", kF32, {});
    std::vector<std::string> inputs = {"data"};
    if (op == "Gather") {
      b.Input("indices", onnx::TensorProto::INT64, {3});
      inputs.push_back("indices");
    }
    const std::string y = b.Node(op, inputs, {IntAttr("axis", 0)});
    b.Output(y);
    absl::StatusOr<graph::Graph> g = Import(b.Serialize(), "scalar_axis.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    ASSERT_EQ(g->unresolved.size(), 1u);
    EXPECT_EQ(g->unresolved[0].tensor, y);
    EXPECT_THAT(g->unresolved[0].reason,
                HasSubstr("axis 0 is out of range for rank 0"));
  }
}

// Found by the fuzzer: at an opset newer than libonnx's schemas (which the
// schema check cannot judge) an Add with one constant input reached the
// binary-op constant folder, which read a second operand that does not exist.
// Now such a node is not folded; its shape still resolves.
TEST(RobustnessTest, FoldersCheckTheirArityAtUnknownOpsets) {
  for (const std::string op : {"Add", "Where", "Neg"}) {
    SCOPED_TRACE(op);
    OnnxBuilder b("future_opset", 122);
    b.Int64Initializer("a", {2}, {1, 2});
    b.Int64Initializer("b", {2}, {3, 4});
    // One input too many or too few for each op.
    const std::vector<std::string> inputs =
        op == "Neg" ? std::vector<std::string>{"a", "b"}
                    : std::vector<std::string>{"a"};
    const std::string y = b.Node(op, inputs);
    b.Output(y);
    absl::StatusOr<graph::Graph> g = Import(b.Serialize(), "future_opset.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_FALSE(g->tensor(*g->FindTensor(y)).int_values.has_value());
  }
}

TEST(RobustnessTest, FileErrorsNameThePath) {
  const std::string dir =
      std::string(RIDGELINE_BINARY_DIR) + "/robustness_test_files";
  std::filesystem::create_directories(dir);
  struct Case {
    std::string path;
    std::string keyword;
  };
  const std::string empty = dir + "/empty.onnx";
  { std::ofstream(empty, std::ios::trunc); }
  const std::string unreadable = dir + "/unreadable.onnx";
  { std::ofstream(unreadable, std::ios::trunc) << "x"; }
  chmod(unreadable.c_str(), 0);
  std::vector<Case> cases = {
      {dir + "/does_not_exist.onnx", "no such file"},
      {dir, "directory"},
      {empty, "empty"},
  };
  if (geteuid() != 0) cases.push_back({unreadable, "read"});  // root reads all
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    absl::StatusOr<graph::Graph> g =
        importers::ImportOnnxFile(c.path, importers::ImportOptions{});
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(Message(g.status()), StartsWith(c.path));
    EXPECT_THAT(Message(g.status()), HasSubstr(c.keyword));
  }
}

// ---------------------------------------------------------------------------
// Truncated and corrupted files.

// Every prefix of a small valid model: an error that names the file, or (when
// the cut falls on a field boundary) a model that analyzes. Never a crash.
TEST(RobustnessTest, TruncatedAtEveryOffsetFailsCleanly) {
  const std::string valid = SmallCnnBytes();
  ASSERT_TRUE(ImportAndAnalyze(valid, "small_cnn.onnx").ok());
  int errors = 0;
  for (size_t len = 0; len < valid.size(); ++len) {
    absl::StatusOr<engine::Analysis> a =
        ImportAndAnalyze(valid.substr(0, len), "cut.onnx");
    if (!a.ok()) {
      ++errors;
      ASSERT_THAT(Message(a.status()), StartsWith("cut.onnx"))
          << "prefix of " << len << " bytes";
    }
  }
  // Most prefixes cut a field in two; the empty prefix certainly fails.
  EXPECT_GT(errors, static_cast<int>(valid.size() / 2));
}

// Each byte of the model replaced by 0xff, then by 0x00: no crash, and every
// import error names the file.
TEST(RobustnessTest, CorruptedByteAtEveryOffsetFailsCleanly) {
  const std::string valid = SmallCnnBytes();
  for (char replacement : {'\xff', '\x00'}) {
    for (size_t i = 0; i < valid.size(); ++i) {
      std::string bytes = valid;
      bytes[i] = replacement;
      absl::StatusOr<graph::Graph> g = Import(bytes, "corrupt.onnx");
      if (!g.ok()) {
        ASSERT_THAT(Message(g.status()), StartsWith("corrupt.onnx"))
            << "byte " << i;
        continue;
      }
      absl::StatusOr<engine::Analysis> a =
          engine::Analyze(*g, TestHardware(), engine::AnalyzeOptions{});
      (void)a;
    }
  }
}

}  // namespace
}  // namespace ridgeline
