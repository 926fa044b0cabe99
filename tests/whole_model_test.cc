// The whole-model (lumped) estimate: mlsysim's Engine.solve formula with its
// own registry numbers, the lumped variant, and the outputs.
#include "engine/whole_model.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ridgeline::engine {
namespace {

using ::testing::HasSubstr;

// mlsysim 0.1.x Cloud.A100: 312 TFLOP/s fp16 dense, 2039 GB/s, dispatch
// 0.015 ms; Cloud.H100: 989 TFLOP/s, 3.35 TB/s, 0.010 ms.
Assumptions A100(double dispatch_s = 15e-6) {
  Assumptions a;
  a.flops_per_mac = 2;
  a.compute_efficiency = 0.5;
  a.memory_efficiency = 1.0;
  a.per_layer_tax_s = 10e-6;
  a.dispatch_tax_s = dispatch_s;
  a.precision = "fp16";
  a.peak_precision = "fp16";
  a.peak_flops_per_s = 312e12;
  a.memory_bandwidth_bytes_per_s = 2039e9;
  return a;
}

Assumptions H100() {
  Assumptions a = A100(10e-6);
  a.peak_flops_per_s = 989e12;
  a.memory_bandwidth_bytes_per_s = 3.35e12;
  return a;
}

// mlsysim's ResNet-50 entry: 25.6e6 params, 4.1e9 "FLOPs" (MACs).
WholeModelTotals ResNet50(int64_t batch) {
  WholeModelTotals t;
  t.macs = 4.1e9 * static_cast<double>(batch);
  t.params = 25600000;
  t.batch = batch;
  return t;
}

WholeModelOptions Mlsysim(ModelClass c, int64_t layers) {
  WholeModelOptions o;
  o.method = WholeModelMethod::kMlsysim;
  o.model_class = c;
  o.layers = layers;
  return o;
}

// Hand arithmetic (mlsysim.md section 4): W = 2 B x 25.6e6 = 51.2e6 B;
// bytes = 1.1 W = 56.32e6 B; T_c = 4.1e9 / (0.5 x 312e12) = 26.282 us;
// T_m = 56.32e6 / 2039e9 = 27.621 us (memory, strictly larger); latency =
// 27.621 + 15 + 50 x 10 = 542.621 us; 1/latency = 1842.9 /s; AI = 4.1e9 /
// 56.32e6 = 72.80; MFU = (4.1e9 / 542.621 us) / 312e12 = 2.422%.
TEST(WholeModelMlsysim, ReproducesResNet50A100Batch1) {
  absl::StatusOr<WholeModelResult> r =
      WholeModelFromTotals(ResNet50(1), A100(), Mlsysim(ModelClass::kCnn, 50));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->bound, Bound::kMemory);
  EXPECT_NEAR(r->t_compute_s, 4.1e9 / 156e12, 1e-12);
  EXPECT_NEAR(r->t_memory_s, 56.32e6 / 2039e9, 1e-12);
  EXPECT_NEAR(r->t_overhead_s, 515e-6, 1e-12);
  EXPECT_NEAR(r->latency_s, 542.621e-6, 1e-9);
  EXPECT_NEAR(r->throughput_per_s, 1842.9, 0.1);
  EXPECT_NEAR(r->intensity, 72.80, 0.01);
  EXPECT_NEAR(r->mfu, 0.02422, 0.00001);
  EXPECT_EQ(r->flops_per_mac, 1);
  EXPECT_EQ(r->layers_taxed, 50);
}

// B=2: ops 8.2e9, bytes 51.2e6 x 1.2 = 61.44e6, AI 133.46; T_c 52.564 us >
// T_m 30.132 us: compute. B=256: ops 1.0496e12, T_c 6.728205 ms, bytes
// 51.2e6 x 26.6, T_m 0.667935 ms; latency 7.243205 ms; MFU 46.44%.
TEST(WholeModelMlsysim, ReproducesResNet50A100BatchSweepPoints) {
  absl::StatusOr<WholeModelResult> b2 =
      WholeModelFromTotals(ResNet50(2), A100(), Mlsysim(ModelClass::kCnn, 50));
  ASSERT_TRUE(b2.ok());
  EXPECT_NEAR(b2->intensity, 133.46, 0.01);
  EXPECT_EQ(b2->bound, Bound::kCompute);
  absl::StatusOr<WholeModelResult> b256 = WholeModelFromTotals(
      ResNet50(256), A100(), Mlsysim(ModelClass::kCnn, 50));
  ASSERT_TRUE(b256.ok());
  EXPECT_EQ(b256->bound, Bound::kCompute);
  EXPECT_NEAR(b256->latency_s, 7.243205e-3, 1e-9);
  EXPECT_NEAR(b256->mfu, 0.4644, 0.0001);
  EXPECT_NEAR(b256->throughput_per_s / 1842.9, 19.2, 0.05);
}

