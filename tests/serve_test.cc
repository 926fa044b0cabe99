// --serve (engine/serve.h): KV bytes per token by hand, TTFT = the prefill
// analysis, the sampled mean TPOT against every step, request latency, max
// concurrency by hand, the past-length rebinding against a fresh import,
// errors, and the schema section documented identically twice.
#include "engine/serve.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "engine/parallel/transformer_blocks.h"
#include "engine/precision_pricer.h"
#include "engine/quantize.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/zoo_test_util.h"
#include "tools/analyze/options.h"
#include "tools/analyze/run.h"
#include "zoo/runtime_catalog.h"

namespace ridgeline::engine {
namespace {

using ::ridgeline::testing::ImportEntry;
using ::ridgeline::testing::ReadFileOrDie;
using ::ridgeline::testing::SourceEntry;
using ::ridgeline::testing::SourceHardware;

graph::Graph MustImport(std::string_view name, int64_t batch,
                        const absl::flat_hash_map<std::string, int64_t>& d) {
  absl::StatusOr<zoo::ModelEntry> e = SourceEntry(name);
  EXPECT_TRUE(e.ok()) << e.status();
  absl::StatusOr<graph::Graph> g = ImportEntry(*e, batch, d);
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

TEST(Serve, KvBytesPerTokenByHand) {
  const FloatRepricer bf16(*FindPrecision("bf16"));
  // Llama-3.1-8B: 32 layers x 8 KV heads x head dim 128 x 2 B x (K and V).
  graph::Graph g = MustImport("llama-3.1-8b-decode", 1, {});
  absl::StatusOr<KvCache> kv = FindKvCache(g, 2048, bf16);
  ASSERT_TRUE(kv.ok()) << kv.status();
  EXPECT_EQ(kv->bytes_per_token, 32.0 * 8 * 128 * 2 * 2);  // 131072
  EXPECT_EQ(kv->layers, 32);
  EXPECT_EQ(kv->past_axis, 2);
  EXPECT_EQ(kv->past_inputs.size(), 64u);
  // Llama-2-7B: 32 layers x 32 KV heads (no GQA) x 128 x 2 B x 2.
  g = MustImport("llama-2-7b-decode", 1, {});
  kv = FindKvCache(g, 2048, bf16);
  ASSERT_TRUE(kv.ok()) << kv.status();
  EXPECT_EQ(kv->bytes_per_token, 32.0 * 32 * 128 * 2 * 2);  // 524288
  // A model without a KV cache.
  g = MustImport("resnet50", 1, {});
  EXPECT_EQ(FindKvCache(g, 2048, bf16).status().code(),
            absl::StatusCode::kNotFound);
}

// Llama-3.1-8B on H100, compiled runtime, bf16.
struct Fixture {
  Runtime runtime;
  ServeInputs in;
  graph::Graph prefill, decode, decode_next;
};

void SetUpLlama(int64_t prompt, int64_t generate, int64_t batch, Fixture* f) {
  absl::StatusOr<Runtime> rt = zoo::ResolveRuntime("compiled");
  ASSERT_TRUE(rt.ok()) << rt.status();
  f->runtime = *rt;
  absl::StatusOr<Hardware> hw = SourceHardware("h100-sxm");
  ASSERT_TRUE(hw.ok()) << hw.status();
  f->prefill =
      MustImport("llama-3.1-8b-prefill", batch, {{"sequence", prompt}});
  f->decode = MustImport("llama-3.1-8b-decode", batch,
                         {{"sequence", 1}, {"past_sequence", prompt}});
  f->decode_next = MustImport("llama-3.1-8b-decode", batch,
                              {{"sequence", 1}, {"past_sequence", prompt + 1}});
  f->in.prefill = &f->prefill;
  f->in.decode = &f->decode;
  f->in.decode_next = &f->decode_next;
  f->in.hardware = *hw;
  f->in.options.runtime = &f->runtime;
  f->in.options.precision = "bf16";
  f->in.prompt = prompt;
  f->in.generate = generate;
  f->in.concurrency = batch;
}

TEST(Serve, TtftTpotAndRequestLatency) {
  Fixture f;
  // 97 output tokens: the prefill's and 96 decode steps at 1,024..1,119
  // cached tokens.
  SetUpLlama(1024, 97, 1, &f);
  f.in.samples = 9;  // 9 analyzed steps of 96: the rest interpolated
  absl::StatusOr<ServeResult> r = AnalyzeServe(f.in);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->analyses, 1 + 9);
  ASSERT_EQ(r->tpot_by_context.size(), 9u);
  EXPECT_EQ(r->tpot_by_context.front().context, 1024);
  EXPECT_EQ(r->tpot_by_context.back().context, 1024 + 95);

  AnalyzeOptions o = f.in.options;
  o.batch = 1;
  absl::StatusOr<Analysis> prefill = Analyze(f.prefill, f.in.hardware, o);
  ASSERT_TRUE(prefill.ok());
  EXPECT_EQ(r->ttft_s, prefill->summary.latency_s);

  // Every step analyzed in full, the graph rebound per step.
  absl::StatusOr<PastRebinder> rebind =
      PastRebinder::Create(f.decode, f.decode_next, 1024);
  ASSERT_TRUE(rebind.ok()) << rebind.status();
  double dense = 0;
  for (int64_t i = 0; i < 96; ++i) {
    absl::StatusOr<graph::Graph> g = rebind->At(1024 + i);
    ASSERT_TRUE(g.ok());
    absl::StatusOr<Analysis> a = Analyze(*g, f.in.hardware, o);
    ASSERT_TRUE(a.ok());
    dense += a->summary.latency_s;
  }
  EXPECT_NEAR(r->tpot_s, dense / 96, 0.01 * dense / 96);
  EXPECT_DOUBLE_EQ(r->decode_s, r->tpot_s * 96);
  EXPECT_DOUBLE_EQ(r->request_latency_s, r->ttft_s + r->decode_s);
  EXPECT_DOUBLE_EQ(r->output_tokens_per_s, 97 / r->request_latency_s);
  // The cache grows: the last step is slower than the first.
  EXPECT_GT(r->tpot_by_context.back().tpot_s,
            r->tpot_by_context.front().tpot_s);
}

// One output token is the prefill's: no decode step runs, the request
// latency is the TTFT, and the TPOT shown is the step at N that would come
// next. Two output tokens run that one step.
TEST(Serve, OneOutputTokenIsThePrefillAlone) {
  Fixture one;
  SetUpLlama(128, 1, 1, &one);
  absl::StatusOr<ServeResult> r1 = AnalyzeServe(one.in);
  ASSERT_TRUE(r1.ok()) << r1.status();
  ASSERT_EQ(r1->tpot_by_context.size(), 1u);
  EXPECT_EQ(r1->tpot_by_context.front().context, 128);
  EXPECT_EQ(r1->decode_s, 0);
  EXPECT_EQ(r1->energy.decode_j, 0);
  EXPECT_EQ(r1->request_latency_s, r1->ttft_s);
  EXPECT_DOUBLE_EQ(r1->output_tokens_per_s, 1 / r1->ttft_s);
  EXPECT_EQ(r1->tpot_s, r1->tpot_by_context.front().tpot_s);

  Fixture two;
  SetUpLlama(128, 2, 1, &two);
  absl::StatusOr<ServeResult> r2 = AnalyzeServe(two.in);
  ASSERT_TRUE(r2.ok()) << r2.status();
  ASSERT_EQ(r2->tpot_by_context.size(), 1u);
  EXPECT_EQ(r2->tpot_s, r1->tpot_s);
  EXPECT_EQ(r2->decode_s, r2->tpot_s);
  EXPECT_DOUBLE_EQ(r2->request_latency_s, r2->ttft_s + r2->tpot_s);
  EXPECT_DOUBLE_EQ(r2->output_tokens_per_s, 2 / r2->request_latency_s);
  EXPECT_EQ(DecodeSteps(1), 0);
  EXPECT_EQ(DecodeSteps(256), 255);
  EXPECT_EQ(LastDecodeContext(512, 256), 766);
  EXPECT_EQ(LastDecodeContext(512, 1), 512);
  EXPECT_EQ(LastDecodeContext(512, 2), 512);
}

// A runtime's per-request cost is paid once, before the first token: the
// TTFT grows by exactly it, the decode steps do not, and the request latency
// grows by it once (a 2 ms cost on an 8-token request).
TEST(Serve, PerRequestCostIsPaidOnceBeforeTheFirstToken) {
  Fixture plain;
  SetUpLlama(128, 8, 2, &plain);
  absl::StatusOr<ServeResult> a = AnalyzeServe(plain.in);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->per_request_s, 0);  // the compiled profile has none
  Fixture costly;
  SetUpLlama(128, 8, 2, &costly);
  costly.runtime.per_request_s = 2e-3;
  absl::StatusOr<ServeResult> b = AnalyzeServe(costly.in);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->per_request_s, 2e-3);
  EXPECT_NEAR(b->ttft_s, a->ttft_s + 2e-3, 1e-15);
  EXPECT_EQ(b->tpot_s, a->tpot_s);
  EXPECT_NEAR(b->request_latency_s, a->request_latency_s + 2e-3, 1e-15);
  EXPECT_DOUBLE_EQ(b->aggregate_output_tokens_per_s,
                   2 * 8 / (a->request_latency_s + 2e-3));
}

