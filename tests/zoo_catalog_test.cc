// The model zoo catalog: metadata parsing, lookup, dim rebinding, and the
// committed zoo/models files.
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "gmock/gmock.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "tests/zoo_test_util.h"
#include "zoo/catalog.h"

namespace ridgeline::zoo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr char kMinimalJson[] = R"({
  "name": "toy",
  "description": "a toy",
  "params": 12,
  "default_dims": {"sequence": 128, "batch": 1},
  "mlsysim": {"class": "transformer", "layers": 3, "tokens": "sequence"}
})";

TEST(ParseModelCatalog, ReadsMetadataAndPairsFiles) {
  std::vector<EmbeddedFile> files = {
      {"models/toy.onnx", "ONNX"},
      {"models/toy.json", kMinimalJson},
      {"hardware/x.json", "{}"},      // other prefix: ignored
      {"models/README.md", "# zoo"},  // other extension: ignored
  };
  absl::StatusOr<std::vector<ModelEntry>> zoo = ParseModelCatalog(files);
  ASSERT_TRUE(zoo.ok()) << zoo.status();
  ASSERT_EQ(zoo->size(), 1u);
  const ModelEntry& e = zoo->front();
  EXPECT_EQ(e.name, "toy");
  EXPECT_EQ(e.description, "a toy");
  EXPECT_EQ(e.params, 12);
  EXPECT_THAT(e.default_dims,
              ElementsAre(Pair("batch", 1), Pair("sequence", 128)));
  EXPECT_EQ(e.model_class, engine::ModelClass::kTransformer);
  EXPECT_EQ(e.mlsysim_layers, 3);
  EXPECT_EQ(e.tokens_dim, "sequence");
  EXPECT_EQ(e.onnx, "ONNX");
}

TEST(ParseModelCatalog, ErrorsNameTheFileAndField) {
  absl::StatusOr<std::vector<ModelEntry>> no_graph =
      ParseModelCatalog({{"models/toy.json", kMinimalJson}});
  ASSERT_FALSE(no_graph.ok());
  EXPECT_THAT(std::string(MessageOf(no_graph.status())),
              HasSubstr("models/toy.onnx"));

  absl::StatusOr<std::vector<ModelEntry>> no_meta =
      ParseModelCatalog({{"models/toy.onnx", "x"}});
  ASSERT_FALSE(no_meta.ok());
  EXPECT_THAT(std::string(MessageOf(no_meta.status())),
              HasSubstr("models/toy.json"));

  absl::StatusOr<std::vector<ModelEntry>> bad = ParseModelCatalog(
      {{"models/toy.onnx", "x"},
       {"models/toy.json",
        R"({"name": "toy", "description": "d", "params": "many"})"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(MessageOf(bad.status())), HasSubstr("'params'"));

  absl::StatusOr<std::vector<ModelEntry>> wrong_name = ParseModelCatalog(
      {{"models/toy.onnx", "x"},
       {"models/toy.json",
        R"({"name": "other", "description": "d", "params": 1})"}});
  ASSERT_FALSE(wrong_name.ok());
  EXPECT_THAT(std::string(MessageOf(wrong_name.status())), HasSubstr("other"));

  absl::StatusOr<std::vector<ModelEntry>> not_json =
      ParseModelCatalog({{"models/toy.onnx", "x"}, {"models/toy.json", "{"}});
  EXPECT_FALSE(not_json.ok());
}

TEST(FindModel, IsCaseInsensitiveAndListsNamesWhenMissing) {
  absl::StatusOr<std::vector<ModelEntry>> zoo = ParseModelCatalog(
      {{"models/toy.onnx", "x"}, {"models/toy.json", kMinimalJson}});
  ASSERT_TRUE(zoo.ok());
  EXPECT_TRUE(FindModel(*zoo, "TOY").ok());
  absl::StatusOr<ModelEntry> missing = FindModel(*zoo, "resnet");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(MessageOf(missing.status())), HasSubstr("toy"));
}

// `--zoo NAME` parses only the entry it finds (FindZooModel): it is the
// entry FindModel finds in the whole embedded catalog, by every name in any
// case, and a missing name gets the same message.
TEST(FindZooModel, AgreesWithTheCatalog) {
  absl::StatusOr<std::vector<ModelEntry>> zoo = ModelCatalog();
  ASSERT_TRUE(zoo.ok()) << zoo.status();
  for (const ModelEntry& e : *zoo) {
    for (const std::string& name : {e.name, absl::AsciiStrToUpper(e.name)}) {
      absl::StatusOr<ModelEntry> want = FindModel(*zoo, name);
      absl::StatusOr<ModelEntry> got = FindZooModel(name);
      ASSERT_TRUE(got.ok()) << name << ": " << got.status();
      EXPECT_EQ(got->name, want->name);
      EXPECT_EQ(got->onnx.data(), want->onnx.data());
      EXPECT_EQ(got->metadata_json, want->metadata_json);
      EXPECT_EQ(got->default_dims, want->default_dims);
    }
  }
  absl::StatusOr<ModelEntry> want = FindModel(*zoo, "no-such-model");
  absl::StatusOr<ModelEntry> got = FindZooModel("no-such-model");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status(), want.status());
}

