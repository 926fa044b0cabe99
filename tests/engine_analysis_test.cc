// Roofline engine on a toy device and graph (tests/engine_test_util.h).
// Every expected value is worked out by hand in the comments.
#include <string>

#include "engine/activation_memory.h"
#include "engine/analysis.h"
#include "engine/precision.h"
#include "engine/precision_pricer.h"
#include "gtest/gtest.h"
#include "tests/engine_test_util.h"

namespace ridgeline::engine {
namespace {

using testing::ToyGraph;
using testing::ToyHardware;
using testing::ToyOptions;
using testing::ToyRegistry;

constexpr double kTol = 1e-12;

Analysis AnalyzeToy(const graph::Graph& g, const Hardware& hw, AnalyzeOptions o,
                    const CounterRegistry& r) {
  o.registry = &r;
  absl::StatusOr<Analysis> a = Analyze(g, hw, o);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? *a : Analysis{};
}

const LayerResult& Layer(const Analysis& a, const std::string& name) {
  for (const LayerResult& l : a.layers) {
    if (l.name == name) return l;
  }
  ADD_FAILURE() << "no layer " << name;
  static const LayerResult kNone;
  return kNone;
}

TEST(EngineAnalysisTest, LayerTimesBoundsAndTotals) {
  const graph::Graph g = ToyGraph();
  const CounterRegistry r = ToyRegistry();
  const Analysis a = AnalyzeToy(g, ToyHardware(), ToyOptions(), r);
  ASSERT_EQ(a.layers.size(), 4u);  // views are listed too

  // A: 1000 MACs x 2 = 2000 FLOP; T_compute = 2000 / (1000 x 0.5) = 4 s;
  // 200 B / 100 B/s = 2 s; latency = max(4, 2) + 1 s tax = 5 s; compute.
  const LayerResult& la = Layer(a, "a");
  EXPECT_NEAR(la.flops, 2000, kTol);
  EXPECT_NEAR(la.bytes, 200, kTol);
  EXPECT_NEAR(la.intensity, 10, kTol);
  EXPECT_NEAR(la.t_compute_s, 4, kTol);
  EXPECT_NEAR(la.t_memory_s, 2, kTol);
  EXPECT_NEAR(la.t_overhead_s, 1, kTol);
  EXPECT_NEAR(la.latency_s, 5, kTol);
  EXPECT_EQ(la.bound, Bound::kCompute);

  // V: a view: no time, no tax, bound none.
  const LayerResult& lv = Layer(a, "v");
  EXPECT_EQ(lv.latency_s, 0);
  EXPECT_EQ(lv.t_overhead_s, 0);
  EXPECT_EQ(lv.bound, Bound::kNone);

  // B: 100 FLOP / 500 = 0.2 s; 800 B / 100 = 8 s; 8 + 1 = 9 s; memory.
  const LayerResult& lb = Layer(a, "b");
  EXPECT_NEAR(lb.t_compute_s, 0.2, kTol);
  EXPECT_NEAR(lb.t_memory_s, 8, kTol);
  EXPECT_NEAR(lb.latency_s, 9, kTol);
  EXPECT_EQ(lb.bound, Bound::kMemory);

  // C: 10 / 500 = 0.02 s; 10 / 100 = 0.1 s; the 1 s tax exceeds both:
  // overhead-dominated, latency 1.1 s; its roofline regime is memory.
  const LayerResult& lc = Layer(a, "c");
  EXPECT_NEAR(lc.latency_s, 1.1, kTol);
  EXPECT_EQ(lc.bound, Bound::kOverhead);
  EXPECT_EQ(lc.regime, Regime::kMemory);
  EXPECT_TRUE(lc.overhead_dominated);

  const Summary& s = a.summary;
  EXPECT_EQ(s.layers, 3);
  EXPECT_EQ(s.view_layers, 1);
  EXPECT_NEAR(s.macs, 1000, kTol);
  EXPECT_NEAR(s.flops, 2110, kTol);  // 2000 + 100 + 10
  EXPECT_NEAR(s.bytes, 1010, kTol);  // 200 + 800 + 10
  // 5 + 9 + 1.1 = 15.1 s of layers + 0.5 s dispatch tax = 15.6 s.
  EXPECT_NEAR(s.latency_s, 15.6, kTol);
  EXPECT_NEAR(s.throughput_per_s, 1 / 15.6, kTol);
  // MFU = (2110 FLOP / 15.6 s) / 1000 FLOP/s = 0.135256...
  EXPECT_NEAR(s.mfu, 2110.0 / 15.6 / 1000.0, kTol);
  // By regime: a compute (5 s); b and c memory (9 + 1.1 s); c is also
  // overhead-dominated (1.1 s).
  EXPECT_EQ(s.bound, Bound::kMemory);  // 10.1 s of 15.1 s
  EXPECT_EQ(s.compute_bound_layers, 1);
  EXPECT_EQ(s.memory_bound_layers, 2);
  EXPECT_EQ(s.overhead_bound_layers, 1);
  EXPECT_NEAR(s.compute_bound_time_s, 5, kTol);
  EXPECT_NEAR(s.memory_bound_time_s, 10.1, kTol);
  EXPECT_NEAR(s.overhead_bound_time_s, 1.1, kTol);
  EXPECT_EQ(s.kernels, 3);
  // Overhead: three 1 s taxes + the 0.5 s dispatch tax.
  EXPECT_NEAR(s.overhead_s, 3.5, kTol);
  EXPECT_EQ(s.params, 100);                // w[100]
  EXPECT_NEAR(s.weight_bytes, 400, kTol);  // 100 x 4 B
  // Lifetimes (steps a=0, v=1, b=2, c=3): x 0..0 (40 B), a 0..2 (80 B, its
  // view v extends it to b's step), b 2..3 (20 B), y 3..3 (200 B, output).
  // Step 3 holds b + y = 220 B, the peak.
  EXPECT_NEAR(s.peak_activation_bytes, 220, kTol);
  EXPECT_TRUE(s.fits_in_memory);  // 400 + 220 <= 1000
  EXPECT_TRUE(s.unknown_ops.empty());
  EXPECT_TRUE(s.skipped_layers.empty());

  const Assumptions& as = a.assumptions;
  EXPECT_EQ(as.precision, "model dtypes");
  EXPECT_EQ(as.peak_precision, "fp32");
  EXPECT_NE(as.peak_reason.find("float32"), std::string::npos);
  EXPECT_EQ(as.peak_flops_per_s, 1000);
  EXPECT_EQ(as.dispatch_tax_s, 0.5);
  EXPECT_EQ(as.memory_bandwidth_bytes_per_s, 100);
}

TEST(EngineAnalysisTest, OneFlopPerMacAndTiesGoToCompute) {
  const graph::Graph g = ToyGraph();
  const CounterRegistry r = ToyRegistry();
  AnalyzeOptions o = ToyOptions();
  o.flops_per_mac = 1;
  const Analysis a = AnalyzeToy(g, ToyHardware(), o, r);
  // A: 1000 FLOP / 500 = 2 s = T_memory 2 s: a tie is compute-bound.
  EXPECT_NEAR(Layer(a, "a").latency_s, 3, kTol);
  EXPECT_EQ(Layer(a, "a").bound, Bound::kCompute);
  EXPECT_NEAR(a.summary.flops, 1110, kTol);
}

TEST(EngineAnalysisTest, PerOpEfficienciesFromTheHardwareEntry) {
  const graph::Graph g = ToyGraph();
  const CounterRegistry r = ToyRegistry();
  Hardware hw = ToyHardware();
  hw.compute_efficiency_by_op["A"] = 1.0;  // A: 2000 / 1000 = 2 s
  hw.memory_efficiency_by_op["B"] = 0.5;   // B: 800 / 50 = 16 s
  const Analysis a = AnalyzeToy(g, hw, ToyOptions(), r);
  EXPECT_NEAR(Layer(a, "a").t_compute_s, 2, kTol);
  EXPECT_NEAR(Layer(a, "b").t_memory_s, 16, kTol);
  EXPECT_NEAR(Layer(a, "b").latency_s, 17, kTol);
  // C keeps the global 0.5 and 1.0.
  EXPECT_NEAR(Layer(a, "c").t_compute_s, 0.02, kTol);
}

TEST(EngineAnalysisTest, TaxOverridesAndBatch) {
  const graph::Graph g = ToyGraph();
  const CounterRegistry r = ToyRegistry();
  AnalyzeOptions o = ToyOptions();
  o.dispatch_tax_s = 0.0;
  o.per_layer_tax_s = 0.0;
  o.batch = 4;
  const Analysis a = AnalyzeToy(g, ToyHardware(), o, r);
  // Without taxes: 4 + 8 + 0.1 = 12.1 s; C becomes memory-bound.
  EXPECT_NEAR(a.summary.latency_s, 12.1, kTol);
  EXPECT_EQ(Layer(a, "c").bound, Bound::kMemory);
  EXPECT_NEAR(a.summary.throughput_per_s, 4 / 12.1, kTol);
  EXPECT_EQ(a.assumptions.dispatch_tax_s, 0);
  EXPECT_EQ(a.batch, 4);
}

// p_in[100] f32 (input) and idx[10] int64 (weight) -> P -> p_out[100] f32.
graph::Graph PricedGraph() {
  graph::Graph g;
  const int in = *g.AddTensor({.name = "p_in",
                               .dtype = graph::DType::kFloat32,
                               .dims = {100},
                               .shape_known = true,
                               .kind = graph::TensorKind::kGraphInput});
  const int idx = *g.AddTensor({.name = "idx",
                                .dtype = graph::DType::kInt64,
                                .dims = {10},
                                .shape_known = true,
                                .kind = graph::TensorKind::kInitializer});
  const int out = *g.AddTensor({.name = "p_out",
                                .dtype = graph::DType::kFloat32,
                                .dims = {100},
                                .shape_known = true});
  (void)g.AddNode(
      {.name = "p", .op_type = "P", .inputs = {in, idx}, .outputs = {out}});
  g.MarkOutput(out);
  (void)g.Finalize();
  return g;
}

TEST(EngineAnalysisTest, PrecisionRepricesFloatTensorsAndPicksItsPeak) {
  const graph::Graph g = PricedGraph();
  const CounterRegistry r = ToyRegistry();
  // Model dtypes: 400 (p_in) + 80 (idx) read, 400 written = 880 B. The
  // int64 indices are read but are no weight (an index operand:
  // graph::Graph::IsWeight), so weight bytes are 0.
  const Analysis as_is = AnalyzeToy(g, ToyHardware(), ToyOptions(), r);
  EXPECT_NEAR(as_is.summary.bytes, 880, kTol);
  EXPECT_NEAR(as_is.summary.weight_bytes, 0, kTol);
  EXPECT_NEAR(as_is.summary.peak_activation_bytes, 800, kTol);

  AnalyzeOptions o = ToyOptions();
  o.precision = "fp16";
  const Analysis half = AnalyzeToy(g, ToyHardware(), o, r);
  // fp16: floats at 2 B (200 + 200), int64 indices stay 8 B (80).
  EXPECT_NEAR(half.summary.bytes, 480, kTol);
  EXPECT_NEAR(half.summary.weight_bytes, 0, kTol);
  EXPECT_NEAR(half.summary.peak_activation_bytes, 400, kTol);
  EXPECT_EQ(half.assumptions.precision, "fp16");
  EXPECT_EQ(half.assumptions.peak_precision, "fp16");
  EXPECT_EQ(half.assumptions.peak_flops_per_s, 2000);

  o.precision = "int4";
  o.registry = &r;
  absl::StatusOr<Analysis> int4 = Analyze(g, ToyHardware(), o);
  ASSERT_FALSE(int4.ok());  // the toy lists no int4 peak
  const std::string msg(int4.status().message());
  EXPECT_NE(msg.find("int4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Toy accelerator"), std::string::npos) << msg;

  o.precision = "fp12";
  EXPECT_FALSE(Analyze(g, ToyHardware(), o).ok());
}

TEST(PrecisionPricerTest, Fp8IsWeightsAndKvCacheOnlyInt8IsEveryFloat) {
  // w[10,10] f32 weight, bias[10] f32 weight (rank 1), past_key[1,2,5] f32
  // KV-cache input, x[100] f32 activation, idx[10] int64 weight.
  graph::Graph g;
  auto add = [&g](std::string name, graph::DType dtype, graph::Dims dims,
                  graph::TensorKind kind) {
    return *g.AddTensor({.name = std::move(name),
                         .dtype = dtype,
                         .dims = std::move(dims),
                         .shape_known = true,
                         .kind = kind});
  };
  using graph::DType;
  using graph::TensorKind;
  const int x = add("x", DType::kFloat32, {100}, TensorKind::kGraphInput);
  const int w = add("w", DType::kFloat32, {10, 10}, TensorKind::kInitializer);
  const int bias = add("bias", DType::kFloat32, {10}, TensorKind::kInitializer);
  const int past =
      add("past_key", DType::kFloat32, {1, 2, 5}, TensorKind::kGraphInput);
  const int idx = add("idx", DType::kInt64, {10}, TensorKind::kInitializer);
  const int out = add("out", DType::kFloat32, {100}, TensorKind::kActivation);
  (void)g.AddNode({.name = "p",
                   .op_type = "P",
                   .inputs = {x, w, bias, past, idx},
                   .outputs = {out}});
  g.MarkOutput(out);
  ASSERT_TRUE(g.Finalize().ok());
  auto bytes = [&g](const TensorPricer& p, int t) {
    return p.ElementBytes(g, g.tensor(t));
  };
  // fp8 (TensorRT-LLM's FP8 recipe): matrices and the KV cache at 1 B,
  // activations and rank-1 weights (biases, norm scales) at 2 B (16-bit).
  const FloatRepricer fp8(*FindPrecision("fp8"));
  EXPECT_EQ(bytes(fp8, w), 1);
  EXPECT_EQ(bytes(fp8, past), 1);
  EXPECT_EQ(bytes(fp8, x), 2);
  EXPECT_EQ(bytes(fp8, out), 2);
  EXPECT_EQ(bytes(fp8, bias), 2);
  EXPECT_EQ(bytes(fp8, idx), 8);
  // int8 (TensorRT's INT8 mode) and the float precisions: every float.
  const FloatRepricer int8(*FindPrecision("int8"));
  const FloatRepricer bf16(*FindPrecision("bf16"));
  for (int t : {x, w, bias, past, out}) {
    EXPECT_EQ(bytes(int8, t), 1) << g.tensor(t).name;
    EXPECT_EQ(bytes(bf16, t), 2) << g.tensor(t).name;
  }
  EXPECT_EQ(bytes(int8, idx), 8);
  // The analysis at fp8 by hand: read x 100 x 2 + w 100 x 1 + bias 10 x 2 +
  // past 10 x 1 + idx 10 x 8 = 410 B, write out 100 x 2 = 200 B.
  Hardware hw = ToyHardware();
  hw.peak_flops_per_s["fp8"] = 4000;
  const CounterRegistry r = ToyRegistry();
  AnalyzeOptions o = ToyOptions();
  o.precision = "fp8";
  o.registry = &r;
  absl::StatusOr<Analysis> a = Analyze(g, hw, o);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_NEAR(a->summary.bytes, 610, kTol);
}

TEST(EngineAnalysisTest, ModelDTypePeakFallsBackOnlyByTheDocumentedRule) {
  const graph::Graph g = ToyGraph();
  const CounterRegistry r = ToyRegistry();
  // No fp32 peak: fp32 -> bf16 (a matrix unit without fp32, like a TPU).
  Hardware tpu_like = ToyHardware();
  tpu_like.peak_flops_per_s = {{"bf16", 4000.0}, {"tf32", 8000.0}};
  const Analysis a = AnalyzeToy(g, tpu_like, ToyOptions(), r);
  EXPECT_EQ(a.assumptions.peak_precision, "bf16");  // never tf32 implicitly
  EXPECT_EQ(a.assumptions.peak_flops_per_s, 4000);
  EXPECT_NE(a.assumptions.peak_reason.find("lists no fp32"), std::string::npos)
      << a.assumptions.peak_reason;

  // Only int8 and tf32: no rule applies to an fp32 model: an error.
  Hardware odd = ToyHardware();
  odd.peak_flops_per_s = {{"int8", 4000.0}, {"tf32", 8000.0}};
  AnalyzeOptions o = ToyOptions();
  o.registry = &r;
  EXPECT_FALSE(Analyze(g, odd, o).ok());
}

TEST(EngineAnalysisTest, UnresolvedShapesSkipTheLayerAndUnknownOpsAreListed) {
  graph::Graph g;
  const int x = *g.AddTensor({.name = "x",
                              .dtype = graph::DType::kFloat32,
                              .dims = {10},
                              .shape_known = true,
                              .kind = graph::TensorKind::kGraphInput});
  const int m = *g.AddTensor({.name = "m",
                              .dtype = graph::DType::kFloat32,
                              .dims = {10},
                              .shape_known = true});
  const int u = *g.AddTensor({.name = "u", .dtype = graph::DType::kFloat32});
  const int y = *g.AddTensor({.name = "y",
                              .dtype = graph::DType::kFloat32,
                              .dims = {10},
                              .shape_known = true});
  (void)g.AddNode({.name = "mystery",
                   .op_type = "Mystery",
                   .domain = "com.example",
                   .inputs = {x},
                   .outputs = {m}});
  (void)g.AddNode(
      {.name = "grow", .op_type = "B", .inputs = {m}, .outputs = {u}});
  (void)g.AddNode({.name = "c", .op_type = "C", .inputs = {u}, .outputs = {y}});
  g.MarkOutput(y);
  g.unresolved.push_back({"u", "grow", "test: no shape function"});
  ASSERT_TRUE(g.Finalize().ok());
  const CounterRegistry r = ToyRegistry();
  const Analysis a = AnalyzeToy(g, ToyHardware(), ToyOptions(), r);

  // "mystery" has no counter: 0 FLOPs, its tensors' bytes (40 + 40 B):
  // 80 / 100 = 0.8 s + 1 s tax.
  EXPECT_EQ(a.summary.unknown_ops,
            std::vector<std::string>{"com.example:Mystery"});
  EXPECT_NEAR(Layer(a, "mystery").latency_s, 1.8, kTol);
  // "grow" writes u (unresolved) and "c" reads it: both skipped, listed.
  EXPECT_TRUE(Layer(a, "grow").skipped);
  EXPECT_TRUE(Layer(a, "c").skipped);
  ASSERT_EQ(a.summary.skipped_layers.size(), 2u);
  EXPECT_EQ(a.summary.skipped_layers[0].node, "grow");
  EXPECT_EQ(a.summary.skipped_layers[0].tensor, "u");
  ASSERT_EQ(a.summary.unresolved.size(), 1u);
  EXPECT_EQ(a.summary.layers, 1);
  EXPECT_NEAR(a.summary.latency_s, 1.8 + 0.5, kTol);
}

TEST(EngineAnalysisTest, RejectsInvalidOptions) {
  const graph::Graph g = ToyGraph();
  const CounterRegistry r = ToyRegistry();
  for (auto mutate : std::vector<void (*)(AnalyzeOptions&)>{
           [](AnalyzeOptions& o) { o.compute_efficiency = 0; },
           [](AnalyzeOptions& o) { o.memory_efficiency = 1.5; },
           [](AnalyzeOptions& o) { o.per_layer_tax_s = -1; },
           [](AnalyzeOptions& o) { o.flops_per_mac = 0; },
           [](AnalyzeOptions& o) { o.batch = 0; },
       }) {
    AnalyzeOptions o = ToyOptions();
    o.registry = &r;
    mutate(o);
    EXPECT_FALSE(Analyze(g, ToyHardware(), o).ok());
  }
}

TEST(ActivationMemoryTest, DiamondPeakFromLifetimes) {
  // x(10 B) -> A -> a(100 B); a -> B -> b(20 B); a -> C -> c(30 B);
  // b, c -> D -> y(5 B, output); uint8 so bytes = elements.
  // Steps A=0, B=1, C=2, D=3. Live: step 0 x+a = 110; step 1 a+b = 120;
  // step 2 a+b+c = 150; step 3 b+c+y = 55. Peak 150 B.
  graph::Graph g;
  auto t = [&](const char* name, int64_t n, graph::TensorKind kind) {
    return *g.AddTensor({.name = name,
                         .dtype = graph::DType::kUInt8,
                         .dims = {n},
                         .shape_known = true,
                         .kind = kind});
  };
  const auto act = graph::TensorKind::kActivation;
  const int x = t("x", 10, graph::TensorKind::kGraphInput);
  const int a = t("a", 100, act), b = t("b", 20, act), c = t("c", 30, act);
  const int y = t("y", 5, act);
  (void)g.AddNode({.name = "A", .op_type = "A", .inputs = {x}, .outputs = {a}});
  (void)g.AddNode({.name = "B", .op_type = "B", .inputs = {a}, .outputs = {b}});
  (void)g.AddNode({.name = "C", .op_type = "C", .inputs = {a}, .outputs = {c}});
  (void)g.AddNode(
      {.name = "D", .op_type = "D", .inputs = {b, c}, .outputs = {y}});
  g.MarkOutput(y);
  ASSERT_TRUE(g.Finalize().ok());
  TensorPricer pricer;
  const std::vector<bool> no_views(4, false);
  EXPECT_DOUBLE_EQ(PeakActivationBytes(g, pricer, no_views), 150);

  // Fused kernels (per node: its group, -1 for none). A tensor produced and
  // consumed only inside one group is never written to memory.
  // {A, B}: a is also read by C, outside: nothing changes, 150 B.
  const std::vector<int> ab = {0, 0, -1, -1};
  EXPECT_DOUBLE_EQ(PeakActivationBytes(g, pricer, no_views, &ab), 150);
  // {B, D}: b stays inside. Step 0 x+a = 110; step 1 a = 100; step 2 a+c =
  // 130; step 3 c+y = 35 (y, a graph output, is written). Peak 130 B.
  const std::vector<int> bd = {-1, 0, -1, 0};
  EXPECT_DOUBLE_EQ(PeakActivationBytes(g, pricer, no_views, &bd), 130);
  // All four in one kernel: only the graph input x (10 B) and output y
  // (5 B) reach memory. Peak 10 B.
  const std::vector<int> all = {0, 0, 0, 0};
  EXPECT_DOUBLE_EQ(PeakActivationBytes(g, pricer, no_views, &all), 10);
}

TEST(PrecisionTest, NamesSizesAndFallbacks) {
  EXPECT_EQ(FindPrecision("fp32")->element_bytes, 4);
  EXPECT_EQ(FindPrecision("tf32")->element_bytes, 4);
  EXPECT_EQ(FindPrecision("bf16")->element_bytes, 2);
  EXPECT_EQ(FindPrecision("fp8")->element_bytes, 1);
  EXPECT_EQ(FindPrecision("int4")->element_bytes, 0.5);
  EXPECT_EQ(FindPrecision("fp4"), nullptr);
  EXPECT_EQ(SelectablePrecisionList(), "fp32|tf32|fp16|bf16|fp8|int8|int4");
  EXPECT_EQ(*PeakKeyForDType(graph::DType::kBFloat16), "bf16");
  EXPECT_EQ(*PeakKeyForDType(graph::DType::kFloat8E4M3FN), "fp8");
  EXPECT_FALSE(PeakKeyForDType(graph::DType::kInt64).has_value());
  const auto fp32 = PeakFallbacks("fp32");
  ASSERT_FALSE(fp32.empty());
  EXPECT_EQ(fp32[0], "fp32");
  for (std::string_view k : fp32) EXPECT_NE(k, "tf32");
}

}  // namespace
}  // namespace ridgeline::engine