// A runtime that projects only each request's last prompt position
// (TensorRT-LLM's gather_last_token_logits) prices the prefill's LM head at
// one row per request. The prefill is a decoder at past 0, as --serve runs
// a decoder file (its logits cover every position; the zoo's -prefill
// entries already keep the last one). Llama-3.1-8B, 2 requests of 512
// tokens, bf16, by hand (hidden 4,096, vocabulary 128,256): every position
// 2 x 1,024 x 4,096 x 128,256 = 1,075,889,307,648 FLOPs, the last ones
// 2 x 2 x 4,096 x 128,256 = 2,101,346,304; bytes: the weight
// 4,096 x 128,256 x 2 = 1,050,673,152 read whole, the 2 hidden rows read
// (2 x 4,096 x 2 = 16,384) and the 2 logit rows written
// (2 x 128,256 x 2 = 513,024): 1,051,202,560.
TEST(Serve, LastPositionLogitsPriceOneLmHeadRowPerRequest) {
  Fixture all;
  SetUpLlama(512, 1, 2, &all);
  all.prefill = MustImport("llama-3.1-8b-decode", 2,
                           {{"sequence", 512}, {"past_sequence", 0}});
  ASSERT_FALSE(all.runtime.prefill_last_position_logits);  // compiled
  absl::StatusOr<ServeResult> every = AnalyzeServe(all.in);
  ASSERT_TRUE(every.ok()) << every.status();

  Fixture last;
  SetUpLlama(512, 1, 2, &last);
  last.prefill = MustImport("llama-3.1-8b-decode", 2,
                            {{"sequence", 512}, {"past_sequence", 0}});
  last.runtime.prefill_last_position_logits = true;
  absl::StatusOr<ServeResult> r = AnalyzeServe(last.in);
  ASSERT_TRUE(r.ok()) << r.status();

  absl::StatusOr<TransformerBlocks> blocks =
      FindTransformerBlocks(last.prefill);
  ASSERT_TRUE(blocks.ok()) << blocks.status();
  ASSERT_GE(blocks->lm_head, 0);
  AnalyzeOptions o = last.in.options;
  o.batch = 2;
  auto head_of = [&](const Analysis& a) {
    const LayerResult* head = nullptr;
    for (const LayerResult& l : a.layers) {
      if (l.node == blocks->lm_head) head = &l;
    }
    return head;
  };
  absl::StatusOr<Analysis> whole = Analyze(last.prefill, last.in.hardware, o);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(every->ttft_s, whole->summary.latency_s);
  ASSERT_NE(head_of(*whole), nullptr);
  EXPECT_DOUBLE_EQ(head_of(*whole)->flops, 1075889307648.0);
  o.row_share = {{blocks->lm_head, 1.0 / 512}};
  absl::StatusOr<Analysis> prefill = Analyze(last.prefill, last.in.hardware, o);
  ASSERT_TRUE(prefill.ok()) << prefill.status();
  EXPECT_EQ(r->ttft_s, prefill->summary.latency_s);
  const LayerResult* head = head_of(*prefill);
  ASSERT_NE(head, nullptr);
  EXPECT_DOUBLE_EQ(head->flops, 2101346304.0);
  EXPECT_DOUBLE_EQ(head->cost.weight_bytes, 1050673152.0);
  EXPECT_DOUBLE_EQ(head->bytes, 1051202560.0);
  EXPECT_EQ(head->cost.gemm.m * head->cost.gemm.batch, 2);
  EXPECT_THAT(head->cost.note, ::testing::HasSubstr("last prompt position"));
  // The rest of the prefill is the same: the TTFT drops by the LM head's
  // time alone, and the decode steps do not change.
  EXPECT_LT(r->ttft_s, every->ttft_s);
  EXPECT_EQ(r->tpot_s, every->tpot_s);
  // Nor does it hold every position's logits: 2 x 512 x 128,256 x 2 bytes =
  // 262,668,288 live at the end of the prefill, the peak's floor when every
  // position is projected; with 2 rows (513,024 bytes) the whole peak stays
  // below what those logits alone took.
  EXPECT_GE(every->memory.activation_bytes, 262668288.0);
  EXPECT_LT(r->memory.activation_bytes, 262668288.0);

  // A row share outside (0, 1] is an error, not a silent number.
  o.row_share = {{blocks->lm_head, 0.0}};
  EXPECT_FALSE(Analyze(last.prefill, last.in.hardware, o).ok());
}

TEST(Serve, RebindingEqualsAFreshImport) {
  Fixture f;
  SetUpLlama(512, 8, 2, &f);
  absl::StatusOr<PastRebinder> rebind =
      PastRebinder::Create(f.decode, f.decode_next, 512);
  ASSERT_TRUE(rebind.ok()) << rebind.status();
  graph::Graph fresh = MustImport("llama-3.1-8b-decode", 2,
                                  {{"sequence", 1}, {"past_sequence", 3000}});
  EXPECT_TRUE(rebind->Verify(fresh, 3000).ok());
}