TEST(EntryDims, DefaultsThenBatchThenUserDims) {
  ModelEntry e;
  e.default_dims = {{"batch", 1}, {"sequence", 128}};
  auto d = EntryDims(e, {}, std::nullopt);
  EXPECT_EQ(d["batch"], 1);
  EXPECT_EQ(d["sequence"], 128);
  d = EntryDims(e, {}, 8);
  EXPECT_EQ(d["batch"], 8);
  d = EntryDims(e, {{"sequence", 512}, {"batch", 4}}, 8);
  EXPECT_EQ(d["batch"], 4);  // --dim wins over --batch
  EXPECT_EQ(d["sequence"], 512);
}

TEST(MlsysimOptions, TakesTokensFromTheDim) {
  ModelEntry e;
  e.model_class = engine::ModelClass::kTransformer;
  e.mlsysim_layers = 32;
  e.tokens_dim = "sequence";
  engine::WholeModelOptions o = MlsysimOptions(e, {{"sequence", 2048}});
  EXPECT_EQ(o.method, engine::WholeModelMethod::kMlsysim);
  EXPECT_EQ(o.model_class, engine::ModelClass::kTransformer);
  EXPECT_EQ(o.layers, 32);
  EXPECT_EQ(o.tokens_per_sample, 2048);

  ModelEntry cnn;
  engine::WholeModelOptions c = MlsysimOptions(cnn, {});
  EXPECT_EQ(c.model_class, engine::ModelClass::kCnn);
  EXPECT_FALSE(c.layers.has_value());  // falls back to the MAC-layer count
}

// The committed zoo: the entries issue 4 asks for, with the metadata the
// whole-model estimate needs.
TEST(CommittedZoo, HasEveryEntryWithMetadata) {
  const std::vector<ModelEntry>& zoo = testing::SourceZoo();
  std::vector<std::string> names;
  for (const ModelEntry& e : zoo) names.push_back(e.name);
  EXPECT_THAT(names,
              ElementsAre("bert-base", "efficientnet_b0", "gpt2",
                          "llama-2-70b-decode", "llama-2-70b-prefill",
                          "llama-2-7b-decode", "llama-2-7b-prefill",
                          "llama-3.1-405b-decode", "llama-3.1-405b-prefill",
                          "llama-3.1-70b-decode", "llama-3.1-70b-prefill",
                          "llama-3.1-8b-decode", "llama-3.1-8b-prefill",
                          "mixtral-8x7b-decode", "mixtral-8x7b-prefill",
                          "mobilenet_v2", "resnet50", "vit_b_16"));
  for (const ModelEntry& e : zoo) {
    SCOPED_TRACE(e.name);
    EXPECT_FALSE(e.description.empty());
    EXPECT_FALSE(e.source.empty());
    EXPECT_GT(e.params, 0);
    EXPECT_GT(e.mlsysim_layers, 0);
    EXPECT_FALSE(e.default_dims.empty());
    EXPECT_EQ(e.default_dims.front().first, "batch");
    // Weightless: a few hundred kB at most (ResNet-50's weights alone are
    // 102 MB at fp32); the 70B and 405B graphs are 80 and 126 layers of
    // about 23 kB each.
    const bool big = e.name.find("-70b-") != std::string::npos ||
                     e.name.find("-405b-") != std::string::npos;
    EXPECT_LT(e.onnx.size(), big ? 4u << 20 : 1u << 20);
  }
  // mlsysim's layer counts (0.1.x registry): ResNet-50 50, MobileNetV2 54,
  // Llama-3.1-8B 32, BERT-base 12.
  EXPECT_EQ(FindModel(zoo, "resnet50")->mlsysim_layers, 50);
  EXPECT_EQ(FindModel(zoo, "mobilenet_v2")->mlsysim_layers, 54);
  EXPECT_EQ(FindModel(zoo, "llama-3.1-8b-decode")->mlsysim_layers, 32);
  EXPECT_EQ(FindModel(zoo, "bert-base")->mlsysim_layers, 12);
  // Default dims of the issue: BERT seq 128, prefill 2048 tokens, decode one
  // token with 2048 past.
  EXPECT_THAT(FindModel(zoo, "bert-base")->default_dims,
              ElementsAre(Pair("batch", 1), Pair("sequence", 128)));
  EXPECT_THAT(FindModel(zoo, "llama-3.1-8b-prefill")->default_dims,
              ElementsAre(Pair("batch", 1), Pair("sequence", 2048)));
  EXPECT_THAT(FindModel(zoo, "llama-3.1-8b-decode")->default_dims,
              ElementsAre(Pair("batch", 1), Pair("past_sequence", 2048),
                          Pair("sequence", 1)));
}