// H100: T_c = 4.1e9 / 494.5e12 = 8.291 us; T_m = 56.32e6 / 3.35e12 =
// 16.812 us; latency 16.812 + 10 + 500 = 526.812 us: 1898.2 /s.
TEST(WholeModelMlsysim, ReproducesResNet50H100) {
  absl::StatusOr<WholeModelResult> r =
      WholeModelFromTotals(ResNet50(1), H100(), Mlsysim(ModelClass::kCnn, 50));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->bound, Bound::kMemory);
  EXPECT_NEAR(r->throughput_per_s, 1898.2, 0.1);
}

// Llama-3.1-8B (8.03e9 params, transformer rule 2P per token): W = 16.06e9
// B; bytes 17.666e9; T_c = 16.06e9 / 156e12 = 0.10295 ms; T_m = 17.666e9 /
// 2039e9 = 8.66405 ms; latency 8.66405 + 0.015 + 32 x 0.01 = 8.99905 ms;
// 111.12 tok/s; AI = 1/1.1 = 0.909.
TEST(WholeModelMlsysim, ReproducesLlamaA100) {
  WholeModelTotals t;
  t.params = 8030000000;
  t.macs = 1;  // ignored by the transformer rule
  absl::StatusOr<WholeModelResult> r =
      WholeModelFromTotals(t, A100(), Mlsysim(ModelClass::kTransformer, 32));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->bound, Bound::kMemory);
  EXPECT_NEAR(r->t_compute_s, 0.10295e-3, 1e-8);
  EXPECT_NEAR(r->t_memory_s, 8.66405e-3, 1e-8);
  EXPECT_NEAR(r->latency_s, 8.99905e-3, 1e-8);
  EXPECT_NEAR(r->throughput_per_s, 111.12, 0.01);
  EXPECT_NEAR(r->intensity, 1 / 1.1, 1e-9);
  EXPECT_EQ(r->flops_per_mac, 2);
}

// Tokens per sample multiply the transformer ops; bytes do not grow with
// them (mlsysim's batch is samples).
TEST(WholeModelMlsysim, TokensPerSampleScaleOps) {
  WholeModelTotals t;
  t.params = 1000;
  WholeModelOptions o = Mlsysim(ModelClass::kTransformer, 1);
  o.tokens_per_sample = 128;
  absl::StatusOr<WholeModelResult> r = WholeModelFromTotals(t, A100(), o);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->ops, 2.0 * 1000 * 128);
  EXPECT_DOUBLE_EQ(r->bytes, 2.0 * 1000 * 1.1);
}

// Without a layer count the MAC layers pay the tax; "L or 1" as mlsysim.
TEST(WholeModelMlsysim, LayerCountFallbacks) {
  WholeModelTotals t = ResNet50(1);
  t.mac_layers = 54;
  WholeModelOptions o = Mlsysim(ModelClass::kCnn, 0);
  o.layers.reset();
  EXPECT_EQ(WholeModelFromTotals(t, A100(), o)->layers_taxed, 54);
  o.layers = 0;
  EXPECT_EQ(WholeModelFromTotals(t, A100(), o)->layers_taxed, 1);
}

// Bytes per parameter follow the precision (fp32 4, int8 1, int4 0.5).
TEST(WholeModelMlsysim, WeightBytesFollowPrecision) {
  Assumptions a = A100();
  a.peak_precision = "int4";
  absl::StatusOr<WholeModelResult> r =
      WholeModelFromTotals(ResNet50(1), a, Mlsysim(ModelClass::kCnn, 50));
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->bytes, 25.6e6 * 0.5 * 1.1);
}