TEST(Serve, MemoryAndMaxConcurrencyByHand) {
  Fixture f;
  SetUpLlama(1024, 256, 4, &f);
  f.in.samples = 3;
  // A runtime that prefills the whole batch at once (chunks:
  // PrefillChunksBoundTheActivations).
  f.runtime.prefill_chunk_tokens = 0;
  absl::StatusOr<ServeResult> r = AnalyzeServe(f.in);
  ASSERT_TRUE(r.ok()) << r.status();
  // TTFT is the prefill analysis at batch 4; aggregate = 4 x per request.
  AnalyzeOptions o = f.in.options;
  o.batch = 4;
  absl::StatusOr<Analysis> prefill = Analyze(f.prefill, f.in.hardware, o);
  ASSERT_TRUE(prefill.ok());
  EXPECT_EQ(r->ttft_s, prefill->summary.latency_s);
  EXPECT_DOUBLE_EQ(r->aggregate_output_tokens_per_s,
                   4 * 256 / r->request_latency_s);
  const ServeMemory& m = r->memory;
  const double capacity = 85899345920.0;    // H100 SXM 80 GiB
  const double weights = 8030261248.0 * 2;  // params x bf16
  const double kv_request = 131072.0 * (1024 + 256);
  EXPECT_EQ(m.capacity_bytes, capacity);
  EXPECT_EQ(m.weight_bytes, weights);
  EXPECT_EQ(m.kv_cache_bytes, kv_request * 4);
  EXPECT_EQ(m.reserve_bytes, 0.1 * capacity);
  EXPECT_GT(m.activation_bytes, 0);
  EXPECT_LT(m.activation_bytes, m.kv_cache_bytes);  // KV not counted twice
  EXPECT_DOUBLE_EQ(m.total_bytes, weights + kv_request * 4 +
                                      m.activation_bytes + 0.1 * capacity);
  EXPECT_TRUE(m.fits);
  const double per_request = kv_request + m.activation_bytes / 4;
  EXPECT_EQ(r->max_concurrency,
            static_cast<int64_t>(std::floor(
                (capacity - weights - 0.1 * capacity) / per_request)));
  // By hand without activations: (85899345920 x 0.9 - 16060522496) /
  // 167772160 = 365.08 requests; the prefill's activations take a share.
  EXPECT_LE(r->max_concurrency, 365);
  EXPECT_GT(r->max_concurrency, 0);
  EXPECT_EQ(MaxConcurrency(100, 50, 10, 20), 2);
  EXPECT_EQ(MaxConcurrency(100, 95, 10, 20), 0);
}

// A runtime that prefills in chunks of C tokens (TensorRT-LLM's
// max_num_tokens) holds the activations of one chunk: at 16 requests of
// 2,048 prompt tokens (32,768 tokens) and C = 8,192 that is a quarter of
// the whole batch's prefill peak. The largest concurrency then pays each
// request's KV only: floor((capacity - weights - reserve - chunk) / KV).
// Below one chunk (2 requests: 4,096 tokens) nothing changes.
TEST(Serve, PrefillChunksBoundTheActivations) {
  // Llama-3.1-8B, 2,048 prompt tokens, 64 generated, at `batch` requests,
  // the runtime prefilling in chunks of `chunk` tokens (0: none).
  auto serve = [](int64_t batch, int64_t chunk) {
    Fixture f;
    SetUpLlama(2048, 64, batch, &f);
    f.in.samples = 2;
    f.runtime.prefill_chunk_tokens = chunk;
    absl::StatusOr<ServeResult> r = AnalyzeServe(f.in);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *std::move(r) : ServeResult{};
  };
  const ServeResult w = serve(16, 0);
  EXPECT_EQ(w.memory.prefill_chunk_tokens, 0);
  const ServeResult c = serve(16, 8192);
  const ServeMemory& m = c.memory;
  EXPECT_EQ(m.prefill_chunk_tokens, 8192);
  ASSERT_GT(w.memory.activation_bytes, 0);
  EXPECT_DOUBLE_EQ(m.activation_bytes, w.memory.activation_bytes / 4);
  EXPECT_EQ(m.kv_cache_bytes, w.memory.kv_cache_bytes);
  EXPECT_EQ(c.ttft_s, w.ttft_s);  // memory only: the same prefill time
  const double kv_request = 131072.0 * (2048 + 64);  // 8B bf16: 128 KiB/token
  EXPECT_EQ(
      c.max_concurrency,
      static_cast<int64_t>(std::floor((m.capacity_bytes - m.weight_bytes -
                                       m.reserve_bytes - m.activation_bytes) /
                                      kv_request)));
  EXPECT_GT(c.max_concurrency, w.max_concurrency);
  // Two requests (4,096 tokens) fit in one chunk: nothing changes.
  EXPECT_EQ(serve(2, 8192).memory.activation_bytes,
            serve(2, 0).memory.activation_bytes);
}

// TensorRT-LLM's rule: its KV cache takes a fraction f of the memory left
// free after the weights and activations (KvCacheConfig.
// free_gpu_memory_fraction, 0.9). The reserve is then (1 - f) x (capacity -
// weights - activations), not 10% of the device; the largest concurrency
// is floor(f x (capacity - weights - chunk activations) / KV per request).
// Llama-3.1-8B bf16 on an H100, 2,048 + 64 tokens, 16 requests, chunks of
// 8,192 tokens (a quarter of the batch's prefill peak).
TEST(Serve, KvCacheTakesAFractionOfTheFreeMemory) {
  Fixture f;
  SetUpLlama(2048, 64, 16, &f);
  f.in.samples = 2;
  f.runtime.prefill_chunk_tokens = 8192;
  f.runtime.kv_cache_free_memory_fraction = 0.9;
  absl::StatusOr<ServeResult> r = AnalyzeServe(f.in);
  ASSERT_TRUE(r.ok()) << r.status();
  const ServeMemory& m = r->memory;
  const double capacity = 85899345920.0;    // H100 SXM 80 GiB
  const double weights = 8030261248.0 * 2;  // params x bf16
  const double kv_request = 131072.0 * (2048 + 64);
  EXPECT_TRUE(m.reserve_of_free);
  EXPECT_DOUBLE_EQ(m.reserve_fraction, 0.1);
  ASSERT_GT(m.activation_bytes, 0);
  EXPECT_DOUBLE_EQ(m.reserve_bytes,
                   0.1 * (capacity - weights - m.activation_bytes));
  EXPECT_EQ(r->max_concurrency,
            static_cast<int64_t>(std::floor(
                0.9 * (capacity - weights - m.activation_bytes) / kv_request)));
  // By hand without activations: 0.9 x (85899345920 - 16060522496) /
  // 276824064 = 227.06; the device rule gives (0.9 x 85899345920 -
  // 16060522496) / 276824064 = 221.25: TensorRT-LLM's rule holds more.
  EXPECT_LE(r->max_concurrency, 227);
  f.runtime.kv_cache_free_memory_fraction = 0;
  absl::StatusOr<ServeResult> device = AnalyzeServe(f.in);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_FALSE(device->memory.reserve_of_free);
  EXPECT_LE(device->max_concurrency, 221);
  EXPECT_GT(r->max_concurrency, device->max_concurrency);
}

