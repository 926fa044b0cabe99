// LLM serving (`analyze --serve`): time to first token, time per output
// token as the KV cache grows, request latency, tokens/s, and the memory of
// weights + KV cache + activations with the largest concurrency that fits.
//
// Every second comes from Analyze() (and so from TimeKernel): TTFT is the
// prefill graph's analysis; TPOT at a past length p is the decode graph's
// analysis with the past-length dim rebound to p (PastRebinder: the graph is
// imported once at p0 and p0 + 1, and every tensor dim and folded shape
// value that moves with p is rewritten, never re-imported).
//
//   engine::ServeInputs in{.prefill = &prefill, .decode = &at_n,
//                          .decode_next = &at_n_plus_1, ...};
//   absl::StatusOr<engine::ServeResult> r = engine::AnalyzeServe(in);
#ifndef RIDGELINE_ENGINE_SERVE_H_
#define RIDGELINE_ENGINE_SERVE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/counter_registry.h"
#include "engine/hardware.h"
#include "engine/parallel/sharding.h"
#include "engine/quantize.h"
#include "graph/graph.h"

namespace ridgeline::engine {

// Fraction of device memory held back for the runtime (CUDA context,
// allocator, graphs): vLLM's default gpu_memory_utilization is 0.9.
inline constexpr double kRuntimeReserveFraction = 0.10;

// The KV cache of a decoder graph: its past-KV inputs, present-KV outputs
// and the axis of the past length.
struct KvCache {
  std::vector<int> past_inputs;      // tensor indices (keys and values)
  std::vector<int> present_outputs;  // tensor indices
  int past_axis = -1;                // axis of the past length in the inputs
  int64_t layers = 0;                // past inputs / 2
  // Bytes one token adds to the cache of one sequence: the sum over the
  // past inputs of the product of their dims other than batch (axis 0) and
  // the past axis, times the element bytes at the analysis' pricing
  // (= 2 x layers x kv_heads x head_dim x bytes).
  double bytes_per_token = 0;
  // KV inputs whose length does not grow with the past: an encoder-
  // decoder's cross-attention keys and values (optimum's
  // past_key_values.N.encoder.*, the encoder's length). Tensor indices.
  std::vector<int> fixed_inputs;
  // Bytes of the fixed KV inputs of one sequence (every dim but the batch),
  // held for the whole request whatever its length.
  double fixed_bytes_per_sequence = 0;
};

// A floating tensor of rank >= 3 named like past / present / cache.
bool IsKvCacheTensor(const graph::Tensor& tensor);

// What the served graphs of an encoder-decoder's decoder (Whisper, T5, BART
// as optimum exports them) leave out of the time to first token: the
// encoder's run always, and the cross-attention keys and values'
// projection when the first pass takes them as inputs. Found from the
// graphs' structure and names, never from the model's name.
struct EncoderSide {
  // Graph inputs of the decoder that carry the encoder's output: floating,
  // rank >= 3, not KV, named like encoder_* (encoder_hidden_states,
  // encoder_outputs).
  std::vector<std::string> state_inputs;
  // The cross-attention KV inputs (KvCache::fixed_inputs: named like past /
  // cache and not growing with the past length), by name.
  std::vector<std::string> cross_kv_inputs;
  // The first pass (the TTFT's graph) reads the cross-attention KV inputs
  // (a decoder with past only): their projection from the encoder's output
  // is not timed either.
  bool prefill_reads_cross_kv = false;

