// Small real-toolchain exports (tests/fixtures/field/, written by
// make_field_fixtures.py with torch.onnx.export and the rewrites real
// toolchains apply): each analyzes fully, and its MACs and parameters match
// a count made by hand from the module definitions (the derivations are in
// the comments; nothing here is copied from the program's output).
#include <map>
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
// hf_decoder.onnx at batch b, s new tokens and p past ones (total p + s).
Result HfDecoderAt(int b, int s, int p) {
  return AnalyzeJson({kDir + "hf_decoder.onnx", "--dim",
                      "batch=" + std::to_string(b), "--dim",
                      "sequence=" + std::to_string(s), "--dim",
                      "past_sequence=" + std::to_string(p), "--dim",
                      "total_sequence=" + std::to_string(p + s)});
}

TEST(FieldFixtures, HfDecoderWithPastKeyValues) {
  const Result r = HfDecoderAt(2, 3, 5);
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 19968.0);
  EXPECT_EQ(r.json["summary"]["params"], 4128);
  EXPECT_EQ(r.json["assumptions"]["batch"], 2);
}

// The same decoder at its prefill: --dim past_sequence=0 binds an empty past
// (ONNX dims may be 0). B=1, S=8, P=0, T=8: 3072*8 + 32*1*8*8 = 24576 +
// 2048 = 26624 MACs. A negative dim stays a usage error (exit 1).
TEST(FieldFixtures, HfDecoderPrefillBindsAnEmptyPast) {
  const Result r = HfDecoderAt(1, 8, 0);
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 26624.0);
  const Result bad =
      AnalyzeJson({kDir + "hf_decoder.onnx", "--dim", "past_sequence=-1"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("VALUE >= 0"), std::string::npos) << bad.err;
}

// HF optimum's merged decoder (hf_decoder_merged.onnx: decoder_model_merged
// as optimum's merge_decoders writes it, a bool use_cache_branch [1]
// choosing between the decoder with past (then) and without (else) in one
// If) and the same decoder with past unmerged (hf_decoder_with_past.onnx).
// Config: vocab 64, hidden 16, 2 heads (2 KV heads) of 8, MLP 32, 2 layers,
// fp32. Batch B, new tokens S, past P, attended T = P + S:
//   per layer: q, k, v projections 3 * B*S*16*16 = 768 B S
//              QK^T and AV 2 * B*2*S*T*8 = 32 B S T
//              output projection B*S*16*16 = 256 B S
//              MLP up + down 2 * B*S*16*32 = 1024 B S
//   lm_head B*S*16*64 = 1024 B S
//   MACs = 2 * (2048 B S + 32 B S T) + 1024 B S.
// Parameters: embedding 64*16 + 2 * (4*256 + 2*512 + LayerNorm 2*16) +
// lm_head 16*64 = 1024 + 2*2080 + 1024 = 6208.
// KV bytes per token: 2 (K, V) x 2 layers x 2 KV heads x head dim 8 x 4 B =
// 256.
const std::string kMerged = kDir + "hf_decoder_merged.onnx";
const std::string kWithPast = kDir + "hf_decoder_with_past.onnx";

double Macs(double b, double s, double t) {
  return 2 * (2048 * b * s + 32 * b * s * t) + 1024 * b * s;
}

// Layers that run (latency > 0) and read one of the past_key_values inputs.
int KvReadingLayers(const nlohmann::json& report) {
  int n = 0;
  for (const auto& layer : report["layers"]) {
    if (layer["latency_s"].get<double>() <= 0) continue;
    for (const auto& in : layer["inputs"]) {
      if (in["name"].get<std::string>().rfind("past_key_values.", 0) == 0) {
        ++n;
        break;
      }
    }
  }
  return n;
}