// Energy: each GPU at TDP x (0.3 + 0.7 x MFU) while a phase runs (mlsysim
// economics.py); H100 SXM TDP 700 W (NVIDIA datasheet). Checked against
// the formula applied to independent analyses of the prefill and of every
// decode step (8 output tokens: the prefill's and 7 steps, all analyzed).
// Cost at 3.6 USD per GPU-hour = 0.001 USD/s: 1 GPU x 0.001 x request
// latency / (2 x 8 tokens) x 1e6 = 62.5 x latency USD per million tokens.
TEST(Serve, EnergyAndCostPerTokenByHand) {
  Fixture f;
  SetUpLlama(256, 8, 2, &f);
  f.in.samples = 8;
  f.in.usd_per_gpu_hour = 3.6;
  absl::StatusOr<ServeResult> r = AnalyzeServe(f.in);
  ASSERT_TRUE(r.ok()) << r.status();
  const ServeEnergy& e = r->energy;
  EXPECT_EQ(e.tdp_w, 700);
  AnalyzeOptions o = f.in.options;
  o.batch = 2;
  absl::StatusOr<Analysis> prefill = Analyze(f.prefill, f.in.hardware, o);
  ASSERT_TRUE(prefill.ok());
  const double prefill_j =
      700 * (0.3 + 0.7 * prefill->summary.mfu) * prefill->summary.latency_s;
  EXPECT_NEAR(e.prefill_j, prefill_j, 1e-9 * prefill_j);
  absl::StatusOr<PastRebinder> rebind =
      PastRebinder::Create(f.decode, f.decode_next, 256);
  ASSERT_TRUE(rebind.ok()) << rebind.status();
  double decode_j = 0;
  for (int64_t i = 0; i < 7; ++i) {
    absl::StatusOr<graph::Graph> g = rebind->At(256 + i);
    ASSERT_TRUE(g.ok());
    absl::StatusOr<Analysis> a = Analyze(*g, f.in.hardware, o);
    ASSERT_TRUE(a.ok());
    decode_j += 700 * (0.3 + 0.7 * a->summary.mfu) * a->summary.latency_s;
  }
  EXPECT_NEAR(e.decode_j, decode_j, 1e-9 * decode_j);
  EXPECT_NEAR(e.joules_per_token, (prefill_j + decode_j) / 16,
              1e-9 * e.joules_per_token);
  // Memory-bound decode at low MFU: the mean power is near the 30% floor.
  EXPECT_GT(e.mean_power_w, 0.3 * 700);
  EXPECT_LT(e.mean_power_w, 700);
  EXPECT_NEAR(e.usd_per_million_tokens, 62.5 * r->request_latency_s,
              1e-9 * e.usd_per_million_tokens);
  f.in.usd_per_gpu_hour = 0;
  EXPECT_FALSE(AnalyzeServe(f.in).ok());
}

// --search ranking by hand: A (TPOT 5 ms, 100 tokens/s per GPU), B (4 ms,
// 50/s on 2 GPUs), C (6 ms, 90/s: A is faster and cheaper), D (3 ms, 200/s,
// does not fit). Pareto set by TPOT: B, A. With TPOT <= 4.5 ms only B meets
// it; without targets the cheapest is A.
TEST(Serve, SearchRanksParetoAndCheapest) {
  auto point = [](double tpot, double per_gpu, int gpus, bool fits) {
    ServeResult r;
    r.tpot_s = tpot;
    r.gpus = gpus;
    r.aggregate_output_tokens_per_s = per_gpu * gpus;
    r.memory.fits = fits;
    return r;
  };
  ServeSearch s;
  s.results = {point(5e-3, 100, 1, true), point(4e-3, 50, 2, true),
               point(6e-3, 90, 1, true), point(3e-3, 200, 1, false)};
  s.tpot_max_s = 4.5e-3;
  RankServeSearch(&s);
  EXPECT_EQ(s.pareto, (std::vector<size_t>{1, 0}));
  ASSERT_TRUE(s.best.has_value());
  EXPECT_EQ(*s.best, 1u);
  s.tpot_max_s.reset();
  RankServeSearch(&s);
  ASSERT_TRUE(s.best.has_value());
  EXPECT_EQ(*s.best, 0u);
  s.tpot_max_s = 1e-3;  // nothing that fits is this fast
  RankServeSearch(&s);
  EXPECT_FALSE(s.best.has_value());
}

// --search over Llama-3.1-8B on H100s (bf16), prompt 128, generate 8,
// concurrency up to 8; the graphs imported per micro-batch as the CLI does.
struct SearchFixture {
  Runtime runtime;
  ServeSearchInputs in;
  ServeGraphsAt at;
  int64_t params = 0;
};

// The zoo's MODEL-prefill at 128 tokens and MODEL-decode after 128 and 129,
// imported at each micro-batch as the CLI does.
ServeGraphsAt ZooGraphsAt(const std::string& model) {
  return [model](int64_t b) -> absl::StatusOr<ServeGraphs> {
    ServeGraphs g;
    g.prefill = MustImport(model + "-prefill", b, {{"sequence", 128}});
    g.decode = MustImport(model + "-decode", b,
                          {{"sequence", 1}, {"past_sequence", 128}});
    g.decode_next = MustImport(model + "-decode", b,
                               {{"sequence", 1}, {"past_sequence", 129}});
    g.decode_name = "zoo:" + model + "-decode";
    return g;
  };
}

void SetUpSearch(double capacity_bytes, SearchFixture* f) {
  absl::StatusOr<Runtime> rt = zoo::ResolveRuntime("compiled");
  ASSERT_TRUE(rt.ok()) << rt.status();
  f->runtime = *rt;
  absl::StatusOr<Hardware> hw = SourceHardware("h100-sxm");
  ASSERT_TRUE(hw.ok()) << hw.status();
  if (capacity_bytes > 0) hw->memory_capacity_bytes = capacity_bytes;
  f->in.serve.hardware = *hw;
  f->in.serve.options.runtime = &f->runtime;
  f->in.serve.options.precision = "bf16";
  f->in.serve.prompt = 128;
  f->in.serve.generate = 8;
  f->in.max_concurrency = 8;
  f->at = ZooGraphsAt("llama-3.1-8b");
  f->params = MustImport("llama-3.1-8b-decode", 1, {}).ParameterCount();
}

const ServeResult* FindResult(const ServeSearch& s, int tp, int pp,
                              const std::string& weights, int64_t concurrency) {
  for (const ServeResult& r : s.results) {
    if (r.parallel.tp == tp && r.parallel.pp == pp && r.weights == weights &&
        r.concurrency == concurrency) {
      return &r;
    }
  }
  return nullptr;
}

// The space: tp 1, 2, 4, 8 and tp 8 x pp 2, 4 (h100-sxm: 8 GPUs a node, a
// network) x bf16, weight-only int8 and int4; pipeline layouts decode pp
// micro-batches (concurrency pp, 2 pp, ...). Every fitting configuration
// is listed once; the Pareto set is exactly the undominated ones, computed
// here pair by pair; no excluded configuration is in the results.
TEST(ServeSearchSpace, LayoutsPrecisionsAndParetoProperty) {
  SearchFixture f;
  SetUpSearch(0, &f);
  absl::StatusOr<ServeSearch> s = SearchServe(f.in, f.at);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->layouts.size(), 6u);
  EXPECT_EQ(s->weights, (std::vector<std::string>{"", "int8", "int4"}));
  EXPECT_TRUE(s->weights_left_out.empty());
  // 8B in bf16 (16 GB) fits one 80 GiB H100 up to concurrency 8: every
  // configuration fits: (4 tp layouts x 4 concurrencies + pp 2 at 2, 4, 8 +
  // pp 4 at 4, 8) x 3 weight precisions.
  EXPECT_TRUE(s->excluded.empty());
  EXPECT_EQ(s->results.size(), (4u * 4 + 3 + 2) * 3);
  ASSERT_NE(FindResult(*s, 8, 2, "int4", 2), nullptr);
  EXPECT_EQ(FindResult(*s, 8, 2, "int4", 2)->parallel.microbatches, 2);
  EXPECT_EQ(FindResult(*s, 8, 2, "int4", 2)->gpus, 16);
  EXPECT_EQ(FindResult(*s, 8, 4, "", 2), nullptr);  // fewer requests than pp
  auto dominates = [](const ServeResult& a, const ServeResult& b) {
    return a.tpot_s <= b.tpot_s && TokensPerGpu(a) >= TokensPerGpu(b) &&
           (a.tpot_s < b.tpot_s || TokensPerGpu(a) > TokensPerGpu(b));
  };
  std::vector<size_t> expected;
  for (size_t i = 0; i < s->results.size(); ++i) {
    bool dominated = false;
    for (const ServeResult& other : s->results) {
      dominated |= dominates(other, s->results[i]);
    }
    if (!dominated) expected.push_back(i);
  }
  std::vector<size_t> pareto = s->pareto;
  std::sort(pareto.begin(), pareto.end());
  EXPECT_EQ(pareto, expected);
  ASSERT_FALSE(s->pareto.empty());
  // No targets: the cheapest is the one with the most tokens/s per GPU.
  ASSERT_TRUE(s->best.has_value());
  for (const ServeResult& r : s->results) {
    EXPECT_LE(TokensPerGpu(r), TokensPerGpu(s->results[*s->best]));
  }
}