  bool encoder_decoder() const {
    return !state_inputs.empty() || !cross_kv_inputs.empty();
  }
};

// The encoder side of `decode` (the decoder at a decode step, `kv` its KV
// cache) and whether `prefill` (its first pass) reads the cross-attention
// KV: a node that runs consumes one of them.
EncoderSide FindEncoderSide(const graph::Graph& prefill,
                            const graph::Graph& decode, const KvCache& kv);

// Finds the KV cache: graph inputs named like past_key_values / past /
// cache (rank >= 3), whose dim `past_axis` equals `past_length` (the value
// the graph was bound with), and the outputs named like present / cache.
// With `decode_next` (the same graph imported at past_length + 1, tensor
// for tensor), a KV input whose dims are the same in both is a fixed one
// (cross-attention), not part of the growing cache. Bytes at `pricer`'s
// element sizes. NotFound when the graph has no KV inputs.
absl::StatusOr<KvCache> FindKvCache(const graph::Graph& decode,
                                    int64_t past_length,
                                    const TensorPricer& pricer,
                                    const graph::Graph* decode_next = nullptr);

// Rebinds the past-length dim of an imported decoder graph. Built from the
// graph imported at past p0 and p0 + 1: each dim (and folded int value) is
// d0 + (d1 - d0) x (p - p0).
class PastRebinder {
 public:
  static absl::StatusOr<PastRebinder> Create(const graph::Graph& at_p0,
                                             const graph::Graph& at_p0_plus_1,
                                             int64_t p0);
  // The graph at past length `p` (a copy with its dims rewritten).
  absl::StatusOr<graph::Graph> At(int64_t p) const;
  // True when `imported` (imported at `p`) equals At(p) dim for dim.
  absl::Status Verify(const graph::Graph& imported, int64_t p) const;