TEST(CommittedZoo, ParameterCountsFromTheConfigs) {
  const std::vector<ModelEntry>& zoo = testing::SourceZoo();
  // Llama-3.1-8B: embedding 128256*4096 = 525,336,576; per layer q 4096^2 +
  // k,v 2*4096*1024 + o 4096^2 + gate/up/down 3*4096*14336 + 2 norms 2*4096
  // = 16,777,216 + 8,388,608 + 16,777,216 + 176,160,768 + 8,192 =
  // 218,112,000; 32 layers 6,979,584,000; final norm 4,096; LM head
  // 525,336,576. Total 8,030,261,248.
  EXPECT_EQ(FindModel(zoo, "llama-3.1-8b-decode")->params, 8030261248);
  EXPECT_EQ(FindModel(zoo, "llama-3.1-8b-prefill")->params, 8030261248);
  // Counted by hand from the config.json files (tools/trace_zoo.py):
  // 70B = 2 x 1,050,673,152 (embedding, LM head) + 80 x 855,654,400 + 8,192;
  // 405B = 2 x 2,101,346,304 + 126 x 3,187,703,808 + 16,384.
  EXPECT_EQ(FindModel(zoo, "llama-3.1-70b-decode")->params, 70553706496);
  EXPECT_EQ(FindModel(zoo, "llama-3.1-70b-prefill")->params, 70553706496);
  EXPECT_EQ(FindModel(zoo, "llama-3.1-405b-decode")->params, 405853388800);
  // Llama-2-70B: the 70B layers with a 32000-token vocabulary:
  // 2 x 32000*8192 = 2 x 262,144,000 + 80 x 855,654,400 + 8,192 =
  // 68,976,648,192.
  EXPECT_EQ(FindModel(zoo, "llama-2-70b-decode")->params, 68976648192);
  EXPECT_EQ(FindModel(zoo, "llama-2-70b-prefill")->params, 68976648192);
  // Mixtral-8x7B (tools/trace_zoo.py MixtralConfig): embedding
  // 32000*4096 = 131,072,000; per layer q,o 2*4096^2 + k,v 2*4096*1024 +
  // router 4096*8 + 8 experts 8*3*4096*14336 + 2 norms 2*4096 =
  // 1,451,270,144; 32 layers; final norm 4,096; LM head 131,072,000. Total
  // 46,702,792,704 (Mistral AI: 46.7B).
  EXPECT_EQ(FindModel(zoo, "mixtral-8x7b-decode")->params, 46702792704);
  EXPECT_EQ(FindModel(zoo, "mixtral-8x7b-prefill")->params, 46702792704);
  EXPECT_EQ(FindModel(zoo, "llama-3.1-405b-prefill")->params, 405853388800);
  // BERT-base: embeddings 30522*768 + 512*768 + 2*768 + LN 2*768 =
  // 23,837,184; per layer 4*(768^2+768) + 768*3072+3072 + 3072*768+768 +
  // 2 LN 2*1536 = 7,087,872, x12 = 85,054,464; pooler 768^2+768 = 590,592.
  EXPECT_EQ(FindModel(zoo, "bert-base")->params, 109482240);
  // GPT-2: wte 50257*768 = 38,597,376 (tied, stored once) + wpe 1024*768 =
  // 786,432 + 12 * 7,087,872 + ln_f 1,536.
  EXPECT_EQ(FindModel(zoo, "gpt2")->params, 124439808);
  // torchvision counts minus the BatchNorm channels (torch.onnx folds each
  // BN's gamma and beta into one conv bias per channel). ResNet-50 BN
  // channels: stem 64 + layer1 3*(64+64+256)+256 + layer2 4*(128+128+512)+512
  // + layer3 6*(256+256+1024)+1024 + layer4 3*(512+512+2048)+2048 = 26,560.
  EXPECT_EQ(FindModel(zoo, "resnet50")->params, 25557032 - 26560);
  // ViT-B/16 has no BatchNorm: torchvision's 86,567,656.
  EXPECT_EQ(FindModel(zoo, "vit_b_16")->params, 86567656);
}