// A configuration that does not fit is left out with its reason: on an
// H100 cut to 16 GB (reserve 1.6 GB), Llama-3.1-8B's bf16 weights alone
// (2 B x 8.03 G parameters = 16.1 GB) do not fit one GPU at any
// concurrency; int8 (1 B + one 2-byte scale per output channel) does.
TEST(ServeSearchSpace, WhatDoesNotFitIsLeftOutWithTheReason) {
  SearchFixture f;
  SetUpSearch(16e9, &f);
  f.in.max_concurrency = 2;
  absl::StatusOr<ServeSearch> s = SearchServe(f.in, f.at);
  ASSERT_TRUE(s.ok()) << s.status();
  const ServeExcluded* bf16 = nullptr;
  for (const ServeExcluded& e : s->excluded) {
    if (e.parallel.tp == 1 && e.parallel.pp == 1 && e.weights.empty()) {
      bf16 = &e;
    }
  }
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->concurrency, 1);  // not even one request
  EXPECT_GT(bf16->memory_bytes, 2.0 * f.params + 1.6e9);
  EXPECT_NE(bf16->reason.find("> 16.0 GB"), std::string::npos) << bf16->reason;
  EXPECT_NE(bf16->reason.find("weights 16.1 GB"), std::string::npos)
      << bf16->reason;
  EXPECT_EQ(FindResult(*s, 1, 1, "", 1), nullptr);
  const ServeResult* int8 = FindResult(*s, 1, 1, "int8", 1);
  ASSERT_NE(int8, nullptr);
  EXPECT_TRUE(int8->memory.fits);
  EXPECT_GT(int8->memory.weight_bytes, 1.0 * f.params);
  EXPECT_LT(int8->memory.weight_bytes, 1.01 * f.params);
  // Two GPUs hold the bf16 weights.
  EXPECT_NE(FindResult(*s, 2, 1, "", 1), nullptr);
}

// A TPOT target below every bf16 and int8 configuration's: decode at these
// sizes streams the weights, so only weight-only int4 (0.5 B per weight)
// meets it, and the cheapest configuration chosen is, of the int4 ones
// that meet it, the one with the most output tokens/s per GPU (fewer GPUs
// on a tie), found here by brute force.
TEST(ServeSearchSpace, CheapestMeetingATargetOnlyInt4Meets) {
  SearchFixture f;
  SetUpSearch(0, &f);
  absl::StatusOr<ServeSearch> all = SearchServe(f.in, f.at);
  ASSERT_TRUE(all.ok()) << all.status();
  double fastest_wider = 1e9;
  for (const ServeResult& r : all->results) {
    if (r.weights != "int4") fastest_wider = std::min(fastest_wider, r.tpot_s);
  }
  f.in.tpot_max_s = 0.999 * fastest_wider;
  absl::StatusOr<ServeSearch> s = SearchServe(f.in, f.at);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_TRUE(s->best.has_value());
  const ServeResult& best = s->results[*s->best];
  EXPECT_EQ(best.weights, "int4");
  const ServeResult* expected = nullptr;
  for (const ServeResult& r : s->results) {
    if (r.tpot_s > *f.in.tpot_max_s) continue;
    EXPECT_EQ(r.weights, "int4");
    if (expected == nullptr || TokensPerGpu(r) > TokensPerGpu(*expected) ||
        (TokensPerGpu(r) == TokensPerGpu(*expected) &&
         r.gpus < expected->gpus)) {
      expected = &r;
    }
  }
  ASSERT_NE(expected, nullptr);
  EXPECT_EQ(&best, expected);
}

// Each search point is the existing pricing: a weight-only int4 tp 8 step
// is AnalyzeQuantized's quantized analysis of that step sharded over 8
// GPUs, and a pipeline point (tp 8 x pp 2, 2 micro-batches of 1) steps in
// max(sum of the stages, 2 x the slowest stage) of the micro-batch's
// sharded analysis; with 2 samples (the first and last steps) the mean
// TPOT is their mean.
TEST(ServeSearchSpace, PointsAreTheQuantizeAndShardingAnalyses) {
  SearchFixture f;
  SetUpSearch(0, &f);
  f.in.max_concurrency = 2;
  absl::StatusOr<ServeSearch> s = SearchServe(f.in, f.at);
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<ServeGraphs> g = f.at(1);
  ASSERT_TRUE(g.ok());
  absl::StatusOr<PastRebinder> rebind =
      PastRebinder::Create(g->decode, g->decode_next, 128);
  ASSERT_TRUE(rebind.ok());
  AnalyzeOptions o = f.in.serve.options;
  QuantizeOptions int4;
  int4.weights = "int4";
  const ServeResult* q = FindResult(*s, 8, 1, "int4", 1);
  const ServeResult* pipe = FindResult(*s, 8, 2, "", 2);
  ASSERT_NE(q, nullptr);
  ASSERT_NE(pipe, nullptr);
  ASSERT_EQ(q->tpot_by_context.size(), 2u);
  double q_sum = 0, pipe_sum = 0;
  // 8 output tokens: the prefill's and 7 steps at past 128..134.
  for (int64_t past : {128, 134}) {
    absl::StatusOr<graph::Graph> step = rebind->At(past);
    ASSERT_TRUE(step.ok());
    absl::StatusOr<QuantizeResult> qr =
        AnalyzeQuantized(*step, f.in.serve.hardware, o, int4, {.tp = 8});
    ASSERT_TRUE(qr.ok()) << qr.status();
    q_sum += qr->latency_s;
    absl::StatusOr<Analysis> a = AnalyzeSharded(
        *step, f.in.serve.hardware, o, {.tp = 8, .pp = 2, .microbatches = 2});
    ASSERT_TRUE(a.ok()) << a.status();
    const std::vector<double>& stages = a->summary.parallel->stage_latency_s;
    ASSERT_EQ(stages.size(), 2u);
    pipe_sum +=
        std::max(a->summary.latency_s, 2 * std::max(stages[0], stages[1]));
  }
  EXPECT_NEAR(q->tpot_s, q_sum / 2, 1e-12);
  EXPECT_NEAR(pipe->tpot_s, pipe_sum / 2, 1e-12);
  EXPECT_EQ(pipe->parallel.microbatches, 2);
  // The pipeline's TTFT: the two prefills through the stages.
  absl::StatusOr<Analysis> pre =
      AnalyzeSharded(g->prefill, f.in.serve.hardware, o,
                     {.tp = 8, .pp = 2, .microbatches = 2});
  ASSERT_TRUE(pre.ok());
  const ParallelSummary& ps = *pre->summary.parallel;
  EXPECT_DOUBLE_EQ(pipe->ttft_s, ps.pipeline_latency_s);
  EXPECT_NEAR(ps.pipeline_latency_s,
              ps.stage_latency_s[0] + ps.stage_latency_s[1] +
                  std::max(ps.stage_latency_s[0], ps.stage_latency_s[1]) +
                  pre->summary.per_inference_s,
              1e-12);
}