// --input-value use_cache_branch folds the If: only the taken branch counts.
TEST(FieldFixtures, OptimumMergedDecoderCountsTheTakenBranch) {
  // The decode step: B = 2, S = 1, P = 5, T = 6:
  // 2 * (4096 + 384) + 2048 = 11,008 MACs.
  Result r = AnalyzeJson(
      {kMerged, "--dim", "batch_size=2", "--dim", "sequence_length=1", "--dim",
       "past_sequence_length=5", "--dim", "attention_mask_sequence_length=6",
       "--input-value", "use_cache_branch=1"});
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(Macs(2, 1, 6), 11008.0);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 11008.0);
  EXPECT_EQ(r.json["summary"]["params"], 6208);
  // Each layer's two Concats read its past key and value.
  EXPECT_EQ(KvReadingLayers(r.json), 4);
  // The unmerged export at the same binding counts the same.
  const Result unmerged =
      AnalyzeJson({kWithPast, "--dim", "batch_size=2", "--dim",
                   "sequence_length=1", "--dim", "past_sequence_length=5",
                   "--dim", "past_sequence_length + 1=6"});
  ExpectFullyAnalyzed(unmerged);
  EXPECT_DOUBLE_EQ(unmerged.json["summary"]["macs"].get<double>(), 11008.0);
  EXPECT_EQ(unmerged.json["summary"]["params"], 6208);

  // The first pass, the branch without past: B = 2, S = T = 3:
  // 2 * (12,288 + 576) + 6,144 = 31,872 MACs; nothing reads the KV inputs
  // (bound to one token here, --dim takes no 0; the branch ignores them).
  r = AnalyzeJson({kMerged, "--dim", "batch_size=2", "--dim",
                   "sequence_length=3", "--dim", "past_sequence_length=1",
                   "--dim", "attention_mask_sequence_length=3", "--input-value",
                   "use_cache_branch=0"});
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(Macs(2, 3, 3), 31872.0);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 31872.0);
  EXPECT_EQ(KvReadingLayers(r.json), 0);
}

// --serve on the merged decoder with no --dim: the prefill is the branch
// without past (use_cache_branch false, past 0), every decode step the
// branch with past at past = context; the same TPOT as the unmerged export.
TEST(FieldFixtures, OptimumMergedDecoderServes) {
  const std::vector<std::string> serve = {"--serve", "--prompt", "8",
                                          "--generate", "4"};
  std::vector<std::string> args = {kMerged};
  args.insert(args.end(), serve.begin(), serve.end());
  const Result merged = AnalyzeJson(args);
  ExpectFullyAnalyzed(merged);
  const nlohmann::json& s = merged.json["serve"];
  EXPECT_EQ(s["kv_bytes_per_token"], 2 * 2 * 2 * 8 * 4);  // 256
  // KV cache at N + M = 12 tokens, one request: 256 x 12 = 3,072 B.
  EXPECT_DOUBLE_EQ(s["memory"]["kv_cache_bytes"].get<double>(), 3072.0);
  // 4 output tokens: the prefill's and 3 decode steps at past 8..10.
  ASSERT_EQ(s["tpot_by_context"].size(), 3u);
  EXPECT_EQ(s["tpot_by_context"][0]["context"], 8);
  EXPECT_EQ(s["tpot_by_context"][2]["context"], 10);
  // The report beside it is the first decode step: B = 1, S = 1, P = 8,
  // T = 9: 2 * (2048 + 288) + 1024 = 5,696 MACs, the KV inputs read.
  EXPECT_DOUBLE_EQ(Macs(1, 1, 9), 5696.0);
  EXPECT_DOUBLE_EQ(merged.json["summary"]["macs"].get<double>(), 5696.0);
  EXPECT_EQ(KvReadingLayers(merged.json), 4);
  EXPECT_DOUBLE_EQ(merged.json["summary"]["latency_s"].get<double>(),
                   s["tpot_by_context"][0]["tpot_s"].get<double>());

  // TTFT is the branch without past at 8 tokens: B = 1, S = T = 8:
  // 2 * (16,384 + 2,048) + 8,192 = 45,056 MACs, no layer reads the cache
  // (the unread KV inputs bound to one token: --dim takes no 0).
  const Result prefill = AnalyzeJson(
      {kMerged, "--dim", "batch_size=1", "--dim", "sequence_length=8", "--dim",
       "past_sequence_length=1", "--dim", "attention_mask_sequence_length=8",
       "--input-value", "use_cache_branch=0"});
  ExpectFullyAnalyzed(prefill);
  EXPECT_DOUBLE_EQ(Macs(1, 8, 8), 45056.0);
  EXPECT_DOUBLE_EQ(prefill.json["summary"]["macs"].get<double>(), 45056.0);
  EXPECT_EQ(KvReadingLayers(prefill.json), 0);
  EXPECT_DOUBLE_EQ(s["ttft_s"].get<double>(),
                   prefill.json["summary"]["latency_s"].get<double>());

  // A past-length dim the KV inputs lack: an input error naming the file.
  args = {kMerged, "--kv-dim", "no_such_dim"};
  args.insert(args.end(), serve.begin(), serve.end());
  const Result bad = AnalyzeJson(args);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(kMerged), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("--kv-dim no_such_dim"), std::string::npos) << bad.err;

  // The unmerged decoder with past, same config: the same decode steps.
  args = {kWithPast};
  args.insert(args.end(), serve.begin(), serve.end());
  const Result unmerged = AnalyzeJson(args);
  ExpectFullyAnalyzed(unmerged);
  const nlohmann::json& u = unmerged.json["serve"];
  EXPECT_EQ(u["kv_bytes_per_token"], 256);
  EXPECT_DOUBLE_EQ(u["tpot_s"].get<double>(), s["tpot_s"].get<double>());
  ASSERT_EQ(u["tpot_by_context"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(u["tpot_by_context"][i]["tpot_s"].get<double>(),
                     s["tpot_by_context"][i]["tpot_s"].get<double>());
  }
}

