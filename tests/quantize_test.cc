// Quantization what-ifs on hand-built graphs and the toy device of
// what_if_graphs.h (fp16/fp32 1 TFLOP/s, int8/fp8 2 TOP/s, 100 GB/s,
// efficiencies 1, no taxes). Expected bytes are worked out by hand in the
// comments.
#include "engine/quantize.h"

#include <string>
#include <vector>

#include "engine/quantize_report.h"
#include "engine/what_if.h"
#include "gtest/gtest.h"
#include "tests/what_if_graphs.h"

namespace ridgeline::engine {
namespace {

using graph::DType;
using ::ridgeline::testing::Attrs;
using ::ridgeline::testing::GraphBuilder;
using ::ridgeline::testing::ToyDevice;
using ::ridgeline::testing::ToyOptions;

// A decode-shaped fp16 projection: x[1,256] @ W[256,512] -> y[1,512].
graph::Graph Gemv(DType dtype = DType::kFloat16, int64_t rows = 1) {
  GraphBuilder b;
  int x = b.Input("x", {rows, 256}, dtype);
  int w = b.Weight("w", {256, 512}, dtype);
  int y = b.Value("y", {rows, 512}, dtype);
  b.Node("proj", "MatMul", {x, w}, {y});
  b.Output(y);
  return b.Finish();
}

TEST(QuantizedPricerTest, Int4WeightsCarryOneScalePerGroup) {
  graph::Graph g = Gemv();
  QuantizeOptions q;
  q.weights = "int4";
  QuantizedPricer pricer(g, q);
  const graph::Tensor& w = g.tensor(*g.FindTensor("w"));
  // 256*512 elements at 0.5 B = 65536 B, plus one 2-byte scale per 128
  // elements of each of the 512 output channels along K = 256 (2 groups):
  // 512 * 2 * 2 = 2048 B. 67584 B in all (fp16: 262144 B, 3.88x more).
  EXPECT_DOUBLE_EQ(pricer.TensorBytes(g, w), 65536 + 2048);
  EXPECT_EQ(pricer.RoleOf(*g.FindTensor("w")), TensorRole::kWeight);
  EXPECT_EQ(pricer.RoleOf(*g.FindTensor("x")), TensorRole::kActivation);
  // Activations untouched: 256 elements at fp16.
  EXPECT_DOUBLE_EQ(pricer.TensorBytes(g, g.tensor(*g.FindTensor("x"))), 512);

  // Group size 64 with 4-bit zero points: 512 channels * 4 groups *
  // (2 + 0.5) B = 5120 B of metadata.
  q.int4_group_size = 64;
  q.int4_zero_points = true;
  QuantizedPricer asymmetric(g, q);
  EXPECT_DOUBLE_EQ(asymmetric.TensorBytes(g, w), 65536 + 5120);
}

TEST(QuantizedPricerTest, Int8WeightsCarryOneScalePerOutputChannel) {
  graph::Graph g = Gemv();
  QuantizeOptions q;
  q.weights = "int8";
  QuantizedPricer pricer(g, q);
  // 131072 B + 512 channels * 2 B.
  EXPECT_DOUBLE_EQ(pricer.TensorBytes(g, g.tensor(*g.FindTensor("w"))),
                   131072 + 1024);
}

TEST(AnalyzeQuantizedTest, Int4DecodeCutsWeightTrafficAlmostFourfold) {
  graph::Graph g = Gemv();
  QuantizeOptions q;
  q.weights = "int4";
  absl::StatusOr<QuantizeResult> r =
      AnalyzeQuantized(g, ToyDevice(), ToyOptions(0), q);
  ASSERT_TRUE(r.ok()) << r.status();
  // Weight-only: the math stays at the activations' fp16.
  EXPECT_EQ(r->math_precision, "fp16");
  EXPECT_EQ(r->after.assumptions.peak_precision, "fp16");
  ASSERT_EQ(r->layers.size(), 1u);
  // Before: x 512 + W 262144 + y 1024 = 263680 B -> 2.6368 us (compute
  // 262144 FLOPs -> 0.26 us). After: 512 + 67584 + 1024 = 69120 B ->
  // 0.6912 us. Speed-up 263680 / 69120 = 3.8148.
  EXPECT_DOUBLE_EQ(r->layers[0].bytes_before, 263680);
  EXPECT_DOUBLE_EQ(r->layers[0].bytes, 69120);
  EXPECT_NEAR(r->latency_before_s, 2.6368e-6, 1e-15);
  EXPECT_NEAR(r->latency_s, 0.6912e-6, 1e-15);
  EXPECT_NEAR(r->speedup, 263680.0 / 69120.0, 1e-9);
  EXPECT_EQ(r->layers[0].bound, Bound::kMemory);
  // Weight traffic 262144 -> 67584 B: 3.88x lower (4x less the scales).
  EXPECT_DOUBLE_EQ(r->weight_traffic_before, 262144);
  EXPECT_DOUBLE_EQ(r->weight_traffic, 67584);
  EXPECT_DOUBLE_EQ(r->model_bytes_before, 262144);
  EXPECT_DOUBLE_EQ(r->model_bytes, 67584);
  EXPECT_TRUE(r->fits_before);
  EXPECT_TRUE(r->fits);

  const std::string text = RenderQuantizeText(*r);
  EXPECT_NE(text.find("weights int4 (g128)"), std::string::npos);
  EXPECT_NE(text.find("model size"), std::string::npos);
  const nlohmann::json json = QuantizeJson(*r);
  EXPECT_EQ(json["options"]["weights"], "int4");
  EXPECT_EQ(json["options"]["activations"], "as stored");
  EXPECT_DOUBLE_EQ(json["summary"]["model_bytes"].get<double>(), 67584);
  EXPECT_EQ(json["layers"].size(), 1u);
}

TEST(AnalyzeQuantizedTest, W8A8RunsOnTheInt8Peak) {
  // fp32 x[64,256] @ W[256,512]: 64*256*512 = 8388608 MACs = 16777216 FLOPs.
  graph::Graph g = Gemv(DType::kFloat32, 64);
  QuantizeOptions q;
  q.weights = "int8";
  q.activations = "int8";
  QuantizeResult r = *AnalyzeQuantized(g, ToyDevice(), ToyOptions(0), q);
  EXPECT_EQ(r.peak_before, "fp32");
  EXPECT_EQ(r.math_precision, "int8");
  EXPECT_EQ(r.after.assumptions.peak_precision, "int8");
  EXPECT_DOUBLE_EQ(r.after.assumptions.peak_flops_per_s, 2e12);
  // After: x 16384 B + W 131072 + 512 * 2 B scales + y 32768 B = 181248 B.
  EXPECT_DOUBLE_EQ(r.layers[0].bytes, 16384 + 132096 + 32768);
  // Compute-bound both ways: 16777216 / 1e12 = 16.78 us before, / 2e12 =
  // 8.39 us after (memory 7.2 us before, 1.8 us after).
  EXPECT_NEAR(r.latency_before_s, 16.777216e-6, 1e-15);
  EXPECT_NEAR(r.latency_s, 8.388608e-6, 1e-15);
  EXPECT_EQ(r.layers[0].bound, Bound::kCompute);

  // Weight-only int8 on the same model keeps the fp32 math.
  QuantizeOptions w8;
  w8.weights = "int8";
  QuantizeResult wo = *AnalyzeQuantized(g, ToyDevice(), ToyOptions(0), w8);
  EXPECT_EQ(wo.math_precision, "fp32");
  EXPECT_NEAR(wo.latency_s, 16.777216e-6, 1e-15);
}

TEST(MathPrecisionTest, FollowsTheOperands) {
  auto math = [](std::string w, std::string a, std::string model) {
    QuantizeOptions q;
    q.weights = std::move(w);
    q.activations = std::move(a);
    return MathPrecision(q, model);
  };
  EXPECT_EQ(math("int8", "int8", "fp16"), "int8");
  EXPECT_EQ(math("int4", "int8", "fp16"), "int8");  // W4A8
  EXPECT_EQ(math("fp8", "fp8", "fp16"), "fp8");
  EXPECT_EQ(math("int4", "fp8", "fp16"), "fp8");
  EXPECT_EQ(math("int4", "", "fp16"), "fp16");  // weight-only
  EXPECT_EQ(math("int8", "", "bf16"), "bf16");
  EXPECT_EQ(math("fp8", "fp16", "fp32"), "fp16");
  EXPECT_EQ(math("", "int8", "fp16"), "fp16");  // fp16 weights: widened
  EXPECT_EQ(math("int8", "fp8", "fp16"), "fp16");
  EXPECT_EQ(math("", "", "fp32"), "fp32");
}

// One decode step of attention with a KV cache (fp16): past_key[1,2,16,4]
// and the new key k[1,2,1,4] are concatenated into present_key[1,2,17,4]
// (a graph output), transposed, and multiplied with q[1,2,1,4].
graph::Graph KvStep() {
  GraphBuilder b;
  int q = b.Input("q", {1, 2, 1, 4}, DType::kFloat16);
  int past = b.Input("past_key_values.0.key", {1, 2, 16, 4}, DType::kFloat16);
  int k = b.Input("k", {1, 2, 1, 4}, DType::kFloat16);
  int present = b.Value("present.0.key", {1, 2, 17, 4}, DType::kFloat16);
  int kt = b.Value("kt", {1, 2, 4, 17}, DType::kFloat16);
  int s = b.Value("scores", {1, 2, 1, 17}, DType::kFloat16);
  b.Node("append", "Concat", {past, k}, {present},
         Attrs({{"axis", int64_t{2}}}));
  b.Node("k_t", "Transpose", {present}, {kt},
         Attrs({{"perm", std::vector<int64_t>{0, 1, 3, 2}}}));
  b.Node("qk", "MatMul", {q, kt}, {s});
  b.Output(present);
  b.Output(s);
  return b.Finish();
}

TEST(AnalyzeQuantizedTest, Fp8KvCacheHalvesTheCacheTraffic) {
  graph::Graph g = KvStep();
  const std::vector<bool> kv = FindKvCacheTensors(g);
  EXPECT_TRUE(kv[*g.FindTensor("past_key_values.0.key")]);
  EXPECT_TRUE(kv[*g.FindTensor("present.0.key")]);
  EXPECT_TRUE(kv[*g.FindTensor("kt")]);
  EXPECT_FALSE(kv[*g.FindTensor("k")]);
  EXPECT_FALSE(kv[*g.FindTensor("scores")]);

  QuantizeOptions q;
  q.kv_cache = "fp8";
  QuantizeResult r = *AnalyzeQuantized(g, ToyDevice(), ToyOptions(0), q);
  EXPECT_EQ(r.math_precision, "fp16");
  ASSERT_EQ(r.layers.size(), 3u);
  // Concat: past 128 el, k 8 el, present 136 el. fp16: 256 + 16 + 272 =
  // 544 B; fp8 cache: 128 + 16 + 136 = 280 B (the new key stays fp16).
  EXPECT_EQ(r.layers[0].name, "append");
  EXPECT_DOUBLE_EQ(r.layers[0].bytes_before, 544);
  EXPECT_DOUBLE_EQ(r.layers[0].bytes, 280);
  // Transpose: 272 + 272 -> 136 + 136.
  EXPECT_DOUBLE_EQ(r.layers[1].bytes, 272);
  // MatMul: q 16 + kt 136 + scores 68 (34 elements, fp16) = 220 B.
  EXPECT_DOUBLE_EQ(r.layers[2].bytes, 220);
  // KV tensors touched: (256 + 272) + (272 + 272) + 272 = 1344 B, halved.
  EXPECT_DOUBLE_EQ(r.kv_bytes_before, 1344);
  EXPECT_DOUBLE_EQ(r.kv_bytes, 672);
}

TEST(FindKvCacheTensorsTest, FindsContribAttentionPastAndPresent) {
  GraphBuilder b;
  int qkv = b.Input("qkv", {1, 1, 96}, DType::kFloat16);
  int pk = b.Input("cache_k", {1, 2, 16, 16}, DType::kFloat16);
  int pv = b.Input("cache_v", {1, 2, 16, 16}, DType::kFloat16);
  int o = b.Value("o", {1, 1, 32}, DType::kFloat16);
  int nk = b.Value("new_k", {1, 2, 17, 16}, DType::kFloat16);
  int nv = b.Value("new_v", {1, 2, 17, 16}, DType::kFloat16);
  graph::Node gqa = Attrs({{"num_heads", int64_t{2}}});
  gqa.domain = "com.microsoft";
  b.Node("gqa", "GroupQueryAttention", {qkv, -1, -1, pk, pv}, {o, nk, nv}, gqa);
  b.Output(o);
  b.Output(nk);
  b.Output(nv);
  graph::Graph g = b.Finish();
  const std::vector<bool> kv = FindKvCacheTensors(g);
  EXPECT_TRUE(kv[pk]);
  EXPECT_TRUE(kv[pv]);
  EXPECT_TRUE(kv[nk]);
  EXPECT_TRUE(kv[nv]);
  EXPECT_FALSE(kv[qkv]);
  EXPECT_FALSE(kv[o]);
}

TEST(IsQuantizedModelTest, RecognizesQdqAndMatMulNBits) {
  EXPECT_FALSE(IsQuantizedModel(Gemv()));

  GraphBuilder qdq;
  int x = qdq.Input("x", {1, 32});
  int wq = qdq.Weight("wq", {32, 16}, DType::kInt8);
  int sw = qdq.Weight("sw", {});
  int w = qdq.Value("w", {32, 16});
  int y = qdq.Value("y", {1, 16});
  qdq.Node("dq", "DequantizeLinear", {wq, sw}, {w});
  qdq.Node("mm", "MatMul", {x, w}, {y});
  qdq.Output(y);
  graph::Graph g = qdq.Finish();
  std::string why;
  EXPECT_TRUE(IsQuantizedModel(g, &why));
  EXPECT_NE(why.find("dq"), std::string::npos);
  QuantizeOptions q;
  q.weights = "int4";
  absl::Status s = ValidateQuantizeOptions(g, q);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("already quantized"),
            std::string::npos);
  EXPECT_FALSE(AnalyzeQuantized(g, ToyDevice(), ToyOptions(), q).ok());
  // Activations and KV cache may still be re-priced.
  QuantizeOptions a;
  a.activations = "fp16";
  EXPECT_TRUE(ValidateQuantizeOptions(g, a).ok());
  // Read as stored: the int8 weight costs 1 byte per element. Its fp32
  // scale is quantization metadata (README "Bytes"): no parameter and no
  // weight byte.
  Analysis as_stored = *Analyze(g, ToyDevice(), ToyOptions());
  EXPECT_DOUBLE_EQ(as_stored.layers[0].cost.weight_bytes, 32 * 16 * 1);
  EXPECT_EQ(g.ParameterCount(), 32 * 16);