// A tie is compute-bound (strict rule). Pick bytes so T_m == T_c exactly:
// ops 2e6 at 0.5 x 1e12 = 4 us; bytes 4e6 at 1e12 B/s = 4 us.
TEST(WholeModelLumped, TieIsComputeAndOverheadIsAdded) {
  Assumptions a = A100(5e-6);
  a.peak_flops_per_s = 1e12;
  a.memory_bandwidth_bytes_per_s = 1e12;
  WholeModelTotals t;
  t.flops = 2e6;
  t.bytes = 4e6;
  t.layers = 3;
  absl::StatusOr<WholeModelResult> r =
      WholeModelFromTotals(t, a, WholeModelOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(r->t_compute_s, 4e-6);
  EXPECT_DOUBLE_EQ(r->t_memory_s, 4e-6);
  EXPECT_DOUBLE_EQ(r->t_overhead_s, 5e-6 + 3 * 10e-6);
  EXPECT_DOUBLE_EQ(r->latency_s, 39e-6);
  EXPECT_DOUBLE_EQ(r->intensity, 0.5);
  EXPECT_DOUBLE_EQ(r->mfu, (2e6 / 39e-6) / 1e12);
  EXPECT_EQ(r->flops_per_mac, 2);  // the analysis' convention
}

TEST(WholeModelLumped, DegenerateCases) {
  Assumptions a = A100();
  WholeModelTotals no_ops;
  no_ops.bytes = 100;
  absl::StatusOr<WholeModelResult> r =
      WholeModelFromTotals(no_ops, a, WholeModelOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->bound, Bound::kMemory);
  EXPECT_EQ(r->intensity, 0);
  WholeModelTotals no_bytes;
  no_bytes.flops = 100;
  r = WholeModelFromTotals(no_bytes, a, WholeModelOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->bound, Bound::kCompute);
}

TEST(WholeModel, RejectsBadInputs) {
  Assumptions a = A100();
  a.peak_flops_per_s = 0;
  EXPECT_FALSE(WholeModelFromTotals(ResNet50(1), a, {}).ok());
  WholeModelOptions o;
  o.tokens_per_sample = 0;
  EXPECT_FALSE(WholeModelFromTotals(ResNet50(1), A100(), o).ok());
  Assumptions unknown = A100();
  unknown.peak_precision = "fp4";
  EXPECT_FALSE(
      WholeModelFromTotals(ResNet50(1), unknown, Mlsysim(ModelClass::kCnn, 50))
          .ok());
  EXPECT_FALSE(ParseModelClass("rnn").ok());
  EXPECT_EQ(*ParseModelClass("CNN"), ModelClass::kCnn);
}

TEST(WholeModelJson, HasTheDocumentedKeys) {
  absl::StatusOr<WholeModelResult> r =
      WholeModelFromTotals(ResNet50(1), A100(), Mlsysim(ModelClass::kCnn, 50));
  ASSERT_TRUE(r.ok());
  nlohmann::json j = WholeModelJson(*r);
  for (const char* key : {"latency_s", "throughput_per_s", "bound", "intensity",
                          "mfu", "t_compute_s", "t_memory_s", "t_overhead_s",
                          "method", "flops_per_mac", "flops", "bytes"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["bound"], "memory");
  EXPECT_EQ(j["method"], "mlsysim");
  EXPECT_DOUBLE_EQ(j["latency_s"].get<double>(), r->latency_s);
}

// A two-layer analysis: layer 1 compute-bound, layer 2 memory-bound. The
// layer-level time (sum of maxima) exceeds the lumped one (max of sums).
TEST(FormatWholeModelComparison, ShowsBothWaysAndTheExplanation) {
  Analysis a;
  a.hardware.name = "Toy";
  a.assumptions = A100(0);
  a.assumptions.peak_flops_per_s = 1e12;
  a.assumptions.memory_bandwidth_bytes_per_s = 1e12;
  a.assumptions.per_layer_tax_s = 0;
  // Layer 1: 1e6 FLOPs (2 us at 0.5e12), 1e5 B (0.1 us). Layer 2: 1e5 FLOPs
  // (0.2 us), 1e6 B (1 us). Sum of maxima 3 us; lumped max(2.2, 1.1) us.
  for (auto [flops, bytes] : {std::pair{1e6, 1e5}, std::pair{1e5, 1e6}}) {
    LayerResult l;
    l.cost.other_flops = flops;
    l.cost.bytes_read = bytes;
    l.flops = flops;
    l.bytes = bytes;
    a.layers.push_back(l);
  }
  a.summary.flops = 1.1e6;
  a.summary.bytes = 1.1e6;
  a.summary.layers = 2;
  a.summary.latency_s = 3e-6;
  a.summary.bound = Bound::kCompute;
  absl::StatusOr<WholeModelResult> lumped = WholeModel(a, {});
  ASSERT_TRUE(lumped.ok());
  EXPECT_NEAR(lumped->latency_s, 2.2e-6, 1e-15);
  EXPECT_LT(lumped->latency_s, a.summary.latency_s);
  std::string text = FormatWholeModelComparison(a, {*lumped});
  EXPECT_THAT(text, HasSubstr("layer-level"));
  EXPECT_THAT(text, HasSubstr("whole (lumped)"));
  EXPECT_THAT(text, HasSubstr("latency"));
  EXPECT_THAT(text, HasSubstr("throughput"));
  EXPECT_THAT(text, HasSubstr("intensity"));
  EXPECT_THAT(text, HasSubstr("MFU"));
  EXPECT_THAT(text, HasSubstr("a sum of per-layer maxima is never below the "
                              "max of the sums"));
}

}  // namespace
}  // namespace ridgeline::engine