TEST(ParseModelCatalog, NativePrecisionIsAPrecisionWithASource) {
  auto parse = [](const std::string& extra) {
    return ParseModelCatalog(
        {{"models/toy.onnx", "x"},
         {"models/toy.json",
          R"({"name": "toy", "description": "d", "params": 1)" + extra + "}"}});
  };
  absl::StatusOr<std::vector<ModelEntry>> none = parse("");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->front().native_precision, "");  // the graph's own dtypes

  absl::StatusOr<std::vector<ModelEntry>> bf16 =
      parse(R"(, "native_precision": "bf16",
               "native_precision_source": "config.json")");
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_EQ(bf16->front().native_precision, "bf16");
  EXPECT_EQ(bf16->front().native_precision_source, "config.json");

  absl::StatusOr<std::vector<ModelEntry>> unknown =
      parse(R"(, "native_precision": "bf17", "native_precision_source": "x")");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(MessageOf(unknown.status())),
              HasSubstr("'native_precision' must be one of fp32|"));

  absl::StatusOr<std::vector<ModelEntry>> unsourced =
      parse(R"(, "native_precision": "fp16")");
  ASSERT_FALSE(unsourced.ok());
  EXPECT_THAT(std::string(MessageOf(unsourced.status())),
              HasSubstr("'native_precision_source' is missing"));
}

// The published checkpoints' dtypes (their config.json "torch_dtype"):
// meta-llama/Llama-2-7b-hf and Llama-2-70b-hf "float16";
// meta-llama/Llama-3.1-8B, -70B, -405B and mistralai/Mixtral-8x7B-v0.1
// "bfloat16". The CNNs, BERT and GPT-2 keep their fp32 graphs.
TEST(CommittedZoo, NativePrecisionsAreTheCheckpoints) {
  const std::vector<ModelEntry>& zoo = testing::SourceZoo();
  for (const char* name : {"llama-2-7b-decode", "llama-2-7b-prefill",
                           "llama-2-70b-decode", "llama-2-70b-prefill"}) {
    EXPECT_EQ(FindModel(zoo, name)->native_precision, "fp16") << name;
  }
  for (const char* name : {"llama-3.1-8b-decode", "llama-3.1-8b-prefill",
                           "llama-3.1-70b-decode", "llama-3.1-70b-prefill",
                           "llama-3.1-405b-decode", "llama-3.1-405b-prefill",
                           "mixtral-8x7b-decode", "mixtral-8x7b-prefill"}) {
    EXPECT_EQ(FindModel(zoo, name)->native_precision, "bf16") << name;
  }
  for (const char* name : {"resnet50", "mobilenet_v2", "efficientnet_b0",
                           "vit_b_16", "bert-base", "gpt2"}) {
    EXPECT_EQ(FindModel(zoo, name)->native_precision, "") << name;
  }
  EXPECT_THAT(FindModel(zoo, "llama-3.1-70b-decode")->native_precision_source,
              HasSubstr("meta-llama/Llama-3.1-70B config.json"));
}

TEST(CommittedZoo, FormatModelListShowsEveryEntry) {
  std::string list = FormatModelList(testing::SourceZoo());
  EXPECT_THAT(list, HasSubstr("llama-3.1-8b-decode"));
  EXPECT_THAT(list, HasSubstr("past_sequence=2048"));
  EXPECT_THAT(list, HasSubstr("llama-3.1-70b-decode"));
  EXPECT_THAT(list, HasSubstr("llama-3.1-405b-prefill"));
  EXPECT_THAT(list, HasSubstr("mixtral-8x7b-decode"));
  EXPECT_THAT(list, HasSubstr("llama-2-70b-decode"));
  EXPECT_THAT(list, HasSubstr("18 models"));
  EXPECT_THAT(list, HasSubstr("precision"));
}

// The embedded zoo (zoo/CMakeLists.txt compiles zoo/models/ into the
// binary) is the committed one.
TEST(EmbeddedZoo, MatchesTheSourceTree) {
  absl::StatusOr<std::vector<ModelEntry>> embedded = ModelCatalog();
  ASSERT_TRUE(embedded.ok()) << embedded.status();
  const std::vector<ModelEntry>& source = testing::SourceZoo();
  ASSERT_EQ(embedded->size(), source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    EXPECT_EQ((*embedded)[i].name, source[i].name);
    EXPECT_EQ((*embedded)[i].onnx, source[i].onnx);
    EXPECT_EQ((*embedded)[i].metadata_json, source[i].metadata_json);
  }
}

}  // namespace
}  // namespace ridgeline::zoo