  GraphBuilder nbits;
  int xn = nbits.Input("x", {1, 64}, DType::kFloat16);
  int bq = nbits.Weight("b_q4", {32, 1, 32}, DType::kUInt8);
  int sc = nbits.Weight("scales", {32}, DType::kFloat16);
  int yn = nbits.Value("y", {1, 32}, DType::kFloat16);
  graph::Node mnb = Attrs({{"K", int64_t{64}},
                           {"N", int64_t{32}},
                           {"bits", int64_t{4}},
                           {"block_size", int64_t{64}}});
  mnb.domain = "com.microsoft";
  nbits.Node("q4", "MatMulNBits", {xn, bq, sc}, {yn}, mnb);
  nbits.Output(yn);
  EXPECT_TRUE(IsQuantizedModel(nbits.Finish()));
}

TEST(ValidateQuantizeOptionsTest, RejectsUnknownPrecisions) {
  graph::Graph g = Gemv();
  QuantizeOptions q;
  q.weights = "int3";
  EXPECT_FALSE(ValidateQuantizeOptions(g, q).ok());
  q = {};
  q.activations = "int4";  // activations are int8|fp8|fp16|bf16
  EXPECT_FALSE(ValidateQuantizeOptions(g, q).ok());
  q = {};
  q.kv_cache = "fp4";
  EXPECT_FALSE(ValidateQuantizeOptions(g, q).ok());
  q = {};
  q.weights = "int4";
  q.int4_group_size = 0;
  EXPECT_FALSE(ValidateQuantizeOptions(g, q).ok());
}

TEST(AnalyzeQuantizedTest, FailsWhenTheDeviceLacksTheMathPeak) {
  graph::Graph g = Gemv();
  engine::Hardware hw = ToyDevice();
  hw.peak_flops_per_s.erase("fp8");
  QuantizeOptions q;
  q.weights = "fp8";
  q.activations = "fp8";
  absl::StatusOr<QuantizeResult> r = AnalyzeQuantized(g, hw, ToyOptions(), q);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("fp8"), std::string::npos);
}