// The one-layer HF decoder (hf_decoder.onnx) serves with no --dim too: its
// attention mask's "total_sequence" is bound to past + new tokens. KV bytes
// per token: 2 x 1 layer x 2 KV heads x 8 x 4 B = 128.
TEST(FieldFixtures, HfDecoderServesWithoutDims) {
  const Result r = AnalyzeJson({kDir + "hf_decoder.onnx", "--serve", "--prompt",
                                "8", "--generate", "4", "--concurrency", "2"});
  ExpectFullyAnalyzed(r);
  EXPECT_EQ(r.json["serve"]["kv_bytes_per_token"], 128);
  // The first decode step, B = 2, S = 1, T = 9 (the one-layer count above):
  // 3072 * 2 + 32 * 2 * 9 = 6,720 MACs.
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 6720.0);
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

// A Whisper-like encoder-decoder as HF optimum exports Whisper
// (make_field_fixtures.py WHISPER: 8 mel bins, d_model 16, 2 heads of 8,
// FFN 32, 1 encoder and 2 decoder layers, vocab 64, 8 encoder and 32
// decoder positions).
//
// whisper_encoder.onnx, input_features [B, 8, F], L = F / 2 (= 8: the
// positions table is added whole, as HF does):
//   conv1 8->16, k 3, pad 1: B*F*16*8*3 = 384 B F
//   conv2 16->16, k 3, stride 2, pad 1: B*L*16*16*3 = 768 B L
//   q, k, v, out projections: 4 * B*L*16*16 = 1024 B L
//   QK^T and AV: 2 * B*2*L*L*8 = 32 B L^2
//   fc1 + fc2: 2 * B*L*16*32 = 1024 B L
// B = 2, F = 16, L = 8: 12,288 + 12,288 + 16,384 + 4,096 + 16,384 = 61,440.
// Parameters: conv1 384 + 16, conv2 768 + 16, positions 8*16 = 128,
// attention 4*256 + 3 biases*16 = 1,072, 2 LayerNorms 64, fc1 512 + 32,
// fc2 512 + 16, final LayerNorm 32: 3,552.
TEST(FieldFixtures, WhisperEncoder) {
  const Result r = AnalyzeJson({kDir + "whisper_encoder.onnx", "--dim",
                                "batch_size=2", "--dim", "feature_size=8",
                                "--dim", "encoder_sequence_length=16"});
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 61440.0);
  EXPECT_EQ(r.json["summary"]["params"], 3552);
}

// whisper_decoder_merged.onnx: optimum's decoder_model_merged (the decoder
// without past and the one with past in one If on use_cache_branch).
// Batch B, new tokens S, past P, T = P + S, encoder length E:
//   per layer: self-attention q, k, v, out 4 * B*S*16*16 = 1024 B S
//              self QK^T and AV 2 * B*2*S*T*8 = 32 B S T
//              cross-attention q, out 2 * B*S*16*16 = 512 B S
//              cross QK^T and AV 2 * B*2*S*E*8 = 32 B S E
//              fc1 + fc2 2 * B*S*16*32 = 1024 B S
//   proj_out B*S*16*64 = 1024 B S
//   the first pass only (no past): the cross-attention keys and values
//   projected from the encoder's output, 2 layers * 2 * B*E*16*16 = 1024 B E.
// MACs = 6144 B S + 64 B S (T + E) [+ 1024 B E without past].
// Parameters: embed_tokens 64*16 = 1,024, positions 32*16 = 512, per layer
// 2 attentions 2 * 1,072 + 3 LayerNorms 96 + fc1 544 + fc2 528 = 3,312,
// final LayerNorm 32, proj_out 16*64 = 1,024: 1,024 + 512 + 6,624 + 32 +
// 1,024 = 9,216.
const std::string kWhisperDecoder = kDir + "whisper_decoder_merged.onnx";

double WhisperDecoderMacs(double b, double s, double p, double e,
                          bool with_past) {
  return 6144 * b * s + 64 * b * s * (p + s + e) +
         (with_past ? 0 : 1024 * b * e);
}

