// Every zoo graph imports and analyzes like a file: all shapes resolved, no
// unknown op, exact parameter counts, MACs from the published configs.
#include <string>
#include <vector>

#include "engine/analysis.h"
#include "gmock/gmock.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/onnx_wire.h"
#include "tests/zoo_test_util.h"

namespace ridgeline {
namespace {

using ::testing::IsEmpty;

class ZooEntryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooEntryTest, ImportsAndAnalyzesCompletely) {
  absl::StatusOr<zoo::ModelEntry> entry = testing::SourceEntry(GetParam());
  ASSERT_TRUE(entry.ok()) << entry.status();
  absl::StatusOr<graph::Graph> g = testing::ImportEntry(*entry);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->unresolved, IsEmpty());
  EXPECT_EQ(g->ParameterCount(), entry->params);
  for (const graph::Tensor& t : g->tensors()) {
    if (t.is_weight()) {
      EXPECT_TRUE(t.external_data) << t.name;  // weightless
    }
  }
  absl::StatusOr<engine::Hardware> hw = testing::SourceHardware("h100-sxm");
  ASSERT_TRUE(hw.ok()) << hw.status();
  engine::AnalyzeOptions options;
  absl::StatusOr<engine::Analysis> a = engine::Analyze(*g, *hw, options);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->summary.unknown_ops, IsEmpty());
  EXPECT_THAT(a->summary.unresolved, IsEmpty());
  EXPECT_THAT(a->summary.skipped_layers, IsEmpty());
  EXPECT_EQ(a->summary.params, entry->params);
  EXPECT_GT(a->summary.latency_s, 0);
}

// The zoo graphs are marked weightless (metadata_props
// ridgeline.weightless=1), so the importer must not warn that their
// intentionally absent weights file is missing.
TEST_P(ZooEntryTest, ImportsWithoutWarnings) {
  absl::StatusOr<zoo::ModelEntry> entry = testing::SourceEntry(GetParam());
  ASSERT_TRUE(entry.ok()) << entry.status();
  absl::StatusOr<graph::Graph> g = testing::ImportEntry(*entry);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->warnings, IsEmpty());
}

// The tools import the zoo's bytes without the wire pre-pass
// (ImportWeightlessOnnxBytes): that is the same import only while the
// pre-pass would find no payload to leave out, i.e. would parse the bytes
// as they are.
TEST_P(ZooEntryTest, HoldsNoWeightPayload) {
  absl::StatusOr<zoo::ModelEntry> entry = testing::SourceEntry(GetParam());
  ASSERT_TRUE(entry.ok()) << entry.status();
  absl::StatusOr<importers::CompactModel> compact =
      importers::CompactModelBytes(entry->onnx);
  ASSERT_TRUE(compact.ok()) << compact.status();
  EXPECT_EQ(compact->skipped_tensors, 0);
  EXPECT_EQ(compact->skipped_bytes, 0);
  EXPECT_TRUE(compact->bytes.empty());  // the input itself is parsed
}

INSTANTIATE_TEST_SUITE_P(
    AllEntries, ZooEntryTest,
    ::testing::Values("resnet50", "mobilenet_v2", "efficientnet_b0", "vit_b_16",
                      "bert-base", "gpt2", "llama-3.1-8b-prefill",
                      "llama-3.1-8b-decode", "llama-2-7b-prefill",
                      "llama-2-7b-decode", "llama-3.1-70b-prefill",
                      "llama-3.1-70b-decode", "llama-3.1-405b-prefill",
                      "llama-3.1-405b-decode", "mixtral-8x7b-prefill",
                      "mixtral-8x7b-decode", "llama-2-70b-prefill",
                      "llama-2-70b-decode"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param;
      for (char& c : name) {
        if (c == '-' || c == '.') c = '_';
      }
      return name;
    });