TEST(WhatIfTest, ListsEveryScenarioAndTheBest) {
  graph::Graph g = KvStep();
  absl::StatusOr<std::vector<WhatIfRow>> rows =
      RunWhatIf(g, ToyDevice(), ToyOptions(10e-6));
  ASSERT_TRUE(rows.ok()) << rows.status();
  std::vector<std::string> names;
  for (const WhatIfRow& row : *rows) names.push_back(row.scenario);
  const std::vector<std::string> expected_prefix = {
      "as stored",
      "fuse epilogue",
      "fuse elementwise",
      "fuse attention",
      "fuse all",
      "weights int8",
      "weights int4 (g128)",
      "weights fp8",
      "weights int8, activations int8",
      "weights fp8, activations fp8",
      "kv-cache int8",
      "kv-cache fp8"};
  ASSERT_EQ(names.size(), expected_prefix.size() + 1);
  for (size_t i = 0; i < expected_prefix.size(); ++i) {
    EXPECT_EQ(names[i], expected_prefix[i]);
  }
  EXPECT_EQ(names.back().rfind("best: ", 0), 0u);
  EXPECT_DOUBLE_EQ((*rows)[0].speedup, 1);
  const WhatIfRow& best = rows->back();
  ASSERT_TRUE(best.available);
  for (const WhatIfRow& row : *rows) {
    if (row.available) {
      EXPECT_LE(best.latency_s, row.latency_s) << row.scenario;
    }
  }
  const std::string text = RenderWhatIfText(*rows);
  EXPECT_NE(text.find("kv-cache fp8"), std::string::npos);
  const nlohmann::json json = WhatIfJson(*rows);
  EXPECT_EQ(json.size(), rows->size());
  EXPECT_EQ(json.back()["best"], true);
}

TEST(WhatIfTest, MarksWeightRowsOfAQuantizedModelUnavailable) {
  GraphBuilder qdq;
  int x = qdq.Input("x", {1, 32});
  int wq = qdq.Weight("wq", {32, 16}, DType::kInt8);
  int sw = qdq.Weight("sw", {});
  int w = qdq.Value("w", {32, 16});
  int y = qdq.Value("y", {1, 16});
  qdq.Node("dq", "DequantizeLinear", {wq, sw}, {w});
  qdq.Node("mm", "MatMul", {x, w}, {y});
  qdq.Output(y);
  graph::Graph g = qdq.Finish();
  std::vector<WhatIfRow> rows = *RunWhatIf(g, ToyDevice(), ToyOptions());
  for (const WhatIfRow& row : rows) {
    if (!row.quantize.weights.empty() && !row.best) {
      EXPECT_FALSE(row.available) << row.scenario;
      EXPECT_NE(row.note.find("already quantized"), std::string::npos);
    }
  }
  EXPECT_TRUE(rows.back().available);
}

}  // namespace
}  // namespace ridgeline::engine