// whisper_decoder_merged.onnx at batch b, s new tokens, past p, encoder
// length e, the branch with past or without.
Result WhisperDecoderAt(int b, int s, int p, int e, bool with_past) {
  const std::string enc = std::to_string(e);
  return AnalyzeJson(
      {kWhisperDecoder, "--dim", "batch_size=" + std::to_string(b), "--dim",
       "decoder_sequence_length=" + std::to_string(s), "--dim",
       "past_decoder_sequence_length=" + std::to_string(p), "--dim",
       "encoder_sequence_length_out=" + enc, "--dim",
       "encoder_sequence_length / 2=" + enc, "--input-value",
       std::string("use_cache_branch=") + (with_past ? "1" : "0")});
}

TEST(FieldFixtures, WhisperDecoderWithCrossAttentionKv) {
  // A decode step: B = 2, S = 1, P = 5, E = 8: 12,288 + 64*2*14 = 14,080.
  Result r = WhisperDecoderAt(2, 1, 5, 8, true);
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(WhisperDecoderMacs(2, 1, 5, 8, true), 14080.0);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 14080.0);
  EXPECT_EQ(r.json["summary"]["params"], 9216);
  // Each layer's two Concats read its past decoder key and value, its two
  // cross-attention MatMuls the past encoder key and value.
  EXPECT_EQ(KvReadingLayers(r.json), 8);
  // The first pass: B = 2, S = 3, P = 0, E = 8:
  // 36,864 + 64*6*11 + 1024*2*8 = 36,864 + 4,224 + 16,384 = 57,472; no
  // layer reads the KV inputs.
  r = WhisperDecoderAt(2, 3, 0, 8, false);
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(WhisperDecoderMacs(2, 3, 0, 8, false), 57472.0);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 57472.0);
  EXPECT_EQ(KvReadingLayers(r.json), 0);
}

// --serve on the Whisper decoder: the self-attention past grows with the
// context, the cross-attention (encoder) keys and values stay at the
// encoder's length. The encoder length E = 8 equals the prompt N = 8 on
// purpose: only the decoder KV inputs move between the steps at past N and
// N + 1, so a detection by value alone would take the encoder KV for cache.
//   KV bytes per token (self-attention only): 2 (K, V) x 2 layers x 2 heads
//   x head dim 8 x 4 B = 256; fixed per request: 2 x 2 x 2 x E 8 x 8 x 4 B
//   = 2,048. At N + M = 12 tokens, one request: 256 x 12 + 2,048 = 5,120 B.
TEST(FieldFixtures, WhisperDecoderServesWithFixedCrossAttentionKv) {
  const Result r =
      AnalyzeJson({kWhisperDecoder, "--dim", "encoder_sequence_length_out=8",
                   "--dim", "encoder_sequence_length / 2=8", "--serve",
                   "--prompt", "8", "--generate", "4"});
  ExpectFullyAnalyzed(r);
  const nlohmann::json& s = r.json["serve"];
  EXPECT_EQ(s["kv_bytes_per_token"], 256);
  EXPECT_EQ(s["kv_layers"], 2);
  EXPECT_EQ(s["kv_fixed_bytes_per_sequence"], 2048);
  EXPECT_DOUBLE_EQ(s["memory"]["kv_cache_bytes"].get<double>(), 5120.0);
  // The report beside it is the first decode step: B = 1, S = 1, P = 8,
  // E = 8: 6,144 + 64*17 = 7,232 MACs.
  EXPECT_DOUBLE_EQ(WhisperDecoderMacs(1, 1, 8, 8, true), 7232.0);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 7232.0);
  // Each analyzed step is the decoder at past = context with E still 8:
  // 4 output tokens, the prefill's and 3 steps at past 8..10.
  ASSERT_EQ(s["tpot_by_context"].size(), 3u);
  for (const int i : {0, 2}) {
    const nlohmann::json& step = s["tpot_by_context"][i];
    EXPECT_EQ(step["context"], 8 + i);
    const Result at = WhisperDecoderAt(1, 1, 8 + i, 8, true);
    EXPECT_DOUBLE_EQ(step["tpot_s"].get<double>(),
                     at.json["summary"]["latency_s"].get<double>())
        << "context " << 8 + i;
  }
  // TTFT is the first pass at 8 tokens: 49,152 + 64*8*16 + 8,192 = 65,536
  // MACs.
  const Result prefill = WhisperDecoderAt(1, 8, 0, 8, false);
  EXPECT_DOUBLE_EQ(prefill.json["summary"]["macs"].get<double>(), 65536.0);
  EXPECT_DOUBLE_EQ(s["ttft_s"].get<double>(),
                   prefill.json["summary"]["latency_s"].get<double>());
}