// Expert-parallel layouts join the search for a mixture-of-experts model
// only: ep 2, 4, 8 on an 8-GPU H100 node where ep divides the experts (8:
// all three; 6: only 2), none without MoE layers.
TEST(ServeSearchSpace, ExpertParallelLayoutsOnlyWhereTheyDivideTheExperts) {
  absl::StatusOr<Hardware> hw = SourceHardware("h100-sxm");
  ASSERT_TRUE(hw.ok()) << hw.status();
  auto eps = [](const std::vector<ParallelOptions>& layouts) {
    std::vector<int> out;
    for (const ParallelOptions& p : layouts) {
      if (p.ep > 1) {
        EXPECT_EQ(p.tp, 1);
        EXPECT_EQ(p.pp, 1);
        out.push_back(p.ep);
      }
    }
    return out;
  };
  EXPECT_EQ(SearchLayouts(*hw).size(), 6u);
  EXPECT_TRUE(eps(SearchLayouts(*hw)).empty());
  EXPECT_EQ(eps(SearchLayouts(*hw, 8)), (std::vector<int>{2, 4, 8}));
  EXPECT_EQ(SearchLayouts(*hw, 8).size(), 9u);
  EXPECT_EQ(eps(SearchLayouts(*hw, 6)), (std::vector<int>{2}));
}

// A search over Mixtral-8x7B (8 experts) serves expert-parallel layouts,
// and an ep point is --serve's own analysis of that layout (AnalyzeServe
// with --ep: kernels planned around the all-to-alls, each GPU holding its
// share of the requests and of the experts).
TEST(ServeSearchSpace, ExpertParallelPointIsTheServeAnalysis) {
  SearchFixture f;
  SetUpSearch(0, &f);
  f.in.max_concurrency = 2;
  f.in.weights = {};
  f.at = ZooGraphsAt("mixtral-8x7b");
  absl::StatusOr<ServeSearch> s = SearchServe(f.in, f.at);
  ASSERT_TRUE(s.ok()) << s.status();
  const ServeResult* point = nullptr;
  for (const ServeResult& r : s->results) {
    if (r.parallel.ep == 4 && r.concurrency == 2) point = &r;
  }
  ASSERT_NE(point, nullptr);
  EXPECT_EQ(point->gpus, 4);
  absl::StatusOr<ServeGraphs> g = f.at(2);
  ASSERT_TRUE(g.ok());
  ServeInputs in = f.in.serve;
  in.prefill = &g->prefill;
  in.decode = &g->decode;
  in.decode_next = &g->decode_next;
  in.decode_name = g->decode_name;
  in.concurrency = 2;
  in.samples = f.in.samples;
  in.parallel.ep = 4;
  absl::StatusOr<ServeResult> direct = AnalyzeServe(in);
  ASSERT_TRUE(direct.ok()) << direct.status();
  EXPECT_NEAR(point->tpot_s, direct->tpot_s, 1e-12);
  EXPECT_NEAR(point->ttft_s, direct->ttft_s, 1e-12);
  EXPECT_NEAR(point->memory.weight_bytes, direct->memory.weight_bytes, 1);
  // Another layout over the same 4 GPUs, priced differently.
  const ServeResult* tp4 = FindResult(*s, 4, 1, "", 2);
  ASSERT_NE(tp4, nullptr);
  EXPECT_NE(tp4->tpot_s, point->tpot_s);
}

TEST(Serve, BadValues) {
  Fixture f;
  SetUpLlama(128, 4, 1, &f);
  f.in.generate = 0;
  EXPECT_FALSE(AnalyzeServe(f.in).ok());
  f.in.generate = 4;
  f.in.prompt = 0;
  EXPECT_FALSE(AnalyzeServe(f.in).ok());
}

int Cli(const std::vector<std::string>& args, std::string* out,
        std::string* err) {
  std::ostringstream o, e;
  const int rc = tools::analyze::AnalyzeMain(args, o, e);
  *out = o.str();
  *err = e.str();
  return rc;
}

TEST(ServeCli, ErrorsAreInputErrorsNamingTheModel) {
  std::string out, err;
  EXPECT_EQ(Cli({"--zoo", "resnet50", "--hw", "h100", "--serve", "--prompt",
                 "16", "--generate", "4"},
                &out, &err),
            2);
  EXPECT_NE(err.find("zoo:resnet50"), std::string::npos) << err;
  EXPECT_NE(err.find("no KV cache"), std::string::npos) << err;
  // Bad or missing --prompt/--generate values are usage errors (exit 1),
  // caught when the flags are parsed: ServeFlagsWithoutServeAreUsageErrors.
}

// A runtime that fuses attention (flash attention) never writes the score
// matrix the ONNX graph computes; eager PyTorch (no fusion) does. Llama-3.1-
// 8B's prefill of 4,096 tokens at bf16: one layer's scores are 32 heads x
// 4096 x 4096 x 2 B = 1 GiB, which eager's peak holds (with their softmax,
// more) and compiled's does not. Both prefill at once (4,096 tokens are
// below compiled's 8,192-token chunk).
TEST(ServeCli, FusedAttentionScoresAreNotActivations) {
  auto activations = [](const char* runtime) {
    std::string out, err;
    EXPECT_EQ(Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--serve",
                   "--prompt", "4096", "--generate", "2", "--runtime", runtime,
                   "--format", "json"},
                  &out, &err),
              0)
        << err;
    return nlohmann::json::parse(out)["serve"]["memory"]["activation_bytes"]
        .get<double>();
  };
  const double scores = 32.0 * 4096 * 4096 * 2;
  const double eager = activations("eager");
  const double compiled = activations("compiled");
  EXPECT_GE(eager - compiled, scores) << eager << " vs " << compiled;
  EXPECT_LT(compiled, scores);
}

TEST(ServeCli, JsonSection) {
  std::string out, err;
  ASSERT_EQ(Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--precision",
                 "bf16", "--serve", "--prompt", "64", "--generate", "8",
                 "--concurrency", "2", "--format", "json"},
                &out, &err),
            0)
      << err;
  for (const char* key :
       {"\"serve\"", "\"ttft_s\"", "\"tpot_s\"", "\"tpot_by_context\"",
        "\"request_latency_s\"", "\"output_tokens_per_s\"",
        "\"kv_bytes_per_token\": 131072", "\"memory\"", "\"max_concurrency\"",
        "\"joules_per_token\"", "\"energy\""}) {
    EXPECT_NE(out.find(key), std::string::npos) << key;
  }
}