// MACs at the default dims.
double MacsOf(const std::string& name,
              std::optional<int64_t> batch = std::nullopt,
              const absl::flat_hash_map<std::string, int64_t>& dims = {}) {
  absl::StatusOr<zoo::ModelEntry> entry = testing::SourceEntry(name);
  EXPECT_TRUE(entry.ok()) << entry.status();
  if (!entry.ok()) return 0;
  absl::StatusOr<graph::Graph> g = testing::ImportEntry(*entry, batch, dims);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return 0;
  absl::StatusOr<engine::Hardware> hw =
      testing::SourceHardware("a100-80gb-sxm");
  EXPECT_TRUE(hw.ok());
  absl::StatusOr<engine::Analysis> a =
      engine::Analyze(*g, *hw, engine::AnalyzeOptions{});
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? a->summary.macs : 0;
}

// torchvision's model tables list "GFLOPS" that count multiply-adds:
// ResNet-50 4.09, MobileNetV2 0.30, EfficientNet-B0 0.39, ViT-B/16 17.56.
TEST(ZooMacs, TorchvisionModelsMatchPublishedCounts) {
  EXPECT_NEAR(MacsOf("resnet50"), 4.09e9, 0.005 * 4.09e9);
  EXPECT_NEAR(MacsOf("mobilenet_v2"), 0.30e9, 0.005 * 0.30e9 + 0.005e9);
  EXPECT_NEAR(MacsOf("efficientnet_b0"), 0.39e9, 0.005 * 0.39e9 + 0.005e9);
  EXPECT_NEAR(MacsOf("vit_b_16"), 17.56e9, 0.005 * 17.56e9);
}

// ViT-B/16 by hand: patch conv 768*196*(3*16*16) = 115,605,504; per layer
// (197 tokens) projections 197*(4*768^2 + 2*768*3072) = 1,394,343,936 and
// attention 2*12*197^2*64 = 59,610,624; 12 layers 17,447,454,720; head
// 768*1000. Total 17,563,828,224.
TEST(ZooMacs, VitByHand) {
  EXPECT_DOUBLE_EQ(MacsOf("vit_b_16"), 17563828224.0);
}

// BERT-base at sequence 128: per layer 128*(4*768^2 + 2*768*3072) =
// 905,969,664 plus attention 2*12*128^2*64 = 25,165,824, x12 =
// 11,173,625,856; pooler 768^2 = 589,824. Total 11,174,215,680.
TEST(ZooMacs, BertByHand) {
  EXPECT_DOUBLE_EQ(MacsOf("bert-base"), 11174215680.0);
}

// GPT-2 at sequence 1024: per layer 1024*(768*2304 + 768^2 + 2*768*3072) =
// 7,247,757,312 plus attention 2*12*1024^2*64 = 1,610,612,736, x12 =
// 106,300,440,576; tied LM head 1024*768*50257 = 39,523,713,024. Total
// 145,824,153,600.
TEST(ZooMacs, Gpt2ByHand) { EXPECT_DOUBLE_EQ(MacsOf("gpt2"), 145824153600.0); }

// Llama-3.1-8B decode, 1 token, 2048 past: per layer projections
// 4096*(4096 + 1024 + 1024 + 4096) + 3*4096*14336 = 218,103,808 and
// attention over 2049 keys 2*32*2049*128 = 16,785,408, x32 =
// 7,516,454,912; LM head 4096*128256 = 525,336,576. Total 8,041,791,488.
TEST(ZooMacs, LlamaDecodeByHand) {
  EXPECT_DOUBLE_EQ(MacsOf("llama-3.1-8b-decode"), 8041791488.0);
}

// Llama-3.1-8B prefill, 2048 tokens: per layer 2048*218,103,808 =
// 446,676,598,784 plus causal attention computed in full, 2*32*2048^2*128 =
// 34,359,738,368, x32 = 15,393,162,788,864; LM head for the last token
// only, 525,336,576. Total 15,393,688,125,440.
TEST(ZooMacs, LlamaPrefillByHand) {
  EXPECT_DOUBLE_EQ(MacsOf("llama-3.1-8b-prefill"), 15393688125440.0);
}

