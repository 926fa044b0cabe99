// Mixture of experts (engine/moe.h, engine/counters/moe.cc): the
// com.microsoft MoE counter on small graphs counted by hand, and the zoo's
// Mixtral-8x7B against its published parameter counts.
#include "engine/moe.h"

#include <cstdint>
#include <string>

#include "engine/analysis.h"
#include "gtest/gtest.h"
#include "tests/counters_test_util.h"
#include "tests/zoo_test_util.h"

namespace ridgeline::engine {
namespace {

using graph::DType;
using testing::CounterGraph;

// H = 8, F = 16, E = 4 experts, k = 2, fp32, SwiGLU (fc3 present), no
// biases. One expert's weights: fc1 8*16 + fc2 16*8 + fc3 8*16 = 384
// elements, 1,536 bytes; all 4 experts 6,144 bytes.
struct SmallMoe {
  CounterGraph g;
  int node = -1;
  explicit SmallMoe(int64_t tokens) {
    int x = g.Input("x", {tokens, 8});
    int router = g.Input("router_logits", {tokens, 4});
    int fc1 = g.Weight("fc1", {4, 8, 16});
    int fc2 = g.Weight("fc2", {4, 16, 8});
    int fc3 = g.Weight("fc3", {4, 8, 16});
    node = g.Op("MoE", {x, router, fc1, -1, fc2, -1, fc3}, {{tokens, 8}},
                {{"k", int64_t{2}}, {"activation_type", std::string("silu")}},
                "com.microsoft");
  }
};

// 3 tokens x k 2 = 6 token-expert pairs reach min(4, 6) = 4 experts: every
// expert's weights are read once.
TEST(MoeCounter, PrefillReadsEveryExpertOnce) {
  SmallMoe m(3);
  Cost c = m.g.Count(m.node);
  EXPECT_DOUBLE_EQ(c.macs, 6 * 384);                             // 2,304
  EXPECT_DOUBLE_EQ(c.weight_bytes, 4 * 384 * 4);                 // 6,144
  EXPECT_DOUBLE_EQ(c.bytes_read, 3 * 8 * 4 + 3 * 4 * 4 + 6144);  // 6,288
  EXPECT_DOUBLE_EQ(c.bytes_written, 3 * 8 * 4);                  // 96
  // Per pair SiLU(fc1) x fc3 on F = 16: (sigmoid 8+1+4 + mul 1) + mul 1 =
  // 15 FLOPs per element, 240; 6 pairs 1,440. Per token softmax and top-2
  // over 4 logits 4*(8+1+4+2) = 60 and the weighted sum of 2 outputs
  // 2*8*2 = 32: 3 tokens 276. Total 1,716.
  EXPECT_DOUBLE_EQ(c.other_flops, 1716);
  // Grouped GEMM: 4 experts, 6/4 rows each, n = F, k = H.
  EXPECT_DOUBLE_EQ(c.gemm.batch, 4);
  EXPECT_DOUBLE_EQ(c.gemm.m, 1.5);
  EXPECT_DOUBLE_EQ(c.gemm.n, 16);
  EXPECT_DOUBLE_EQ(c.gemm.k, 8);
}

// One token (decode) reaches k = 2 of the 4 experts: half the weights.
TEST(MoeCounter, DecodeTokenStreamsOnlyItsExperts) {
  SmallMoe m(1);
  Cost c = m.g.Count(m.node);
  EXPECT_DOUBLE_EQ(c.macs, 2 * 384);              // 768
  EXPECT_DOUBLE_EQ(c.weight_bytes, 2 * 384 * 4);  // 3,072
  EXPECT_DOUBLE_EQ(c.bytes_read, 8 * 4 + 4 * 4 + 3072);
}

TEST(MoeCounter, RejectsAMismatchedRouter) {
  CounterGraph g;
  int x = g.Input("x", {2, 8});
  int router = g.Input("router_logits", {2, 5});  // 5 logits, 4 experts
  int fc1 = g.Weight("fc1", {4, 8, 16});
  int fc2 = g.Weight("fc2", {4, 16, 8});
  int moe = g.Op("MoE", {x, router, fc1, -1, fc2}, {{2, 8}},
                 {{"k", int64_t{2}}}, "com.microsoft");
  absl::StatusOr<Cost> c = g.TryCount(moe);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("router_probs"), std::string::npos)
      << c.status();
}

TEST(MoeCounter, TouchedExperts) {
  EXPECT_DOUBLE_EQ(TouchedExperts(8, 1, 2), 2);
  EXPECT_DOUBLE_EQ(TouchedExperts(8, 3, 2), 6);
  EXPECT_DOUBLE_EQ(TouchedExperts(8, 2048, 2), 8);
}

// Active parameters: the weights less (E - k) / E of each MoE layer's
// experts. Small graph: 6,144 / 4 = 1,536 elements of experts plus nothing
// else; k = 2 of 4 -> 768 active of 1,536.
TEST(MoeActiveParams, SmallGraph) {
  SmallMoe m(1);
  ASSERT_TRUE(m.g.graph().Finalize().ok());
  EXPECT_EQ(m.g.graph().ParameterCount(), 3 * 4 * 128);
  EXPECT_EQ(ActiveParameterCount(m.g.graph()), 3 * 2 * 128);
}

// Mixtral-8x7B: 46,702,792,704 parameters, 12,879,925,248 active per token
// (32 x 6 idle experts of 3*4096*14336 = 176,160,768 fewer), counted from
// mistralai/Mixtral-8x7B-v0.1's config.json; Mistral AI's announcement
// (mistral.ai/news/mixtral-of-experts, Dec 2023) gives 46.7B total and
// 12.9B used per token.
TEST(MoeActiveParams, MixtralMatchesThePublishedCounts) {
  for (const std::string name :
       {"mixtral-8x7b-decode", "mixtral-8x7b-prefill"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<zoo::ModelEntry> entry =
        ridgeline::testing::SourceEntry(name);
    ASSERT_TRUE(entry.ok()) << entry.status();
    absl::StatusOr<graph::Graph> g = ridgeline::testing::ImportEntry(*entry);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->ParameterCount(), 46702792704);
    EXPECT_EQ(ActiveParameterCount(*g), 12879925248);
    EXPECT_NEAR(ActiveParameterCount(*g) / 1e9, 12.9, 0.05);
    EXPECT_NEAR(g->ParameterCount() / 1e9, 46.7, 0.05);
    EXPECT_EQ(FindMoeLayers(*g).size(), 32u);
  }
}

// Decode at batch 1 on an H100 in bf16: each MoE layer reads 2 experts,
// 2 x 176,160,768 x 2 bytes = 704,643,072 bytes of weights; the summary
// reports the active parameters.
TEST(MoeAnalysis, MixtralDecodeReadsTwoExpertsPerLayer) {
  absl::StatusOr<zoo::ModelEntry> entry =
      ridgeline::testing::SourceEntry("mixtral-8x7b-decode");
  ASSERT_TRUE(entry.ok()) << entry.status();
  absl::StatusOr<graph::Graph> g = ridgeline::testing::ImportEntry(*entry);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<Hardware> hw = ridgeline::testing::SourceHardware("h100-sxm");
  ASSERT_TRUE(hw.ok()) << hw.status();
  AnalyzeOptions options;
  options.precision = "bf16";
  absl::StatusOr<Analysis> a = Analyze(*g, *hw, options);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->summary.active_params, 12879925248);
  int moe_layers = 0;
  for (const LayerResult& l : a->layers) {
    if (l.op_type != "MoE") continue;
    ++moe_layers;
    EXPECT_DOUBLE_EQ(l.cost.weight_bytes, 704643072.0) << l.name;
  }
  EXPECT_EQ(moe_layers, 32);
}

}  // namespace
}  // namespace ridgeline::engine