// The text between the opening of `<section id="ID"` and its </section>.
std::string Section(const std::string& html, const std::string& id) {
  const size_t begin = html.find("<section id=\"" + id + "\"");
  if (begin == std::string::npos) return "";
  const size_t end = html.find("</section>", begin);
  return html.substr(begin, end - begin);
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// --serve --format html: the time per output token by context and the
// memory stack, values by hand for Llama-3.1-8B on one H100 SXM in bf16,
// prompt 512, generate 256, concurrency 1.
TEST(ServeCli, HtmlChartsByHand) {
  std::string out, err;
  ASSERT_EQ(Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--precision",
                 "bf16", "--serve", "--prompt", "512", "--generate", "256",
                 "--format", "html"},
                &out, &err),
            0)
      << err;
  // 256 output tokens: the prefill's and 255 decode steps, of which 33 are
  // analyzed in full (ServeInputs::samples, evenly spaced, both ends): one
  // point each; the first step starts with the 512 prompt tokens in the
  // cache, the last with 512 + 255 - 1 = 766.
  const std::string tpot = Section(out, "line-chart-0");
  ASSERT_FALSE(tpot.empty());
  EXPECT_EQ(Count(tpot, "<circle class=\"pt\""), 33u);
  EXPECT_EQ(Count(tpot, "<polyline class=\"line\""), 1u);
  EXPECT_NE(tpot.find("<circle class=\"pt\" data-x=\"512\""),
            std::string::npos);
  EXPECT_NE(tpot.find("<circle class=\"pt\" data-x=\"766\""),
            std::string::npos);
  // x ticks over 512..766: 550, 600, ..., 750 (step 50, at most 8 ticks).
  EXPECT_EQ(Count(tpot, "class=\"tick-x\""), 5u);
  EXPECT_NE(tpot.find(">Context (tokens in the KV cache)</text>"),
            std::string::npos);
  EXPECT_NE(tpot.find(">Time per output token (s)</text>"), std::string::npos);
  EXPECT_NE(tpot.find("(33 of 255)"), std::string::npos);

  // Memory stack of one GPU, bytes:
  //   weights = 8,030,261,248 params x 2 B (bf16) = 16,060,522,496;
  //   KV cache = 2 (K, V) x 32 layers x 8 KV heads x 128 head dim x 2 B x
  //     (512 + 256) tokens x 1 request = 131,072 x 768 = 100,663,296;
  //   reserve = 10% of 80 GiB = 8,589,934,592; capacity 85,899,345,920.
  const std::string memory = Section(out, "stacked-bars-0");
  ASSERT_FALSE(memory.empty());
  EXPECT_EQ(Count(memory, "<rect class=\"seg\""), 5u);  // 4 + capacity
  for (const char* value :
       {"16060522496", "100663296", "8589934592", "85899345920"}) {
    EXPECT_NE(memory.find("data-value-bytes=\"" + std::string(value) + "\""),
              std::string::npos)
        << value;
  }
  // In decimal SI units: 16.1 GB, 101 MB, 8.59 GB, 85.9 GB.
  for (const char* label :
       {"weights 16.1 GB", "KV cache 101 MB", "runtime reserve 8.59 GB",
        ">85.9 GB<", "768 tokens: 131 kB per token (32 layers) x 768 tokens",
        "1 GB = 10^9 B"}) {
    EXPECT_NE(memory.find(label), std::string::npos) << label;
  }

  // --format svg is the roofline only; --search is not drawn.
  EXPECT_EQ(Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--serve",
                 "--prompt", "16", "--generate", "4", "--format", "svg"},
                &out, &err),
            1);
  EXPECT_NE(err.find("--serve's charts are drawn by --format html"),
            std::string::npos)
      << err;
  EXPECT_EQ(
      Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--serve",
           "--prompt", "16", "--generate", "4", "--search", "--format", "html"},
          &out, &err),
      1);
}

// A configuration that does not fit is still timed, with a warning that
// says so. Mixtral-8x7B's 46.7 G parameters at bf16 (its checkpoint's
// dtype) are 93.4 GB, more than an H100's 80 GiB = 85.9 GB before any KV
// cache or reserve; on 2 GPUs each holds about half.
TEST(ServeCli, WarnsWhenTheConfigurationDoesNotFit) {
  const std::vector<std::string> base = {
      "--zoo", "mixtral-8x7b-decode", "--hw", "h100", "--serve", "--prompt",
      "64",    "--generate",          "4"};
  std::string out, err;
  ASSERT_EQ(Cli(base, &out, &err), 0) << err;
  EXPECT_NE(err.find("analyze: warning: zoo:mixtral-8x7b-decode: --serve: "
                     "does not fit: weights 93.4 GB + KV cache"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("of 85.9 GB; the times assume it fits"), std::string::npos)
      << err;
  EXPECT_EQ(Count(err, "does not fit"), 1u) << err;  // text and memory once
  std::vector<std::string> json = base;
  json.insert(json.end(), {"--format", "json"});
  ASSERT_EQ(Cli(json, &out, &err), 0) << err;
  EXPECT_NE(out.find("--serve: does not fit: weights 93.4 GB"),
            std::string::npos);  // in "warnings"
  std::vector<std::string> tp2 = base;
  tp2.insert(tp2.end(), {"--tp", "2"});
  ASSERT_EQ(Cli(tp2, &out, &err), 0) << err;
  EXPECT_EQ(err.find("does not fit"), std::string::npos) << err;
}

// --sweep concurrency=LIST: one serving analysis per point, each the same as
// a run with --concurrency N, on one GPU and sharded with --tp 2.
TEST(ServeCli, ConcurrencySweep) {
  const std::vector<std::string> base = {"--zoo",       "llama-3.1-8b-decode",
                                         "--hw",        "h100",
                                         "--precision", "bf16",
                                         "--serve",     "--prompt",
                                         "64",          "--generate",
                                         "4",           "--format",
                                         "json"};
  std::vector<std::string> sweep = base;
  sweep.insert(sweep.end(), {"--sweep", "concurrency=1,4"});
  std::string out, err;
  for (const std::vector<std::string>& layout :
       {std::vector<std::string>{}, std::vector<std::string>{"--tp", "2"}}) {
    std::vector<std::string> swept = sweep;
    swept.insert(swept.end(), layout.begin(), layout.end());
    ASSERT_EQ(Cli(swept, &out, &err), 0) << err;
    const nlohmann::json j = nlohmann::json::parse(out);
    ASSERT_EQ(j["sweep"]["axis"], "concurrency");
    ASSERT_EQ(j["sweep"]["points"].size(), 2u);
    for (int i = 0; i < 2; ++i) {
      const nlohmann::json& p = j["sweep"]["points"][i];
      const int b = i == 0 ? 1 : 4;
      EXPECT_EQ(p["concurrency"], b);
      EXPECT_DOUBLE_EQ(p["aggregate_output_tokens_per_s"].get<double>(),
                       b * p["output_tokens_per_s"].get<double>());
      std::vector<std::string> one = base;
      one.insert(one.end(), layout.begin(), layout.end());
      one.insert(one.end(), {"--concurrency", std::to_string(b)});
      std::string out1;
      ASSERT_EQ(Cli(one, &out1, &err), 0) << err;
      const nlohmann::json s = nlohmann::json::parse(out1)["serve"];
      EXPECT_DOUBLE_EQ(p["ttft_s"].get<double>(), s["ttft_s"].get<double>());
      EXPECT_DOUBLE_EQ(p["tpot_s"].get<double>(), s["tpot_s"].get<double>());
      EXPECT_DOUBLE_EQ(p["joules_per_token"].get<double>(),
                       s["joules_per_token"].get<double>());
    }
  }
  std::vector<std::string> text = sweep;
  text.resize(text.size() - 4);  // drop --format json
  text.insert(text.end(), {"--sweep", "concurrency=1,4"});
  ASSERT_EQ(Cli(text, &out, &err), 0) << err;
  EXPECT_NE(out.find("largest concurrency that fits"), std::string::npos);
  // Usage errors: without --serve, beside --concurrency, another axis.
  EXPECT_EQ(Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--sweep",
                 "concurrency=1,2"},
                &out, &err),
            1);
  std::vector<std::string> both = sweep;
  both.insert(both.end(), {"--concurrency", "2"});
  EXPECT_EQ(Cli(both, &out, &err), 1);
  std::vector<std::string> other = base;
  other.insert(other.end(), {"--sweep", "batch=1,2"});
  EXPECT_EQ(Cli(other, &out, &err), 1);
}

