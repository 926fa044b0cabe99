// Shapes the importer resolves on the fixtures written by
// tests/fixtures/make_importer_fixtures.py. Every expected shape is worked out
// by hand in the comments from the fixture's graph.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"

namespace ridgeline::importers {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Fixture(const std::string& name) {
  return std::string(RIDGELINE_SOURCE_DIR) + "/tests/fixtures/importer/" + name;
}

graph::Graph Import(const std::string& name,
                    const ImportOptions& options = {}) {
  absl::StatusOr<graph::Graph> g = ImportOnnxFile(Fixture(name), options);
  EXPECT_TRUE(g.ok()) << MessageOf(g.status());
  return g.ok() ? *std::move(g) : graph::Graph();
}

const graph::Tensor& T(const graph::Graph& g, const std::string& name) {
  std::optional<int> t = g.FindTensor(name);
  EXPECT_TRUE(t.has_value()) << name;
  static const graph::Tensor kMissing;
  return t.has_value() ? g.tensor(*t) : kMissing;
}

graph::Dims Dims(const graph::Graph& g, const std::string& name) {
  const graph::Tensor& t = T(g, name);
  EXPECT_TRUE(t.shape_known) << name;
  return t.dims;
}

TEST(ImporterShapesTest, FoldsShapeGatherUnsqueezeConcatReshape) {
  graph::Graph g = Import("shape_chain.onnx");
  EXPECT_TRUE(g.unresolved.empty());
  // Shape(x) of x [2,3,4,5] is [2,3,4,5]; Gather(.., 0) = 2; Unsqueeze -> [2];
  // Concat with [-1] -> [2,-1]; Reshape of 120 elements -> [2, 120/2].
  EXPECT_EQ(T(g, "s").int_values, (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(T(g, "c").int_values, (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(Dims(g, "y"), (graph::Dims{2, 60}));
  // Slice(s, 1, 3) = [3,4]; ReduceProd = 12; Concat([-1], [12]);
  // Reshape -> [120/12, 12].
  EXPECT_EQ(T(g, "t").int_values, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(T(g, "c2").int_values, (std::vector<int64_t>{-1, 12}));
  EXPECT_EQ(Dims(g, "z"), (graph::Dims{10, 12}));
  EXPECT_EQ(T(g, "z").dtype, graph::DType::kFloat32);
}

TEST(ImporterShapesTest, FoldsRangeConstantOfShapeWhereExpandCast) {
  ImportOptions options;
  options.dims["batch"] = 3;
  options.dims["sequence"] = 8;
  graph::Graph g = Import("range_where_expand.onnx", options);
  EXPECT_TRUE(g.unresolved.empty());
  // Range(0, 8, 1) has 8 values; Unsqueeze -> [1,8]; Expand to Shape(ids).
  EXPECT_EQ(Dims(g, "r"), (graph::Dims{8}));
  EXPECT_EQ(Dims(g, "positions"), (graph::Dims{3, 8}));
  EXPECT_EQ(T(g, "positions").dtype, graph::DType::kInt64);
  // ConstantOfShape([8, 8]) with a float value.
  EXPECT_EQ(Dims(g, "square"), (graph::Dims{8, 8}));
  EXPECT_EQ(T(g, "square").dtype, graph::DType::kFloat32);
  // target [3,-1,4]; Equal(target, -1) = [F,T,F]; Where(.., 1, target) =
  // [3,1,4]; Expand of cls [1,1,4] to it.
  EXPECT_EQ(T(g, "fixed").int_values, (std::vector<int64_t>{3, 1, 4}));
  EXPECT_EQ(Dims(g, "cls_b"), (graph::Dims{3, 1, 4}));
  // Cast(8) / 2.0 = 4.0 -> Cast to int64 4: Slice ids[:, 0:4].
  EXPECT_EQ(T(g, "half").int_values, (std::vector<int64_t>{4}));
  EXPECT_EQ(Dims(g, "first_half"), (graph::Dims{3, 4}));
}

TEST(ImporterShapesTest, UnboundSymbolicDimNamesDimAndInputs) {
  absl::StatusOr<graph::Graph> g =
      ImportOnnxFile(Fixture("symbolic_dims.onnx"), {});
  ASSERT_FALSE(g.ok());
  const std::string message(MessageOf(g.status()));
  EXPECT_THAT(message, HasSubstr("symbolic_dims.onnx"));
  EXPECT_THAT(message, HasSubstr("'batch' (inputs input_ids, attention_mask)"));
  EXPECT_THAT(message, HasSubstr("'sequence' (input input_ids)"));
  EXPECT_THAT(message, HasSubstr("'total' (input attention_mask)"));

  // --batch binds the leading dim of both inputs; the others stay unbound.
  ImportOptions batch_only;
  batch_only.batch = 2;
  g = ImportOnnxFile(Fixture("symbolic_dims.onnx"), batch_only);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(MessageOf(g.status())), Not(HasSubstr("'batch'")));
  EXPECT_THAT(std::string(MessageOf(g.status())), HasSubstr("'total'"));
}

TEST(ImporterShapesTest, BindsSymbolicDims) {
  ImportOptions options;
  options.batch = 2;
  options.dims["sequence"] = 5;
  options.dims["total"] = 9;
  graph::Graph g = Import("symbolic_dims.onnx", options);
  EXPECT_TRUE(g.unresolved.empty());
  EXPECT_EQ(Dims(g, "input_ids"), (graph::Dims{2, 5}));
  EXPECT_EQ(Dims(g, "attention_mask"), (graph::Dims{2, 9}));
  // Concat along axis 1: 5 + 9 = 14.
  EXPECT_EQ(Dims(g, "y"), (graph::Dims{2, 14}));
  EXPECT_EQ(T(g, "y").dtype, graph::DType::kFloat32);
}

TEST(ImporterShapesTest, ResolvesIfAndLoopBodiesWithParents) {
  graph::Graph g = Import("subgraphs.onnx");
  EXPECT_TRUE(g.unresolved.empty());
  const int if_node = *g.FindNode("if_node");
  const int loop_node = *g.FindNode("loop_node");
  const graph::Node& then_add = g.node(*g.FindNode("then_add"));
  EXPECT_EQ(then_add.parent, if_node);
  EXPECT_EQ(then_add.parent_attribute, "then_branch");
  EXPECT_EQ(g.node(*g.FindNode("else_mul")).parent_attribute, "else_branch");
  EXPECT_EQ(g.node(*g.FindNode("body_add")).parent, loop_node);
  // Both branches give x's shape [2,3], so the If output is [2,3] although
  // the condition is a graph input.
  EXPECT_EQ(Dims(g, "t"), (graph::Dims{2, 3}));
  EXPECT_EQ(Dims(g, "y"), (graph::Dims{2, 3}));
  // Loop body: acc [2,3] + x; ReduceSum over axis 1 -> [2]. The trip count
  // is the constant 4 and the body passes its condition through, so the scan
  // output stacks 4 of them: [4,2]; the carried value keeps [2,3].
  EXPECT_EQ(Dims(g, "acc_out"), (graph::Dims{2, 3}));
  EXPECT_EQ(Dims(g, "row_sum"), (graph::Dims{2}));
  EXPECT_EQ(Dims(g, "final"), (graph::Dims{2, 3}));
  EXPECT_EQ(Dims(g, "sums"), (graph::Dims{4, 2}));
}

TEST(ImporterShapesTest, ResolvesLlmContribOps) {
  graph::Graph g = Import("contrib_llm.onnx");
  for (const auto& u : g.unresolved)
    ADD_FAILURE() << u.tensor << ": " << u.reason;
  // batch 2, sequence 5, hidden 64 = 4 heads x 16; 2 KV heads; past 7.
  EXPECT_EQ(Dims(g, "normed"), (graph::Dims{2, 5, 64}));
  EXPECT_EQ(Dims(g, "sum"), (graph::Dims{2, 5, 64}));
  // MatMulNBits: [2,5,K=64] -> [2,5,N] with N = 64, 32, 32.
  EXPECT_EQ(Dims(g, "q"), (graph::Dims{2, 5, 64}));
  EXPECT_EQ(Dims(g, "k"), (graph::Dims{2, 5, 32}));
  EXPECT_EQ(Dims(g, "v"), (graph::Dims{2, 5, 32}));
  EXPECT_EQ(Dims(g, "q_rot"), (graph::Dims{2, 5, 64}));
  EXPECT_EQ(Dims(g, "k_rot"), (graph::Dims{2, 5, 32}));
  // total_sequence_length = attention_mask dim 1 = 7 + 5 = 12, folded from
  // Shape -> Gather -> Cast; present length = max(past 7, total 12) = 12.
  EXPECT_EQ(T(g, "total").int_values, (std::vector<int64_t>{12}));
  EXPECT_EQ(Dims(g, "attn"), (graph::Dims{2, 5, 64}));
  EXPECT_EQ(Dims(g, "present_key"), (graph::Dims{2, 2, 12, 16}));
  EXPECT_EQ(Dims(g, "present_value"), (graph::Dims{2, 2, 12, 16}));
  EXPECT_EQ(Dims(g, "seqlens_k"), (graph::Dims{2}));
  EXPECT_EQ(T(g, "seqlens_k").dtype, graph::DType::kInt32);
}

TEST(ImporterShapesTest, ResolvesOtherContribOps) {
  graph::Graph g = Import("contrib_misc.onnx");
  for (const auto& u : g.unresolved)
    ADD_FAILURE() << u.tensor << ": " << u.reason;
  // Attention: x [2,3,32], weights [32, 3*32], 4 heads of 8. Output
  // [2,3,32]; present = past [2,2,4,6,8] grown by 3 tokens: [2,2,4,9,8].
  EXPECT_EQ(Dims(g, "att"), (graph::Dims{2, 3, 32}));
  EXPECT_EQ(Dims(g, "present"), (graph::Dims{2, 2, 4, 9, 8}));
  // MultiHeadAttention: key/value [2,5,32]; present = past_k [2,4,6,8]
  // grown by 5: [2,4,11,8].
  EXPECT_EQ(Dims(g, "mha"), (graph::Dims{2, 3, 32}));
  EXPECT_EQ(Dims(g, "mha_k"), (graph::Dims{2, 4, 11, 8}));
  EXPECT_EQ(Dims(g, "mha_v"), (graph::Dims{2, 4, 11, 8}));
  for (const char* same :
       {"sln", "sln_sum", "rms", "bg", "fg", "qg", "g", "ba"}) {
    EXPECT_EQ(Dims(g, same), (graph::Dims{2, 3, 32})) << same;
  }
  // FusedMatMul with transB: [2,3,32] x [48,32]^T = [2,3,48].
  EXPECT_EQ(Dims(g, "fmm"), (graph::Dims{2, 3, 48}));
  // EmbedLayerNormalization: ids [2,3], embeddings of width 32.
  EXPECT_EQ(Dims(g, "emb"), (graph::Dims{2, 3, 32}));
  EXPECT_EQ(Dims(g, "mask_index"), (graph::Dims{2}));
  EXPECT_EQ(T(g, "mask_index").dtype, graph::DType::kInt32);
}

TEST(ImporterShapesTest, ResolvesOrtQOperatorAndNhwcContribOps) {
  graph::Graph g = Import("contrib_qop_nhwc.onnx");
  for (const auto& u : g.unresolved)
    ADD_FAILURE() << u.tensor << ": " << u.reason;
  // QLinearConv of [2,4,8,8] with w [6,4,3,3], pads 1: [2,6,8,8], uint8
  // (y_zero_point's type). The average pool 2/2 halves H and W; the global
  // pool keeps N and C; the QLinearConcat of conv twice along axis 1 has
  // 12 channels, uint8 as its Y_zero_point.
  EXPECT_EQ(Dims(g, "avg"), (graph::Dims{2, 6, 4, 4}));
  EXPECT_EQ(T(g, "avg").dtype, graph::DType::kUInt8);
  EXPECT_EQ(Dims(g, "gap"), (graph::Dims{2, 6, 1, 1}));
  EXPECT_EQ(Dims(g, "cat"), (graph::Dims{2, 12, 8, 8}));
  EXPECT_EQ(T(g, "cat").dtype, graph::DType::kUInt8);
  // QGemm of a [2,24] and b [10,24]^T: [2,10], float without y_scale, int8
  // (y_zero_point's type) with it.
  EXPECT_EQ(Dims(g, "gemm_f"), (graph::Dims{2, 10}));
  EXPECT_EQ(T(g, "gemm_f").dtype, graph::DType::kFloat32);
  EXPECT_EQ(Dims(g, "gemm_q"), (graph::Dims{2, 10}));
  EXPECT_EQ(T(g, "gemm_q").dtype, graph::DType::kInt8);
  // NhwcConv of [2,8,8,4] with the channels-last weight [6,3,3,4] (kernel
  // 3x3 from W[1:-1]), pads 1, stride 2: (8 + 2 - 3) / 2 + 1 = 4 -> [2,4,4,6].
  EXPECT_EQ(Dims(g, "nhwc"), (graph::Dims{2, 4, 4, 6}));
  // NhwcMaxPool 2/2 of [2,8,8,4]: [2,4,4,4].
  EXPECT_EQ(Dims(g, "nmax"), (graph::Dims{2, 4, 4, 4}));
  // Channels-last QLinearConv (weight [6,4,3,3], the ONNX layout) of
  // [2,8,8,4], pads 1: [2,8,8,6]; its global pool [2,1,1,6] and its 2/2
  // average pool [2,4,4,6].
  EXPECT_EQ(Dims(g, "gap_l"), (graph::Dims{2, 1, 1, 6}));
  EXPECT_EQ(Dims(g, "avg_l"), (graph::Dims{2, 4, 4, 6}));
  // FusedGemm [2,24] x [24,10]; GridSample of [2,4,8,8] on a [2,5,6,2]
  // grid: [2,4,5,6].
  EXPECT_EQ(Dims(g, "fgemm"), (graph::Dims{2, 10}));
  EXPECT_EQ(Dims(g, "gs"), (graph::Dims{2, 4, 5, 6}));
  // QAttention of a uint8 [2,3,32] with weights [32,96], 4 heads of 8: a
  // float [2,3,32] (its bias's type); present = past [2,2,4,6,8] grown by 3
  // tokens.
  EXPECT_EQ(Dims(g, "qatt"), (graph::Dims{2, 3, 32}));
  EXPECT_EQ(T(g, "qatt").dtype, graph::DType::kFloat32);
  EXPECT_EQ(Dims(g, "qpresent"), (graph::Dims{2, 2, 4, 9, 8}));
  // DecoderMaskedSelfAttention of one token: [2,1,32]; its present is the
  // shared 16-position buffer itself.
  EXPECT_EQ(Dims(g, "dmsa"), (graph::Dims{2, 1, 32}));
  EXPECT_EQ(Dims(g, "dmsa_present"), (graph::Dims{2, 2, 4, 16, 8}));
}

TEST(ImporterShapesTest, ResolvesOpset18Forms) {
  graph::Graph g = Import("opset18.onnx");
  EXPECT_TRUE(g.unresolved.empty());
  // x [2,3,5]. ReduceMean axes input [1], keepdims: [2,1,5].
  EXPECT_EQ(Dims(g, "mean"), (graph::Dims{2, 1, 5}));
  // ReduceMax axes [-1,0], keepdims 0: only dim 1 stays: [3].
  EXPECT_EQ(Dims(g, "max"), (graph::Dims{3}));
  // ReduceSum without axes and noop_with_empty_axes: unchanged.
  EXPECT_EQ(Dims(g, "same"), (graph::Dims{2, 3, 5}));
  // ReduceL2 without axes, keepdims 0: a scalar.
  EXPECT_EQ(Dims(g, "all"), (graph::Dims{}));
  // Split num_outputs 2 of 5: ceil(5/2) = 3, then 2.
  EXPECT_EQ(Dims(g, "s0"), (graph::Dims{2, 3, 3}));
  EXPECT_EQ(Dims(g, "s1"), (graph::Dims{2, 3, 2}));
  // Pad with axes [1], pads [1,2]: 3 + 1 + 2 = 6.
  EXPECT_EQ(Dims(g, "padded"), (graph::Dims{2, 6, 5}));
  // Resize with axes [2] and scale 2: floor(5 * 2) = 10.
  EXPECT_EQ(Dims(g, "resized"), (graph::Dims{2, 3, 10}));
  // Resize to sizes [6,6] on axes [1,2] keeping the aspect ratio: the scales
  // are 6/3 = 2 and 6/5 = 1.2. not_larger takes 1.2: round(3 * 1.2) = 4,
  // round(5 * 1.2) = 6; not_smaller takes 2: 6 and 10.
  EXPECT_EQ(Dims(g, "not_larger"), (graph::Dims{2, 4, 6}));
  EXPECT_EQ(Dims(g, "not_smaller"), (graph::Dims{2, 6, 10}));
  EXPECT_EQ(Dims(g, "grouped"), (graph::Dims{2, 3, 5}));
  // CenterCropPad of axis 2 to 4.
  EXPECT_EQ(Dims(g, "cropped"), (graph::Dims{2, 3, 4}));
}

TEST(ImporterShapesTest, ResolvesOpset20Forms) {
  graph::Graph g = Import("opset20.onnx");
  EXPECT_TRUE(g.unresolved.empty());
  // DFT of a real signal [1,8,1] along axis 1 (an input from opset 20),
  // onesided: 8 / 2 + 1 = 5 bins, complex last dim 2.
  EXPECT_EQ(Dims(g, "spectrum"), (graph::Dims{1, 5, 2}));
  EXPECT_EQ(Dims(g, "gelu"), (graph::Dims{1, 8, 1}));
  // AffineGrid for size [N=2, C=3, H=4, W=5]: [2, 4, 5, 2].
  EXPECT_EQ(Dims(g, "grid"), (graph::Dims{2, 4, 5, 2}));
}

TEST(ImporterShapesTest, UnknownOpsStayUnresolvedWithReason) {
  graph::Graph g = Import("unknown_ops.onnx");
  // ai.onnx.ml Scaler keeps the input's [2,3] and gives float.
  EXPECT_EQ(Dims(g, "scaled"), (graph::Dims{2, 3}));
  EXPECT_EQ(T(g, "scaled").dtype, graph::DType::kFloat32);
  // The custom-domain op, the op ONNX does not define, and what depends on
  // the former are listed with their node and reason.
  std::map<std::string, graph::Unresolved> by_tensor;
  for (const auto& u : g.unresolved) by_tensor[u.tensor] = u;
  ASSERT_EQ(by_tensor.size(), 3u);
  EXPECT_EQ(by_tensor["m"].node, "mystery");
  EXPECT_EQ(by_tensor["m"].reason,
            "no shape function for example.custom:Mystery");
  EXPECT_EQ(by_tensor["after"].node, "relu_after");
  EXPECT_EQ(by_tensor["after"].reason,
            "input 'm' is unresolved: no shape function for "
            "example.custom:Mystery");
  EXPECT_EQ(by_tensor["nso"].reason, "no shape function for ai.onnx:NoSuchOp");
}

TEST(ImporterShapesTest, ResolvesClassicMlModels) {
  ImportOptions options;
  options.dims["N"] = 10;
  graph::Graph g = Import("classic_ml.onnx", options);
  for (const auto& u : g.unresolved)
    ADD_FAILURE() << u.tensor << ": " << u.reason;
  // Classifiers: the label [N] (int64 with integer labels, string with
  // string labels) and one score per class, float.
  EXPECT_EQ(Dims(g, "lin_label"), (graph::Dims{10}));
  EXPECT_EQ(T(g, "lin_label").dtype, graph::DType::kInt64);
  EXPECT_EQ(Dims(g, "lin_prob"), (graph::Dims{10, 3}));
  EXPECT_EQ(T(g, "tree_label").dtype, graph::DType::kString);
  EXPECT_EQ(Dims(g, "tree_prob"), (graph::Dims{10, 2}));
  EXPECT_EQ(Dims(g, "svm_prob"), (graph::Dims{10, 2}));
  // SVMRegressor: one target per row.
  EXPECT_EQ(Dims(g, "svr"), (graph::Dims{10, 1}));
}

TEST(ImporterShapesTest, MissingExternalDataIsAWarning) {
  graph::Graph g = Import("external_data.onnx");
  ASSERT_EQ(g.warnings.size(), 1u);
  EXPECT_THAT(g.warnings[0], HasSubstr("missing_weights.bin"));
  const graph::Tensor& w = T(g, "w");
  EXPECT_TRUE(w.external_data);
  EXPECT_TRUE(w.is_weight());
  EXPECT_EQ(w.dims, (graph::Dims{4, 4}));
  // [2,4] x [4,4] = [2,4].
  EXPECT_EQ(Dims(g, "y"), (graph::Dims{2, 4}));
  EXPECT_TRUE(g.unresolved.empty());
}

}  // namespace
}  // namespace ridgeline::importers