// A one-class detector exported as torchvision's detection models are
// (detector.onnx, image [1, 3, H, W]): conv1 3->8, 3x3, stride 2, pad 1;
// conv2 8->16, 3x3, stride 2, pad 1; 1x1 box (16->4) and score (16->1)
// heads on the H/4 x W/4 grid; TopK of k = min(10, anchors) scores (k from
// the shape, a ReduceMin), torchvision.ops.nms (ONNX NonMaxSuppression,
// max_output_boxes_per_class = INT64_MAX), the first 5 kept.
//   MACs: conv1 (H/2)(W/2)*8*27 = 54 HW; conv2 (H/4)(W/4)*16*72 = 72 HW;
//   box head (HW/16)*4*16 = 4 HW; score head (HW/16)*16 = HW: 131 HW.
//   Parameters: 216 + 8 + 1,152 + 16 + 64 + 4 + 16 + 1 = 1,477.
// NonMaxSuppression keeps a data-dependent number of boxes: taken at its
// upper bound, min(INT64_MAX, k boxes) for 1 batch and 1 class, [k, 3],
// and its FLOPs at the worst case that bound assumes (README's table): k
// areas x 3, a sort of k scores k x max(1, ceil(log2 k)) and k (k - 1) / 2
// IoUs x 16 (no score threshold input).
// Output shapes by op type and by tensor name.
std::map<std::string, nlohmann::json> OutputShapes(
    const nlohmann::json& report) {
  std::map<std::string, nlohmann::json> shapes;
  for (const auto& layer : report["layers"]) {
    shapes[layer["op"]] = layer["outputs"][0]["shape"];
    for (const auto& out : layer["outputs"]) shapes[out["name"]] = out["shape"];
  }
  return shapes;
}

// The FLOPs of the report's one layer of op type `op`.
double FlopsOf(const nlohmann::json& report, const std::string& op) {
  for (const auto& layer : report["layers"]) {
    if (layer["op"] == op) return layer["flops"].get<double>();
  }
  return -1;
}

TEST(FieldFixtures, DetectorWithTopKAndNonMaxSuppression) {
  const std::string path = kDir + "detector.onnx";
  // 16 x 16: 16 anchors, k = 10. 131 * 256 = 33,536 MACs.
  Result r = AnalyzeJson({path, "--dim", "height=16", "--dim", "width=16"});
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 33536.0);
  EXPECT_EQ(r.json["summary"]["params"], 1477);
  std::map<std::string, nlohmann::json> shapes = OutputShapes(r.json);
  EXPECT_EQ(shapes["TopK"], nlohmann::json({10}));
  EXPECT_EQ(shapes["NonMaxSuppression"], nlohmann::json({10, 3}));
  // k = 10: 30 + 10 * 4 + 45 * 16 = 790.
  EXPECT_DOUBLE_EQ(FlopsOf(r.json, "NonMaxSuppression"), 790.0);
  bool warned = false;
  for (const nlohmann::json& w : r.json["warnings"]) {
    const std::string text = w.get<std::string>();
    warned |= text.find("taken at their upper bound") != std::string::npos &&
              text.find("(NonMaxSuppression)") != std::string::npos;
  }
  EXPECT_TRUE(warned) << r.json["warnings"];
  // The outputs: the first 5 of at most 10 kept boxes.
  EXPECT_EQ(shapes["boxes"], nlohmann::json({5, 4}));
  EXPECT_EQ(shapes["scores"], nlohmann::json({5}));

  // 8 x 8: 4 anchors, k = min(10, 4) = 4: NonMaxSuppression [4, 3].
  // 131 * 64 = 8,384 MACs.
  r = AnalyzeJson({path, "--dim", "height=8", "--dim", "width=8"});
  ExpectFullyAnalyzed(r);
  EXPECT_DOUBLE_EQ(r.json["summary"]["macs"].get<double>(), 8384.0);
  shapes = OutputShapes(r.json);
  EXPECT_EQ(shapes["TopK"], nlohmann::json({4}));
  EXPECT_EQ(shapes["NonMaxSuppression"], nlohmann::json({4, 3}));
  // k = 4: 12 + 4 * 2 + 6 * 16 = 116.
  EXPECT_DOUBLE_EQ(FlopsOf(r.json, "NonMaxSuppression"), 116.0);
  EXPECT_EQ(shapes["boxes"], nlohmann::json({4, 4}));
}

}  // namespace
}  // namespace ridgeline
