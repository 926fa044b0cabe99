// Small real-toolchain exports (tests/fixtures/field/, written by
// make_field_fixtures.py with torch.onnx.export and the rewrites real
// toolchains apply): each analyzes fully, and its MACs and parameters match
// a count made by hand from the module definitions (the derivations are in
// the comments; nothing here is copied from the program's output).
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/analyze/run.h"

namespace ridgeline {
namespace {

const std::string kDir = RIDGELINE_SOURCE_DIR "/tests/fixtures/field/";

struct Result {
  int code = -1;
  nlohmann::json json;
  std::string err;
};

Result AnalyzeJson(std::vector<std::string> args) {
  args.insert(args.end(), {"--hw", "h100", "--format", "json"});
  std::ostringstream out, err;
  Result r;
  r.code = tools::analyze::AnalyzeMain(args, out, err);
  r.json = nlohmann::json::parse(out.str(), nullptr, false);
  r.err = err.str();
  return r;
}

void ExpectFullyAnalyzed(const Result& r) {
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_FALSE(r.json.is_discarded());
  EXPECT_TRUE(r.json["summary"]["unresolved"].empty())
      << r.json["summary"]["unresolved"];
  EXPECT_TRUE(r.json["summary"]["skipped_layers"].empty());
  EXPECT_TRUE(r.json["summary"]["unknown_ops"].empty())
      << r.json["summary"]["unknown_ops"];
}

// HF-style decoder step, hidden 16, 2 heads of 8, MLP 32, vocab 64, one
// layer; batch B, new tokens S, past P, total T = P + S.
//   q, k, v projections: 3 * B*S*16*16 = 768 B S
//   QK^T and AV: 2 * B*2*S*T*8 = 32 B S T
//   output projection: B*S*16*16 = 256 B S
//   MLP up + down: 2 * B*S*16*32 = 1024 B S
//   lm_head: B*S*16*64 = 1024 B S
// B=2, S=3, P=5, T=8: 3072*6 + 32*2*3*8 = 18432 + 1536 = 19968 MACs.
// Parameters: embedding 64*16 + 4 projections 4*256 + MLP 2*512 + LayerNorm
// 2*16 + lm_head 16*64 = 1024 + 1024 + 1024 + 32 + 1024 = 4128 (the float
// scalars the exporter puts in Constant nodes are not parameters).
TEST(FieldFixtures, HfDecoderWithPastKeyValues) {
  const Result r = AnalyzeJson(
      {kDir + "hf_decoder.onnx", "--dim", "batch=2", "--dim", "sequence=3",
       "--dim", "past_sequence=5", "--dim", "total_sequence=8"});
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 19968.0);
  EXPECT_EQ(r.json["summary"]["params"], 4128);
  EXPECT_EQ(r.json["assumptions"]["batch"], 2);
}

// paddle2onnx-style CNN, every weight in a Constant node:
//   Conv 3->8, 3x3, pad 1 on 16x16: B*8*16*16*3*3*3 = 55296 B MACs
//   Gemm 8->4: 32 B MACs.  B = 2: 110656 MACs.
// Parameters: 8*3*3*3 + 8 + 4*8 + 4 = 260 (fp32: 1040 bytes).
TEST(FieldFixtures, PaddleStyleConstantWeights) {
  const Result r = AnalyzeJson({kDir + "paddle_cnn.onnx", "--batch", "2"});
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 110656.0);
  EXPECT_EQ(r.json["summary"]["params"], 260);
  EXPECT_DOUBLE_EQ(r.json["summary"]["weight_bytes"].get<double>(), 1040.0);
}

// Vocoder front end with anonymous dims: mel [B, 8, F], state [1, B, 6].
//   ConvTranspose 8->4, kernel 4, stride 2, pad 1: output length
//   (F-1)*2 - 2 + 4 = 2F; scatter form B*8*F*4*4 = 128 B F MACs.
//   LSTM over T = 2F steps, input 4, hidden 6: T*B*4*6*(4+6) = 240 B T.
// B = 2, F = 5: 1280 + 4800 = 6080 MACs.
// Parameters: 8*4*4 + 4 + 24*4 + 24*6 + 48 = 420.
TEST(FieldFixtures, VocoderWithAnonymousDims) {
  const std::string path = kDir + "vocoder.onnx";
  Result r = AnalyzeJson({path});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("input 'h0' dim 1"), std::string::npos) << r.err;

  r = AnalyzeJson({path, "--input", "mel=2x8x5", "--input", "h0=1x2x6",
                   "--input", "c0=1x2x6"});
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 6080.0);
  EXPECT_EQ(r.json["summary"]["params"], 420);
}

// The state's batch dim, named "batch" through --input, joins the batch
// binding with mel's anonymous leading dim: a batch sweep scales both.
// MACs are linear in B (128 F + 240 * 2F per sample), so are the FLOPs.
TEST(FieldFixtures, VocoderBatchSweepThroughNamedStateDim) {
  const Result r = AnalyzeJson({kDir + "vocoder.onnx", "--input", "mel=?x8x5",
                                "--input", "h0=1xbatchx6", "--input",
                                "c0=1xbatchx6", "--sweep", "batch=1,3"});
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 3040.0);
  const auto& points = r.json["sweep"]["points"];
  ASSERT_EQ(points.size(), 2u);
  EXPECT_DOUBLE_EQ(points[1]["flops"].get<double>(),
                   3 * points[0]["flops"].get<double>());
}

// The QDQ CNN as ONNX Runtime's static quantizer writes it (per-channel
// int8 weights, int32 biases, uint8 activations, each behind
// DequantizeLinear), x [2, 3, 16, 16]:
//   conv1 3->8, 3x3, pad 1: 16x16 outputs x 8 x 27 = 55,296 MACs/image;
//   conv2 8->16, 3x3, stride 2, pad 1: 8x8 outputs x 16 x 72 = 73,728;
//   fc 16->4: 64. Per image 129,088; batch 2: 258,176.
// Parameters are the weights and biases: 216 + 8 + 1,152 + 16 + 64 + 4 =
// 1,460 (the scales and zero points are quantization metadata: 106 for
// the weights and biases, 6 for the activations, not counted). Weight
// bytes: 1,432 int8 weights x 1 B + 28 int32 biases x 4 B = 1,544.
TEST(FieldFixtures, OnnxRuntimeQdqCnn) {
  const Result r = AnalyzeJson({kDir + "qdq_cnn.onnx", "--batch", "2"});
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 258176.0);
  EXPECT_EQ(r.json["summary"]["params"], 1460);
  EXPECT_DOUBLE_EQ(r.json["summary"]["weight_bytes"].get<double>(), 1544.0);
}

}  // namespace
}  // namespace ridgeline