 private:
  struct Moving {
    int tensor;
    std::vector<int64_t> dims_slope;    // per dim
    std::vector<int64_t> values_slope;  // per folded value (may be empty)
    // Folded values whose count moves with p (a Range over the positions):
    // an arithmetic progression start, start + step, ... of NumElements().
    bool progression = false;
    int64_t start = 0, step = 0;
  };
  graph::Graph base_;
  int64_t p0_ = 0;
  std::vector<Moving> moving_;
};

struct ServeInputs {
  // Bound at N tokens and at the micro-batch: B requests, or B / M with M
  // micro-batches (below).
  const graph::Graph* prefill = nullptr;
  const graph::Graph* decode = nullptr;       // 1 new token, past N
  const graph::Graph* decode_next = nullptr;  // the same at past N + 1
  std::string decode_name;                    // for error messages
  Hardware hardware;
  AnalyzeOptions options;  // runtime, precision, ...; batch is set to B / M
  int64_t prompt = 0;      // N
  // M output tokens per request: the prefill yields the first, M - 1
  // decode steps the rest (the step after token k attends over N + k - 1
  // cached tokens), as vLLM's and TensorRT-LLM's benchmarks count them.
  int64_t generate = 0;     // M
  int64_t concurrency = 1;  // B
  // --tp / --pp: every analysis is sharded (engine/parallel/sharding.h);
  // memory is then one GPU's: its weights, KV / (tp x pp), activations.
  // With pp > 1 and microbatches M > 1 (M dividing B), the B requests are
  // decoded as M micro-batches of B / M kept in flight through the stages
  // (vLLM's and TensorRT-LLM's pipeline-parallel serving): the graphs are
  // bound at B / M; a decode step (one token for every request) takes
  // max(sum of the stages, M x the slowest stage) at B / M, and the TTFT is
  // the pipeline of the M prefills: sum + (M - 1) x slowest.
  ParallelOptions parallel;
  // Weight-only quantization of every analysis (--search's int8 and int4
  // rows): `weights` "int8" or "int4" (the other fields empty), priced as
  // the --weights what-if prices it (QuantizedRunOptions, engine/quantize.h):
  // the activations, the KV cache and the all-reduce messages stay as the
  // run prices them.
  QuantizeOptions quantize;
  // Decode steps analyzed in full (evenly spaced, both ends included); the
  // others are interpolated linearly. >= 2; M - 1 when that is smaller.
  int64_t samples = 33;
  // --usd-per-gpu-hour: the price of one GPU for an hour, US dollars; > 0
  // gives the cost per million output tokens.
  std::optional<double> usd_per_gpu_hour;
};

// Energy (engine/serve.cc): each GPU draws TDP x (0.3 + 0.7 x MFU) while a
// phase runs (mlsysim economics.py, anchors_2026.md 1.2: 30% static power,
// the rest in proportion to utilization), MFU being the analysis' per-GPU
// model FLOPs utilization; a phase's energy = GPUs x that power x its
// latency. Joules per output token = (prefill + every decode step) energy /
// (B x M): the prompt's energy is charged to the tokens it yields.
inline constexpr double kStaticPowerFraction = 0.3;

struct ServeMemory {
  double capacity_bytes = 0;
  double weight_bytes = 0;
  // (bytes_per_token x (N + M) + fixed_bytes_per_sequence) x B
  double kv_cache_bytes = 0;
  // Peak of the prefill at batch B, KV excluded; with the runtime's
  // prefill_chunk_tokens C below B x N prompt tokens, that of one chunk:
  // the batch's peak x C / (B x N) (activations scale with the tokens).
  double activation_bytes = 0;
  int64_t prefill_chunk_tokens = 0;  // the runtime's; 0: no chunking
  // kRuntimeReserveFraction x capacity, or with the runtime's
  // kv_cache_free_memory_fraction f, (1 - f) x (capacity - weights -
  // activations): what the KV cache leaves of the free memory.
  double reserve_bytes = 0;
  double reserve_fraction = 0;   // of the device or of the free memory
  bool reserve_of_free = false;  // true: of the free memory
  double total_bytes = 0;
  bool fits = false;
};

struct ServeStep {
  int64_t context = 0;  // tokens in the KV cache when the step starts
  double tpot_s = 0;
  double joules = 0;  // energy of the step, all GPUs
};

struct ServeEnergy {
  double tdp_w = 0;  // per GPU, from the hardware file (0: unknown)
  double prefill_j = 0;
  double decode_j = 0;          // the M - 1 steps
  double joules_per_token = 0;  // (prefill_j + decode_j) / (B x M)
  double mean_power_w = 0;      // per GPU over the request
  // With --usd-per-gpu-hour: GPUs x price x request latency / (B x M)
  // x 1e6.
  std::optional<double> usd_per_gpu_hour;
  double usd_per_million_tokens = 0;
};

struct ServeResult {
  int64_t prompt = 0, generate = 0, concurrency = 1;
  // Prefill analysis latency at batch B + per_request_s.
  double ttft_s = 0;
  double per_request_s = 0;  // the runtime's (Runtime::per_request_s)
  // Mean decode step over the M - 1 steps (M = 1: the step at N, which
  // the request does not run).
  double tpot_s = 0;
  std::vector<ServeStep> tpot_by_context;    // the analyzed steps
  double decode_s = 0;                       // sum of the M - 1 steps
  double request_latency_s = 0;              // ttft + decode
  double output_tokens_per_s = 0;            // per request: M / latency
  double aggregate_output_tokens_per_s = 0;  // B x M / latency
  KvCache kv;
  // An encoder-decoder's decoder: the TTFT is its first pass alone.
  EncoderSide encoder;
  ServeMemory memory;
  ServeEnergy energy;
  int64_t max_concurrency = 0;  // largest B that fits (0: not even one)
  int gpus = 1;                 // tp x pp; memory is per GPU when > 1
  ParallelOptions parallel;     // the layout (and micro-batches)
  std::string weights;          // "" (as the run prices them), int8, int4
  int analyses = 0;             // full Analyze() runs
};

// --search: serving configurations (GPUs x tensor/pipeline/expert parallel x
// concurrency x weight precision) against latency targets.
struct ServeExcluded {
  ParallelOptions parallel;
  std::string weights;      // "" (as the run prices them), int8, int4
  int64_t concurrency = 0;  // the first that does not fit; 0: none runs
  double memory_bytes = 0;  // per GPU at that concurrency (0: not analyzed)
  std::string reason;       // "weights 141 GB + KV cache ... > 85.9 GB", ...
};

struct ServeSearch {
  std::optional<double> ttft_max_s;  // --ttft-max (none: no limit)
  std::optional<double> tpot_max_s;  // --tpot-max
  int64_t samples = 2;               // decode steps analyzed per point
  std::string precision;             // the run's: "bf16", "model dtypes"
  // The weight precisions searched ("" = as the run prices them, then
  // "int8", "int4") and, for those left out, why.
  std::vector<std::string> weights;
  std::vector<std::string> weights_left_out;
  std::vector<ParallelOptions> layouts;  // tp x pp and ep searched
  int64_t max_concurrency = 4096;        // the largest concurrency tried
  std::vector<ServeResult> results;      // every configuration that fits
  // Configurations that do not fit (the smallest concurrency that does not:
  // larger ones need more memory) or cannot be sharded, with the reason.
  std::vector<ServeExcluded> excluded;
  int64_t analyses = 0;  // Analyze() runs (each sharded for every layout)
  // Configurations that fit, not dominated in (TPOT lower, output tokens/s
  // per GPU higher), by TPOT.
  std::vector<size_t> pareto;
  // The cheapest that fits and meets both targets: the most output tokens/s
  // per GPU (GPU-hours per token), fewer GPUs on a tie.
  std::optional<size_t> best;
};

// Aggregate output tokens/s per GPU.
double TokensPerGpu(const ServeResult& r);

// Fills `search->pareto` and `search->best` from its results.
void RankServeSearch(ServeSearch* search);

// The graphs one search point is analyzed from, bound at one (micro-)batch:
// the prefill at N tokens and the decoder at past N and N + 1.
struct ServeGraphs {
  graph::Graph prefill, decode, decode_next;
  std::string decode_name;
};
using ServeGraphsAt = std::function<absl::StatusOr<ServeGraphs>(int64_t)>;

struct ServeSearchInputs {
  // hardware, options, prompt, generate, usd_per_gpu_hour; the graphs,
  // concurrency, parallel and quantize are set per point.
  ServeInputs serve;
  std::optional<double> ttft_max_s, tpot_max_s;
  int64_t samples = 2;
  int64_t max_concurrency = 4096;
  // Weight precisions to try besides the run's (kept only where the model's
  // weights can be quantized and are wider); layouts: empty = SearchLayouts.
  std::vector<std::string> weights = {"int8", "int4"};
  std::vector<ParallelOptions> layouts;
};

// Tensor parallel 1, 2, 4, ... up to the GPUs of a node (pipeline 1), and
// pipeline parallel 2 and 4 with a whole node of tensor parallel per stage
// (stages across nodes: vLLM's multi-node layout), or the node split into
// the stages when the device has no network; for a mixture-of-experts model
// (`experts` > 0: the number every MoE layer's experts divide into), expert
// parallel 2, 4, ... up to the GPUs of a node where it divides `experts`;
// just {1, 1} on a device without interconnect data. Pipeline layouts decode
// pp micro-batches in flight.
std::vector<ParallelOptions> SearchLayouts(const Hardware& hardware,
                                           int64_t experts = 0);

// Every micro-batch b = 1, 2, 4, ... (graphs from `graphs_at(b)`, imported
// once each) is analyzed once per weight precision (prefill and `samples`
// decode steps) and each analysis sharded for every layout, at concurrency
// b x pp; a configuration is timed only while it fits (memory grows with
// the concurrency), and the search stops when none fits or the concurrency
// passes max_concurrency.
absl::StatusOr<ServeSearch> SearchServe(const ServeSearchInputs& inputs,
                                        const ServeGraphsAt& graphs_at);

// Errors: missing graphs, prompt < 1, generate < 1, concurrency < 1, no KV
// cache, a past-length dim that does not move affinely, analysis errors.
absl::StatusOr<ServeResult> AnalyzeServe(const ServeInputs& inputs);

// The decode steps of a request of `generate` output tokens (the prefill
// yields the first): generate - 1.
int64_t DecodeSteps(int64_t generate);

// The cache length of the last decode step analyzed: prompt + generate - 2
// (prompt when generate is 1 or 2: one step is analyzed even when the
// request runs none, for its TPOT and per-layer report).
int64_t LastDecodeContext(int64_t prompt, int64_t generate);

// Largest B with weights + reserve + B x per_request <= capacity.
int64_t MaxConcurrency(double capacity_bytes, double weight_bytes,
                       double reserve_bytes, double per_request_bytes);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_SERVE_H_
