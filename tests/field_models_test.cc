// Classes of defects that third-party ONNX exports hit (issue 15): weights
// in Constant nodes, anonymous dims, scalar inputs with values, folded If
// branches, the batch binding, unmatched --dim, long and hostile names,
// warnings in the JSON report. Each model is built in code (bench's
// OnnxBuilder) and run through the CLI in-process; expected numbers are
// worked out by hand in the comments.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench/onnx_builder.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli_test_util.h"
#include "tools/analyze/run.h"

namespace ridgeline {
namespace {

using bench::IntAttr;
using bench::OnnxBuilder;
using cli_testing::Contains;
using cli_testing::Result;
using cli_testing::RunCli;

constexpr int kF32 = onnx::TensorProto::FLOAT;
constexpr int kI64 = onnx::TensorProto::INT64;

// Writes `bytes` to a fresh file in this test's temporary folder.
std::string WriteModel(const std::string& name, const std::string& bytes) {
  const std::string path = (cli_testing::TempDir() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// A Constant node whose `value` is a float tensor of `dims` (all 0.5).
std::string FloatConstant(OnnxBuilder& b, const std::vector<int64_t>& dims) {
  onnx::AttributeProto value;
  value.set_name("value");
  value.set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto* t = value.mutable_t();
  t->set_data_type(kF32);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t->add_float_data(0.5f);
  return b.Node("Constant", {}, {value});
}

// A Constant node holding int64 `values` (rank 1).
std::string IntConstant(OnnxBuilder& b, const std::vector<int64_t>& values) {
  onnx::AttributeProto value;
  value.set_name("value");
  value.set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto* t = value.mutable_t();
  t->set_data_type(kI64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
  return b.Node("Constant", {}, {value});
}

nlohmann::json Json(const Result& r) {
  return nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
}

// ---------------------------------------------------------------------------
// Defect 1: weights stored in Constant nodes (paddle2onnx) are weights.

// x[4,16] @ W[16,8] + b[8], W and b in Constant nodes, then a Reshape to
// [32] through an int64 Constant (shape arithmetic, not a weight).
// params = 16*8 + 8 = 136; weight_bytes = 136 * 4 = 544.
TEST(FieldModels, ConstantNodeWeightsAreParameters) {
  OnnxBuilder b("constant_weights", 17);
  b.Input("x", kF32, {int64_t{4}, int64_t{16}});
  const std::string w = FloatConstant(b, {16, 8});
  const std::string bias = FloatConstant(b, {8});
  const std::string shape = IntConstant(b, {32});
  std::string y = b.Node("MatMul", {"x", w});
  y = b.Node("Add", {y, bias});
  b.Output(b.Node("Reshape", {y, shape}));
  const Result r = RunCli({WriteModel("constant_weights.onnx", b.Serialize()),
                           "--hw", "h100", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = Json(r);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["summary"]["params"], 136);
  EXPECT_DOUBLE_EQ(j["summary"]["weight_bytes"].get<double>(), 544.0);
}

// An initializer of `elem_type` (uint8 or int8) holding `dims` elements, all 1.
void ByteInitializer(OnnxBuilder& b, const std::string& name, int elem_type,
                     const std::vector<int64_t>& dims) {
  onnx::TensorProto* t = b.graph().add_initializer();
  t->set_name(name);
  t->set_data_type(elem_type);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  t->set_raw_data(std::string(static_cast<size_t>(n), '\1'));
}

// Integer initializers that are shape operands (tf2onnx writes every
// Reshape shape, the torch exporter every Slice start and end as one; a
// silero VAD holds 173 such elements, an ONNX Runtime dynamic-quantized
// ISNet 632) are arithmetic, not parameters.
// x[4,16] @ W[16,8] + b[8]; Reshape to [2,16] (shape: int64 initializer of
// 2 elements); Slice [0:1] on axis 0 (starts, ends, axes: 3 int64
// elements). params = 16*8 + 8 = 136 (the 5 int64 elements are not);
// weight_bytes = 136 * 4 = 544.
TEST(FieldModels, IntegerShapeInitializersAreNotParameters) {
  OnnxBuilder b("int64_initializers", 17);
  b.Input("x", kF32, {int64_t{4}, int64_t{16}});
  b.FloatInitializer("W", {16, 8}, std::vector<float>(128, 0.5f));
  b.FloatInitializer("b", {8}, std::vector<float>(8, 0.5f));
  b.Int64Initializer("shape", {2}, {2, 16});
  b.Int64Initializer("starts", {1}, {0});
  b.Int64Initializer("ends", {1}, {1});
  b.Int64Initializer("axes", {1}, {0});
  std::string y = b.Node("MatMul", {"x", "W"});
  y = b.Node("Add", {y, "b"});
  y = b.Node("Reshape", {y, "shape"});
  b.Output(b.Node("Slice", {y, "starts", "ends", "axes"}));
  const Result r = RunCli({WriteModel("int64_init.onnx", b.Serialize()), "--hw",
                           "h100", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = Json(r);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["summary"]["params"], 136);
  EXPECT_DOUBLE_EQ(j["summary"]["weight_bytes"].get<double>(), 544.0);
}

// A convolution as ONNX Runtime's quantize_dynamic writes it:
// DynamicQuantizeLinear(x) -> ConvInteger(x_q, W_q uint8 [8,4,3,3], x_zp,
// w_zp uint8 scalar) -> Cast -> Mul(x_scale * w_scale) -> Add(bias
// reshaped to [1,8,1,1] by an int64 initializer of 4 elements).
// The weight zero point (ConvInteger input 3) is quantization metadata, as
// QuantizeLinear/DequantizeLinear's are; the reshape shape is arithmetic.
//   params = W 8*4*3*3 = 288 + w_scale 1 (a float initializer) + bias 8 =
//   297; weight_bytes = 288 * 1 + 1 * 4 + 8 * 4 = 324.
//   MACs: x [1,4,8,8], 3x3, no pad -> [1,8,6,6]: 8*36 * 4*9 = 10,368.
TEST(FieldModels, IntegerOpZeroPointsAreNotParameters) {
  constexpr int kU8 = onnx::TensorProto::UINT8;
  OnnxBuilder b("conv_integer", 17);
  b.Input("x", kF32, {int64_t{1}, int64_t{4}, int64_t{8}, int64_t{8}});
  ByteInitializer(b, "W_q", kU8, {8, 4, 3, 3});
  ByteInitializer(b, "W_zp", kU8, {});
  b.FloatInitializer("W_scale", {}, {0.01f});
  b.FloatInitializer("bias", {8}, std::vector<float>(8, 0.5f));
  b.Int64Initializer("bias_shape", {4}, {1, 8, 1, 1});
  b.Node("DynamicQuantizeLinear", {"x"}, {}, {"x_q", "x_scale", "x_zp"});
  std::string y = b.Node("ConvInteger", {"x_q", "W_q", "x_zp", "W_zp"});
  y = b.Node("Cast", {y}, {bench::IntAttr("to", kF32)});
  const std::string scale = b.Node("Mul", {"x_scale", "W_scale"});
  y = b.Node("Mul", {y, scale});
  const std::string bias = b.Node("Reshape", {"bias", "bias_shape"});
  b.Output(b.Node("Add", {y, bias}));
  const Result r = RunCli({WriteModel("conv_integer.onnx", b.Serialize()),
                           "--hw", "h100", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = Json(r);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_TRUE(j["summary"]["unresolved"].empty()) << r.out;
  EXPECT_TRUE(j["summary"]["unknown_ops"].empty()) << r.out;
  EXPECT_DOUBLE_EQ(j["summary"]["macs"].get<double>(), 10368.0);
  EXPECT_EQ(j["summary"]["params"], 297);
  EXPECT_DOUBLE_EQ(j["summary"]["weight_bytes"].get<double>(), 324.0);
}

// ---------------------------------------------------------------------------
// Defects 2 and 6: anonymous dims bound per input; --dim that matches
// nothing.

// A voice-activity-style model: input [?, ?] (samples), state [2, ?, 4]
// (the batch in dim 1), both anonymous. y = MatMul(input, W[16, 4]).
std::string AnonymousDimsModel() {
  OnnxBuilder b("anonymous_dims", 17);
  b.Input("input", kF32, {std::string(), std::string()});
  b.Input("state", kF32, {int64_t{2}, std::string(), int64_t{4}});
  b.FloatInitializer("W", {16, 4}, std::vector<float>(64, 0.25f));
  b.Output(b.Node("MatMul", {"input", "W"}));
  b.Output(b.Node("Relu", {"state"}));
  return b.Serialize();
}

TEST(FieldModels, UnboundAnonymousDimsAreNamedByInputAndPosition) {
  const Result r =
      RunCli({WriteModel("anon.onnx", AnonymousDimsModel()), "--hw", "h100"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "input 'input' dim 0")) << r.err;
  EXPECT_TRUE(Contains(r.err, "input 'input' dim 1")) << r.err;
  EXPECT_TRUE(Contains(r.err, "input 'state' dim 1")) << r.err;
  EXPECT_FALSE(Contains(r.err, "unnamed")) << r.err;
}

TEST(FieldModels, InputBindsEveryDimOfOneInput) {
  // input [3, 16] and state [2, 5, 4]: dim 1 of each bound separately.
  // MACs: MatMul 3 x 16 x 4 = 192.
  const Result r = RunCli({WriteModel("anon.onnx", AnonymousDimsModel()),
                           "--hw", "h100", "--input", "input=3x16", "--input",
                           "state=2x5x4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = Json(r);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_DOUBLE_EQ(j["summary"]["macs"].get<double>(), 192.0);
  for (const auto& layer : j["layers"]) {
    if (layer["op"] == "Relu") {
      EXPECT_EQ(layer["outputs"][0]["shape"], nlohmann::json({2, 5, 4}))
          << layer;
    }
  }
}

TEST(FieldModels, InputErrorsNameTheInputAndExitTwo) {
  const std::string path = WriteModel("anon.onnx", AnonymousDimsModel());
  Result r = RunCli({path, "--hw", "h100", "--input", "nosuch=1x2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "no input 'nosuch'")) << r.err;
  r = RunCli({path, "--hw", "h100", "--input", "state=2x5"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "rank 3")) << r.err;
  r = RunCli({path, "--hw", "h100", "--input", "state=3x5x4", "--input",
              "input=1x16"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "dim 0 is 2 in the model")) << r.err;
  EXPECT_EQ(RunCli({path, "--hw", "h100", "--input", "state"}).code, 1);
}

TEST(FieldModels, DimMatchingNoInputIsAnErrorListingTheSymbolicDims) {
  OnnxBuilder b("named_dims", 17);
  b.Input("x", kF32, {std::string("batch"), std::string("seq"), int64_t{8}});
  b.Output(b.Node("Relu", {"x"}));
  const Result r =
      RunCli({WriteModel("named.onnx", b.Serialize()), "--hw", "h100", "--dim",
              "batch=1", "--dim", "seq=4", "--dim", "sequence=4"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(Contains(r.err, "--dim sequence=4 matches no symbolic input dim"))
      << r.err;
  EXPECT_TRUE(Contains(r.err, "'batch' (input 'x' dim 0)")) << r.err;
  EXPECT_TRUE(Contains(r.err, "'seq' (input 'x' dim 1)")) << r.err;
}

// A decoder with a KV cache carries 'batch' on 161 inputs: the message names
// the first few places of each dim and counts the rest (it was one line of
// 10 KB for the zoo's Llama-2-70B decoder).
TEST(FieldModels, DimErrorOfAModelWithManyInputsStaysShort) {
  OnnxBuilder b("many_inputs", 17);
  std::vector<std::string> outs;
  for (int i = 0; i < 10; ++i) {
    const std::string name = "past." + std::to_string(i);
    b.Input(name, kF32, {std::string("batch"), int64_t{8}});
    outs.push_back(b.Node("Relu", {name}));
  }
  for (const std::string& o : outs) b.Output(o);
  const Result r = RunCli({WriteModel("many.onnx", b.Serialize()), "--hw",
                           "h100", "--dim", "prompt=128"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(Contains(r.err,
                       "'batch' (input 'past.0' dim 0, input 'past.1' dim 0, "
                       "input 'past.2' dim 0, input 'past.3' dim 0, ... (6 "
                       "more))"))
      << r.err;
  EXPECT_FALSE(Contains(r.err, "past.9")) << r.err;
}

// ---------------------------------------------------------------------------
// Defects 3 and 4: --input-value folds an If; the branch not taken is
// neither unresolved nor skipped.

// sr (int64 scalar) selects a branch: sr == 16000 -> then: x[1,16] @ A[16,8]
// (128 MACs); else: a Reshape of x to a data-dependent shape (NonZero: at
// its upper bound [2, 16] the element count does not match x, so the
// Reshape stays unresolved), then @ B.
std::string SampleRateModel(bool constant_condition) {
  OnnxBuilder b("sample_rate", 17);
  b.Input("x", kF32, {int64_t{1}, int64_t{16}});
  b.FloatInitializer("A", {16, 8}, std::vector<float>(128, 0.5f));
  b.FloatInitializer("B", {16, 8}, std::vector<float>(128, 0.5f));
  std::string cond;
  if (constant_condition) {
    onnx::AttributeProto value;
    value.set_name("value");
    value.set_type(onnx::AttributeProto::TENSOR);
    value.mutable_t()->set_data_type(onnx::TensorProto::BOOL);
    value.mutable_t()->add_int32_data(1);
    cond = b.Node("Constant", {}, {value});
  } else {
    b.Input("sr", kI64, {});
    b.Int64Initializer("rate", {}, {16000});
    cond = b.Node("Equal", {"sr", "rate"});
  }
  onnx::GraphProto then_branch;
  then_branch.set_name("then");
  {
    onnx::NodeProto* n = then_branch.add_node();
    n->set_name("then_matmul");
    n->set_op_type("MatMul");
    n->add_input("x");
    n->add_input("A");
    n->add_output("then_out");
    then_branch.add_output()->set_name("then_out");
  }
  onnx::GraphProto else_branch;
  else_branch.set_name("else");
  {
    onnx::NodeProto* nz = else_branch.add_node();
    nz->set_name("else_nonzero");
    nz->set_op_type("NonZero");
    nz->add_input("x");
    nz->add_output("else_nz");
    onnx::NodeProto* shape = else_branch.add_node();
    shape->set_name("else_shape");
    shape->set_op_type("Shape");
    shape->add_input("else_nz");
    shape->add_output("else_shape_out");
    onnx::NodeProto* reshape = else_branch.add_node();
    reshape->set_name("else_reshape");
    reshape->set_op_type("Reshape");
    reshape->add_input("x");
    reshape->add_input("else_shape_out");
    reshape->add_output("else_reshaped");
    onnx::NodeProto* mm = else_branch.add_node();
    mm->set_name("else_matmul");
    mm->set_op_type("MatMul");
    mm->add_input("else_reshaped");
    mm->add_input("B");
    mm->add_output("else_out");
    else_branch.add_output()->set_name("else_out");
  }
  onnx::AttributeProto then_attr;
  then_attr.set_name("then_branch");
  then_attr.set_type(onnx::AttributeProto::GRAPH);
  *then_attr.mutable_g() = then_branch;
  onnx::AttributeProto else_attr;
  else_attr.set_name("else_branch");
  else_attr.set_type(onnx::AttributeProto::GRAPH);
  *else_attr.mutable_g() = else_branch;
  b.Output(b.Node("If", {cond}, {then_attr, else_attr}));
  return b.Serialize();
}

// Detector post-processing (torchvision SSD/RetinaNet exports): NonZero of a
// score mask, GatherND by its indices, TopK of the kept scores and
// NonMaxSuppression. Their sizes depend on the scores; they are taken at
// their upper bound (stated in the warnings) instead of leaving every layer
// after them unresolved and unpriced.
TEST(FieldModels, DataDependentSizesAreTakenAtTheirUpperBound) {
  OnnxBuilder b("detector_tail", 17);
  b.Input("scores", kF32, {int64_t{1}, int64_t{3}, int64_t{100}});
  b.Input("boxes", kF32, {int64_t{1}, int64_t{100}, int64_t{4}});
  b.FloatInitializer("threshold", {}, {0.5f});
  b.Int64Initializer("max_per_class", {1}, {10});
  b.Int64Initializer("k_cap", {1}, {64});
  b.Int64Initializer("zero", {1}, {0});
  const std::string mask = b.Node("Greater", {"scores", "threshold"});
  const std::string nz = b.Node("NonZero", {mask});   // [3, 300] at most
  const std::string idx = b.Node("Transpose", {nz});  // [300, 3]
  const std::string kept = b.Node("GatherND", {"scores", idx});  // [300]
  const std::string count =
      b.Node("Gather", {b.Node("Shape", {kept}), "zero"});  // [300]
  const std::string k = b.Node("Min", {count, "k_cap"});    // [64]
  b.Output(b.Node("TopK", {kept, k}, {}, {"top_values", "top_indices"}));
  b.Output(b.Node("NonMaxSuppression",
                  {"boxes", "scores", "max_per_class"}));  // [30, 3]
  const Result r = RunCli({WriteModel("detector_tail.onnx", b.Serialize()),
                           "--hw", "h100", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_TRUE(j["summary"]["unresolved"].empty()) << j["summary"];
  EXPECT_TRUE(j["summary"]["skipped_layers"].empty()) << j["summary"];
  std::map<std::string, nlohmann::json> shapes;
  for (const nlohmann::json& l : j["layers"]) {
    shapes[l["op"]] = l["outputs"][0]["shape"];
  }
  // By hand: 1 x 3 x 100 scores, all above the threshold at most.
  EXPECT_EQ(shapes["NonZero"], nlohmann::json({3, 300}));
  EXPECT_EQ(shapes["GatherND"], nlohmann::json({300}));
  EXPECT_EQ(shapes["TopK"], nlohmann::json({64}));
  // 1 batch x 3 classes x min(10, 100 boxes) selections of 3 indices.
  EXPECT_EQ(shapes["NonMaxSuppression"], nlohmann::json({30, 3}));
  bool warned = false;
  for (const nlohmann::json& w : j["warnings"]) {
    const std::string text = w.get<std::string>();
    warned |= Contains(text,
                       "2 data-dependent size(s) taken at their upper "
                       "bound") &&
              Contains(text, "(NonZero)") &&
              Contains(text, "(NonMaxSuppression)");
  }
  EXPECT_TRUE(warned) << j["warnings"];
}

TEST(FieldModels, InputValueFoldsTheBranchCondition) {
  const std::string path =
      WriteModel("sample_rate.onnx", SampleRateModel(false));
  // Without the value both branches are counted and the else branch is
  // unresolved.
  Result r = RunCli({path, "--hw", "h100", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = Json(r);
  EXPECT_FALSE(j["summary"]["unresolved"].empty());

  // sr = 16000: the then branch runs: 1 x 16 x 8 = 128 MACs, nothing
  // unresolved or skipped.
  r = RunCli(
      {path, "--hw", "h100", "--input-value", "sr=16000", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  j = Json(r);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_DOUBLE_EQ(j["summary"]["macs"].get<double>(), 128.0);
  EXPECT_TRUE(j["summary"]["unresolved"].empty()) << j["summary"];
  EXPECT_TRUE(j["summary"]["skipped_layers"].empty()) << j["summary"];
  EXPECT_TRUE(r.err.empty()) << r.err;

  // A float value for an int64 input that is not whole is an input error.
  r = RunCli({path, "--hw", "h100", "--input-value", "sr=1.5"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "--input-value sr")) << r.err;
  r = RunCli({path, "--hw", "h100", "--input-value", "rate=1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "no input 'rate'")) << r.err;
}

TEST(FieldModels, BranchFoldedAwayIsNeitherUnresolvedNorSkipped) {
  const Result r = RunCli({WriteModel("folded_if.onnx", SampleRateModel(true)),
                           "--hw", "h100", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = Json(r);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_TRUE(j["summary"]["unresolved"].empty()) << j["summary"];
  EXPECT_TRUE(j["summary"]["skipped_layers"].empty()) << j["summary"];
  EXPECT_DOUBLE_EQ(j["summary"]["macs"].get<double>(), 128.0);
  EXPECT_FALSE(Contains(r.err, "skipped")) << r.err;
}

// ---------------------------------------------------------------------------
// Defect 5: --sweep batch= binds what it sweeps, through the batch binding
// recorded on the Graph.

// A recurrent-state model: x [batch, 16] and h [2, batch, 8] (the batch not
// leading in h). y = MatMul(x, W[16, 8]) + Relu(h).
std::string RecurrentStateModel() {
  OnnxBuilder b("recurrent", 17);
  b.Input("x", kF32, {std::string("batch"), int64_t{16}});
  b.Input("h", kF32, {int64_t{2}, std::string("batch"), int64_t{8}});
  b.FloatInitializer("W", {16, 8}, std::vector<float>(128, 0.5f));
  b.Output(b.Node("MatMul", {"x", "W"}));
  b.Output(b.Node("Relu", {"h"}));
  return b.Serialize();
}

TEST(FieldModels, SweepBatchBindsEveryBatchDimWithoutBatchFlag) {
  const Result r =
      RunCli({WriteModel("recurrent.onnx", RecurrentStateModel()), "--hw",
              "h100", "--sweep", "batch=1,4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = Json(r);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  // The first analysis runs at the first sweep point.
  EXPECT_EQ(j["assumptions"]["batch"], 1);
  const auto& points = j["sweep"]["points"];
  ASSERT_EQ(points.size(), 2u) << j["sweep"];
  // FLOPs per point: the MatMul's batch x 16 x 8 MACs at 2 FLOPs each plus
  // one per element of Relu(h) (2 x batch x 8): 272 x batch.
  EXPECT_DOUBLE_EQ(points[0]["flops"].get<double>(), 272.0);
  EXPECT_DOUBLE_EQ(points[1]["flops"].get<double>(), 272.0 * 4);
}

TEST(FieldModels, SweepBatchOverridesDimBatch) {
  const Result r = RunCli({WriteModel("recurrent.onnx", RecurrentStateModel()),
                           "--hw", "h100", "--dim", "batch=8", "--sweep",
                           "batch=2", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = Json(r);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["assumptions"]["batch"], 8);
  ASSERT_EQ(j["sweep"]["points"].size(), 1u);
  // 272 FLOPs per sample (see above), batch 2.
  EXPECT_DOUBLE_EQ(j["sweep"]["points"][0]["flops"].get<double>(), 272.0 * 2);
}

TEST(FieldModels, BatchBindingIsRecordedOnTheGraph) {
  // --batch binds both sites of "batch", including h's dim 1: throughput
  // uses batch 4.
  const Result r = RunCli({WriteModel("recurrent.onnx", RecurrentStateModel()),
                           "--hw", "h100", "--batch", "4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["assumptions"]["batch"], 4);
  EXPECT_DOUBLE_EQ(j["summary"]["macs"].get<double>(), 4.0 * 16 * 8);
}

// ---------------------------------------------------------------------------
// Defect 7: table widths capped, names elided in the middle, repeated
// warnings collapsed.

// An If on a graph input (condition unknown) whose branches each run five
// Relus named like real exports: long, identical but for then/else and the
// index at the end.
std::string LongNamesModel() {
  OnnxBuilder b("long_names", 17);
  b.Input("cond", onnx::TensorProto::BOOL, {});
  b.Input("x", kF32, {int64_t{1}, int64_t{64}});
  const std::string prefix = "/model/encoder/" + std::string(120, 'p') + "/";
  auto branch = [&](const std::string& which) {
    onnx::GraphProto g;
    g.set_name(which);
    std::string in = "x";
    for (int i = 0; i < 5; ++i) {
      onnx::NodeProto* n = g.add_node();
      n->set_name(prefix + std::string(60, 'q') + "/" + which + "/Relu_" +
                  std::to_string(i));
      n->set_op_type("Relu");
      n->add_input(in);
      in = which + "_" + std::to_string(i);
      n->add_output(in);
    }
    g.add_output()->set_name(in);
    return g;
  };
  onnx::AttributeProto then_attr;
  then_attr.set_name("then_branch");
  then_attr.set_type(onnx::AttributeProto::GRAPH);
  *then_attr.mutable_g() = branch("then_branch");
  onnx::AttributeProto else_attr;
  else_attr.set_name("else_branch");
  else_attr.set_type(onnx::AttributeProto::GRAPH);
  *else_attr.mutable_g() = branch("else_branch");
  b.Output(b.Node("If", {"cond"}, {then_attr, else_attr}));
  return b.Serialize();
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos;
       at = s.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(FieldModels, TableFitsAndElidesNamesInTheMiddle) {
  const Result r = RunCli({WriteModel("long_names.onnx", LongNamesModel()),
                           "--hw", "h100", "--all-layers"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (Contains(line, "T_compute")) in_table = true;
    if (line.empty()) in_table = false;
    if (in_table) {
      EXPECT_LE(line.size(), 160u) << line;
    }
  }
  // The head and the distinguishing tail of each name survive: then/else
  // twins stay different.
  EXPECT_TRUE(Contains(r.out, "/model/encoder/pp")) << r.out;
  EXPECT_EQ(Count(r.out, "then_branch/Relu_4"), 1u) << r.out;
  EXPECT_EQ(Count(r.out, "else_branch/Relu_4"), 1u) << r.out;
}

TEST(FieldModels, RepeatedWarningsAreCollapsedWithACount) {
  const Result r =
      RunCli({WriteModel("long_names.onnx", LongNamesModel()), "--hw", "h100"});
  ASSERT_EQ(r.code, 0) << r.err;
  // Ten Relus carry the same note: one entry, with the count.
  EXPECT_EQ(Count(r.out, "unknown: both branches counted"), 1u) << r.out;
  EXPECT_TRUE(Contains(r.out, "(10 layers")) << r.out;
}

// ---------------------------------------------------------------------------
// Defect 8: the JSON report carries the warnings printed on stderr.

TEST(FieldModels, JsonHasTheWarningsArray) {
  OnnxBuilder b("static", 17);
  b.Input("x", kF32, {int64_t{2}, int64_t{8}});
  b.Output(b.Node("Relu", {"x"}));
  const Result r = RunCli({WriteModel("static.onnx", b.Serialize()), "--hw",
                           "h100", "--batch", "4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.err, "--batch 4 not applied")) << r.err;
  const nlohmann::json j = Json(r);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_TRUE(j.contains("warnings")) << r.out;
  ASSERT_TRUE(j["warnings"].is_array());
  bool found = false;
  for (const auto& w : j["warnings"]) {
    found |= Contains(w.get<std::string>(), "--batch 4 not applied");
  }
  EXPECT_TRUE(found) << j["warnings"];

  // Without warnings the array is there and empty.
  const Result quiet = RunCli({WriteModel("static.onnx", b.Serialize()), "--hw",
                               "h100", "--format", "json"});
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(Json(quiet)["warnings"], nlohmann::json::array());
}

// ---------------------------------------------------------------------------
// Defect 9: control characters in model text are escaped in every text
// output.

TEST(FieldModels, ControlCharactersInNamesAreEscaped) {
  OnnxBuilder b("hostile", 17);
  b.Input("x", kF32, {int64_t{2}, int64_t{8}});
  b.Output(b.Node("Relu", {"x"}));
  b.graph().mutable_node(0)->set_name("evil\x1b[2J\nforged line\x9b\xc2\x9b");
  const std::string path = WriteModel("hostile.onnx", b.Serialize());
  for (const char* format : {"table", "csv", "md"}) {
    const Result r =
        RunCli({path, "--hw", "h100", "--all-layers", "--format", format});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(Contains(r.out, "\x1b")) << format;
    EXPECT_FALSE(Contains(r.out, "\x9b")) << format;  // raw or as U+009B
    EXPECT_FALSE(Contains(r.out, "\nforged line")) << format;
    EXPECT_TRUE(Contains(r.out, "evil\\x1b[2J\\nforged line"))
        << format << r.out;
  }
}

// The what-if tables (fusion groups named after their layers, quantized
// layers, the bound-flip list) print model text too.
TEST(FieldModels, ControlCharactersInWhatIfTablesAreEscaped) {
  OnnxBuilder b("hostile", 17);
  b.Input("x", kF32, {int64_t{64}, int64_t{256}});
  b.FloatInitializer("W", {256, 256}, std::vector<float>(256 * 256, 0.5f));
  const std::string y = b.Node("MatMul", {"x", "W"});
  b.graph().mutable_node(0)->set_name("evil\x1b[2J\nforged line");
  b.Output(b.Node("Relu", {y}));
  const std::string path = WriteModel("hostile_whatif.onnx", b.Serialize());
  for (const std::vector<std::string>& mode :
       {std::vector<std::string>{"--fuse", "all"},
        std::vector<std::string>{"--weights", "int8"},
        std::vector<std::string>{"--what-if"}}) {
    std::vector<std::string> args = {path, "--hw", "h100"};
    args.insert(args.end(), mode.begin(), mode.end());
    const Result r = RunCli(args);
    ASSERT_EQ(r.code, 0) << mode[0] << r.err;
    EXPECT_FALSE(Contains(r.out, "\x1b")) << mode[0] << r.out;
    EXPECT_FALSE(Contains(r.out, "\nforged line")) << mode[0] << r.out;
    if (mode[0] != "--what-if") {  // its table lists scenarios, not layers
      EXPECT_TRUE(Contains(r.out, "evil\\x1b[2J\\nforged line"))
          << mode[0] << r.out;
    }
  }
}

TEST(FieldModels, InvalidUtf8NamesNeverAbortAnyFormat) {
  // Names are bytes in the protobuf; a model can hold any. The JSON writer
  // (nlohmann, strict by default) threw type_error 316 and aborted.
  OnnxBuilder b("bytes", 17);
  b.Input("x", kF32, {int64_t{2}, int64_t{8}});
  b.Output(b.Node("Relu", {"x"}));
  b.graph().mutable_node(0)->set_name("bad\xff\xfe\xc0\x80name");
  const std::string path = WriteModel("invalid_utf8.onnx", b.Serialize());
  for (const char* format : {"json", "table", "csv", "md", "html", "svg"}) {
    const Result r =
        RunCli({path, "--hw", "h100", "--all-layers", "--format", format});
    ASSERT_EQ(r.code, 0) << format << ": " << r.err;
  }
  const Result j = RunCli({path, "--hw", "h100", "--format", "json"});
  const nlohmann::json parsed = nlohmann::json::parse(j.out);
  bool replaced = false;
  for (const auto& l : parsed["layers"]) {
    // Each invalid byte becomes U+FFFD.
    replaced |= l["name"].get<std::string>().find("bad\xef\xbf\xbd") == 0;
  }
  EXPECT_TRUE(replaced) << j.out;
}

// ---------------------------------------------------------------------------
// Defect 10: a long model path in the roofline title is elided, not clipped.

TEST(FieldModels, RooflineTitleElidesALongModelPath) {
  OnnxBuilder b("plain", 17);
  b.Input("x", kF32, {int64_t{2}, int64_t{8}});
  b.FloatInitializer("W", {8, 8}, std::vector<float>(64, 0.5f));
  b.Output(b.Node("MatMul", {"x", "W"}));
  const std::string name = "a_model_exported_by_a_third_party_" +
                           std::string(200, 'm') + "_final.onnx";
  const Result r = RunCli(
      {WriteModel(name, b.Serialize()), "--hw", "h100", "--format", "svg"});
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t at = r.out.find("plot-title");
  ASSERT_NE(at, std::string::npos);
  const size_t open = r.out.find('>', at);
  const size_t close = r.out.find("</text>", open);
  const std::string title = r.out.substr(open + 1, close - open - 1);
  // The head, the tail and the precision stay; the middle is elided.
  EXPECT_TRUE(Contains(title, "Roofline: ")) << title;
  EXPECT_TRUE(Contains(title, "...")) << title;
  EXPECT_TRUE(Contains(title, "final.onnx (")) << title;
  EXPECT_LT(title.size(), 120u) << title;
}

}  // namespace
}  // namespace ridgeline