// Llama-2-7B decode, 1 token, 2048 past (multi-head attention, 32 KV heads):
// per layer projections q,k,v,o 4*4096*4096 = 67,108,864 + gate/up/down
// 3*4096*11008 = 135,266,304, together 202,375,168, and attention QK^T and
// AV over 2049 keys 2*32*128*2049 = 16,785,408; per layer 219,160,576, x32 =
// 7,013,138,432; LM head 4096*32000 = 131,072,000. Total 7,144,210,432.
TEST(ZooMacs, Llama2DecodeByHand) {
  EXPECT_DOUBLE_EQ(MacsOf("llama-2-7b-decode"), 7144210432.0);
}

// Llama-2-7B prefill, 2048 tokens: per layer 2048*202,375,168 =
// 414,464,344,064 plus causal attention computed in full, 2*32*2048^2*128 =
// 34,359,738,368, together 448,824,082,432, x32 = 14,362,370,637,824; LM
// head for the last token only, 131,072,000. Total 14,362,501,709,824.
TEST(ZooMacs, Llama2PrefillByHand) {
  EXPECT_DOUBLE_EQ(MacsOf("llama-2-7b-prefill"), 14362501709824.0);
}

// Llama-2-70B decode, 1 token, 2048 past: per layer q,o 2*8192^2 =
// 134,217,728 + k,v 2*8192*1024 = 16,777,216 + gate/up/down 3*8192*28672 =
// 704,643,072 + attention over 2049 keys 2*64*2049*128 = 33,570,816, together
// 889,208,832, x80 = 71,136,706,560; LM head 8192*32000 = 262,144,000.
// Total 71,398,850,560.
TEST(ZooMacs, Llama2_70bDecodeByHand) {
  EXPECT_DOUBLE_EQ(MacsOf("llama-2-70b-decode"), 71398850560.0);
}

// Mixtral-8x7B decode, 1 token, 2048 past: per layer q,o 2*4096^2 + k,v
// 2*4096*1024 = 41,943,040, router 4096*8 = 32,768, the 2 routed experts
// 2*3*4096*14336 = 352,321,536 (the other 6 are not run), attention over
// 2049 keys 2*32*2049*128 = 16,785,408; per layer 411,082,752, x32 =
// 13,154,648,064; LM head 4096*32000 = 131,072,000. Total 13,285,720,064.
TEST(ZooMacs, MixtralDecodeByHand) {
  EXPECT_DOUBLE_EQ(MacsOf("mixtral-8x7b-decode"), 13285720064.0);
}

// Mixtral-8x7B prefill, 2048 tokens, each through 2 experts: per layer
// 2048*(41,943,040 + 32,768 + 352,321,536) = 2048*394,297,344 =
// 807,520,960,512 plus causal attention in full 2*32*2048^2*128 =
// 34,359,738,368, together 841,880,698,880, x32 = 26,940,182,364,160; LM
// head for the last token 131,072,000. Total 26,940,313,436,160.
TEST(ZooMacs, MixtralPrefillByHand) {
  EXPECT_DOUBLE_EQ(MacsOf("mixtral-8x7b-prefill"), 26940313436160.0);
}

// Rebinding dims: decode with past 4096 adds 2*32*2048*128 MACs per layer
// over past 2048 (16,777,216 x 32 = 536,870,912); batch 4 multiplies all.
TEST(ZooMacs, RebindsDims) {
  EXPECT_DOUBLE_EQ(
      MacsOf("llama-3.1-8b-decode", std::nullopt, {{"past_sequence", 4096}}),
      8041791488.0 + 536870912.0);
  EXPECT_DOUBLE_EQ(MacsOf("resnet50", 4), 4 * MacsOf("resnet50"));
}

}  // namespace
}  // namespace ridgeline