TEST(ServeCli, Search) {
  std::string out, err;
  ASSERT_EQ(Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--precision",
                 "bf16", "--serve", "--prompt", "256", "--generate", "16",
                 "--search", "--tpot-max", "0.01", "--format", "json"},
                &out, &err),
            0)
      << err;
  const nlohmann::json j = nlohmann::json::parse(out)["search"];
  EXPECT_EQ(j["tpot_max_s"], 0.01);
  EXPECT_TRUE(j["ttft_max_s"].is_null());
  EXPECT_GE(j["configurations"].get<int>(), 8);
  ASSERT_FALSE(j["best"].is_null());
  EXPECT_LE(j["best"]["tpot_s"].get<double>(), 0.01);
  ASSERT_FALSE(j["pareto"].empty());
  for (size_t i = 1; i < j["pareto"].size(); ++i) {
    EXPECT_LE(j["pareto"][i - 1]["tpot_s"].get<double>(),
              j["pareto"][i]["tpot_s"].get<double>());
  }
  // The space searched and what was left out (schema in README, Serving).
  EXPECT_EQ(j["weights"], nlohmann::json({"bf16", "int8", "int4"}));
  EXPECT_EQ(j["layouts"].size(), 6u);
  EXPECT_EQ(j["configurations"].get<size_t>(),
            j["points"].size() + j["excluded"].size());
  EXPECT_EQ(j["fitting"].get<size_t>(), j["points"].size());
  for (const char* key : {"tp", "pp", "microbatches", "gpus", "weights",
                          "weight_only", "concurrency", "ttft_s", "tpot_s",
                          "output_tokens_per_s_per_gpu", "memory_bytes"}) {
    EXPECT_TRUE(j["best"].contains(key)) << key;
  }
  for (const nlohmann::json& e : j["excluded"]) {
    EXPECT_FALSE(e["reason"].get<std::string>().empty());
  }
  EXPECT_EQ(Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--search"},
                &out, &err),
            1);
  EXPECT_EQ(
      Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--ttft-max", "1"},
          &out, &err),
      1);
  EXPECT_EQ(Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--serve",
                 "--prompt", "16", "--generate", "4", "--search", "--tp", "2"},
                &out, &err),
            1);
  // A bad value is a usage error, caught when the flag is parsed.
  EXPECT_EQ(
      Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--serve",
           "--prompt", "16", "--generate", "4", "--search", "--tpot-max", "-1"},
          &out, &err),
      1);
  EXPECT_NE(err.find("--tpot-max: invalid value '-1' (expected a time > 0 in "
                     "seconds)"),
            std::string::npos)
      << err;
}

TEST(ServeCli, ServeFlagsWithoutServeAreUsageErrors) {
  std::string out, err;
  EXPECT_EQ(
      Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--prompt", "16"},
          &out, &err),
      1);
  EXPECT_NE(err.find("only used with --serve"), std::string::npos) << err;
  EXPECT_EQ(Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100",
                 "--usd-per-gpu-hour", "2"},
                &out, &err),
            1);
  EXPECT_NE(err.find("only used with --serve"), std::string::npos) << err;
  // Values are checked when parsed (usage errors, exit 1): a price > 0,
  // counts in [1, 2^24], and --serve needs both counts.
  EXPECT_EQ(
      Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--serve",
           "--prompt", "16", "--generate", "4", "--usd-per-gpu-hour", "-1"},
          &out, &err),
      1);
  EXPECT_NE(err.find("--usd-per-gpu-hour: invalid value '-1'"),
            std::string::npos)
      << err;
  for (const char* bad : {"0", "16777217", "x", "1.5"}) {
    EXPECT_EQ(Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--serve",
                   "--prompt", bad, "--generate", "4"},
                  &out, &err),
              1)
        << bad;
    EXPECT_NE(err.find(std::string("--prompt: invalid value '") + bad +
                       "' (expected an integer in [1, 16777216])"),
              std::string::npos)
        << err;
  }
  EXPECT_EQ(Cli({"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--serve",
                 "--prompt", "16"},
                &out, &err),
            1);
  EXPECT_NE(err.find("--serve needs --prompt N and --generate M"),
            std::string::npos)
      << err;
}

// A single ONNX decoder file (past-KV inputs and present outputs): the
// past-length dim found by name, the prefill run at past 0; --kv-dim names
// it, and a name the model lacks is an input error.
TEST(ServeCli, DecoderFile) {
  const std::string file = std::string(RIDGELINE_SOURCE_DIR) +
                           "/zoo/models/llama-3.1-8b-decode.onnx";
  const std::vector<std::string> base = {file,
                                         "--hw",
                                         "h100",
                                         "--precision",
                                         "bf16",
                                         "--dim",
                                         "past_sequence=64",
                                         "--dim",
                                         "sequence=1",
                                         "--batch",
                                         "1",
                                         "--serve",
                                         "--prompt",
                                         "64",
                                         "--generate",
                                         "8",
                                         "--format",
                                         "json"};
  std::string out, err;
  ASSERT_EQ(Cli(base, &out, &err), 0) << err;
  EXPECT_NE(out.find("\"kv_bytes_per_token\": 131072"), std::string::npos);
  std::vector<std::string> named = base;
  named.insert(named.end(), {"--kv-dim", "past_sequence"});
  EXPECT_EQ(Cli(named, &out, &err), 0) << err;
  std::vector<std::string> bad = base;
  bad.insert(bad.end(), {"--kv-dim", "no_such_dim"});
  EXPECT_EQ(Cli(bad, &out, &err), 2);
  EXPECT_NE(err.find(file), std::string::npos) << err;
  EXPECT_NE(err.find("--kv-dim"), std::string::npos) << err;
}

// The `serve` section of the schema is the same text in both documents.
std::string Section(const std::string& doc) {
  const size_t begin = doc.find("## `serve`");
  const size_t end = doc.find("## `warnings`", begin);
  return begin == std::string::npos ? "" : doc.substr(begin, end - begin);
}

TEST(ServeDocs, SchemaSectionIdenticalInReadmeAndJsonSchema) {
  const std::string src = RIDGELINE_SOURCE_DIR;
  const std::string a = Section(ReadFileOrDie(src + "/README.md"));
  const std::string b =
      Section(ReadFileOrDie(src + "/engine/report/JSON_SCHEMA.md"));
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
}

// README's flag list (the --serve flags included) is the --help text.
TEST(ServeDocs, ReadmeFlagListIsTheHelp) {
  const std::string readme =
      ReadFileOrDie(std::string(RIDGELINE_SOURCE_DIR) + "/README.md");
  const size_t begin = readme.find("```\nusage: analyze MODEL.onnx");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = readme.find("```", begin + 4);
  EXPECT_EQ(readme.substr(begin + 4, end - begin - 4),
            tools::analyze::UsageText());
}

}  // namespace
}  // namespace ridgeline::engine
