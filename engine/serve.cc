// AnalyzeServe (engine/serve.h): TTFT, TPOT over the generation, memory and
// the largest concurrency that fits. Every second comes from Analyze().
#include "engine/serve.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "engine/activation_memory.h"
#include "engine/fusion.h"
#include "engine/moe.h"
#include "engine/parallel/transformer_blocks.h"
#include "engine/precision.h"
#include "engine/precision_pricer.h"
#include "engine/report/units.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

// Prices the activations the served prefill holds: the KV cache tensors at
// 0 bytes (they are counted as the cache), and the outputs of a node the
// runtime computes in part (`row_share`, LastPositionLogits: the logits of
// each request's last position) at that share of their rows.
class ServedActivationPricer : public TensorPricer {
 public:
  ServedActivationPricer(const TensorPricer& base,
                         const absl::flat_hash_map<int, double>& row_share)
      : base_(base), row_share_(row_share) {}
  double ElementBytes(const graph::Graph& graph,
                      const graph::Tensor& tensor) const override {
    if (IsKvCacheTensor(tensor)) return 0.0;
    const double bytes = base_.ElementBytes(graph, tensor);
    auto it = row_share_.find(tensor.producer);
    return it == row_share_.end() ? bytes : bytes * it->second;
  }

 private:
  const TensorPricer& base_;
  const absl::flat_hash_map<int, double>& row_share_;
};

// Peak activations of `graph` with the KV tensors excluded, and those that
// stay inside one of the runtime's fused kernels (flash attention's
// scores, epilogues) left out, as Analyze counts them; the outputs of the
// nodes of `row_share` at their share.
absl::StatusOr<double> ActivationBytes(
    const graph::Graph& graph, const TensorPricer& pricer,
    const CounterRegistry& registry, const Runtime* runtime,
    const absl::flat_hash_map<int, double>& row_share) {
  std::vector<bool> is_view(graph.nodes().size(), false);
  for (int n : graph.topological_order()) {
    absl::StatusOr<Cost> cost = registry.Count(graph, n, pricer);
    if (cost.ok()) is_view[n] = cost->view;
  }
  std::vector<int> fused_group_of;
  if (runtime != nullptr && runtime->fusion.any()) {
    absl::StatusOr<FusionPlan> plan = PlanFusion(graph, runtime->fusion);
    if (!plan.ok()) return plan.status();
    fused_group_of = std::move(plan->group_of);
  }
  return PeakActivationBytes(
      graph, ServedActivationPricer(pricer, row_share), is_view,
      fused_group_of.empty() ? nullptr : &fused_group_of);
}

// The decode steps analyzed in full: `samples` evenly spaced steps of
// 0..count-1, both ends included.
std::vector<int64_t> SampleSteps(int64_t count, int64_t samples) {
  const int64_t k = std::clamp<int64_t>(samples, 2, count);
  std::vector<int64_t> steps;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t s =
        k == 1 ? 0
               : static_cast<int64_t>(std::llround(
                     static_cast<double>(i) * static_cast<double>(count - 1) /
                     static_cast<double>(k - 1)));
    if (steps.empty() || steps.back() != s) steps.push_back(s);
  }
  return steps;
}

// The sum over every step of the linear interpolation between the samples
// of `field` (the step time, its energy).
double SumInterpolated(const std::vector<ServeStep>& samples,
                       double ServeStep::*field = &ServeStep::tpot_s) {
  double sum = samples.back().*field;
  for (size_t i = 0; i + 1 < samples.size(); ++i) {
    const double n =
        static_cast<double>(samples[i + 1].context - samples[i].context);
    const double a = samples[i].*field;
    const double b = samples[i + 1].*field;
    sum += n * a + (b - a) * (n - 1) / 2;
  }
  return sum;
}

}  // namespace

int64_t DecodeSteps(int64_t generate) {
  return std::max<int64_t>(0, generate - 1);
}

int64_t LastDecodeContext(int64_t prompt, int64_t generate) {
  return prompt + std::max<int64_t>(1, DecodeSteps(generate)) - 1;
}

double TokensPerGpu(const ServeResult& r) {
  return r.gpus > 0 ? r.aggregate_output_tokens_per_s / r.gpus : 0;
}

void RankServeSearch(ServeSearch* s) {
  s->pareto.clear();
  s->best.reset();
  const std::vector<ServeResult>& rs = s->results;
  for (size_t i = 0; i < rs.size(); ++i) {
    if (!rs[i].memory.fits) continue;
    bool dominated = false;
    for (size_t j = 0; j < rs.size() && !dominated; ++j) {
      if (j == i || !rs[j].memory.fits) continue;
      const bool no_worse = rs[j].tpot_s <= rs[i].tpot_s &&
                            TokensPerGpu(rs[j]) >= TokensPerGpu(rs[i]);
      const bool better = rs[j].tpot_s < rs[i].tpot_s ||
                          TokensPerGpu(rs[j]) > TokensPerGpu(rs[i]);
      dominated = no_worse && better;
    }
    if (!dominated) s->pareto.push_back(i);
    const bool meets = (!s->ttft_max_s || rs[i].ttft_s <= *s->ttft_max_s) &&
                       (!s->tpot_max_s || rs[i].tpot_s <= *s->tpot_max_s);
    if (!meets) continue;
    if (!s->best || TokensPerGpu(rs[i]) > TokensPerGpu(rs[*s->best]) ||
        (TokensPerGpu(rs[i]) == TokensPerGpu(rs[*s->best]) &&
         rs[i].gpus < rs[*s->best].gpus)) {
      s->best = i;
    }
  }
  std::sort(s->pareto.begin(), s->pareto.end(),
            [&](size_t a, size_t b) { return rs[a].tpot_s < rs[b].tpot_s; });
}

namespace {

// What one serving analysis is made of, prepared once for every pricing and
// layout: the sampled decode steps rebound, the KV cache, the activations.
// The kernels a layout's analysis is planned as: one GPU's, or around the
// collectives of tensor parallelism or the all-to-alls of expert
// parallelism (tp and ep are not combined).
enum class KernelPlan { kOneGpu = 0, kTensorParallel = 1, kExpertParallel = 2 };
constexpr int kKernelPlans = 3;

struct Prepared {
  const TensorPricer* pricer = nullptr;  // the run's (points into `own`)
  TensorPricer dtype_pricer;
  std::optional<FloatRepricer> repricer;
  KvCache kv;
  std::vector<int64_t> contexts;             // the sampled steps' cache lengths
  std::vector<graph::Graph> steps;           // the decoder rebound at each
  double activation_bytes = 0;               // prefill peak at the micro-batch
  int64_t prefill_chunk_tokens = 0;          // the runtime's (0: none)
  double kv_cache_free_memory_fraction = 0;  // the runtime's (0: none)
  // The prefill's rows a runtime leaves out (LastPositionLogits).
  absl::flat_hash_map<int, double> prefill_row_share;
  // When some layout spans several GPUs: what ShardAnalysis reads of the
  // prefill's and the decoder's structure (one for every step: the steps
  // are copies of one graph with other dims).
  std::optional<ShardingStructure> prefill_structure, step_structure;
  // Each kernel plan's fusion barriers in the prefill and in the decoder,
  // indexed by KernelPlan: none for one GPU; the tensors tensor
  // parallelism's collectives sit on (CollectiveBarriers); those of expert
  // parallelism's all-to-alls (ExpertParallelBarriers; empty without MoE
  // layers).
  std::vector<int> prefill_barriers[kKernelPlans], step_barriers[kKernelPlans];
};

KernelPlan PlanOf(const ParallelOptions& p) {
  if (p.tp > 1) return KernelPlan::kTensorParallel;
  if (p.ep > 1) return KernelPlan::kExpertParallel;
  return KernelPlan::kOneGpu;
}

int Microbatches(const ParallelOptions& p) {
  return p.pp > 1 ? std::max(1, p.microbatches) : 1;
}

absl::Status CheckInputs(const ServeInputs& in) {
  if (in.prefill == nullptr || in.decode == nullptr ||
      in.decode_next == nullptr) {
    return absl::InvalidArgumentError("--serve needs a prefill and a decoder");
  }
  if (in.prompt < 1 || in.generate < 1 || in.concurrency < 1) {
    return absl::InvalidArgumentError(fmt::format(
        "--serve: --prompt ({}), --generate ({}) and --concurrency ({}) must "
        "be >= 1",
        in.prompt, in.generate, in.concurrency));
  }
  if (in.usd_per_gpu_hour &&
      !(*in.usd_per_gpu_hour > 0 && std::isfinite(*in.usd_per_gpu_hour))) {
    return absl::InvalidArgumentError(
        fmt::format("--serve: --usd-per-gpu-hour {} must be a price > 0",
                    *in.usd_per_gpu_hour));
  }
  const int m = Microbatches(in.parallel);
  if (in.concurrency % m != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "--serve: --microbatches {} must divide --concurrency {} (the "
        "requests are decoded as {} micro-batches of equal size)",
        m, in.concurrency, m));
  }
  const QuantizeOptions& q = in.quantize;
  if (!q.activations.empty() || !q.kv_cache.empty() ||
      (!q.weights.empty() && q.weights != "int8" && q.weights != "int4")) {
    return absl::InvalidArgumentError(
        fmt::format("--serve quantizes weights only, to int8 or int4 (got {})",
                    QuantizeOptionsName(q)));
  }
  return absl::OkStatus();
}

// Under a runtime with prefill_last_position_logits: the LM head of the
// prefill (FindTransformerBlocks' weight MatMul writing a graph output) ->
// 1 / the prompt positions its logits hold ([batch, positions, vocabulary]),
// the share of its rows the runtime computes. Empty when no LM head is
// found or its logits hold one position per request. `found`: the
// prefill's blocks when the caller has them (a sharded run's structure),
// else they are looked up here.
absl::flat_hash_map<int, double> LastPositionLogits(
    const graph::Graph& prefill, const TransformerBlocks* found) {
  std::optional<TransformerBlocks> own;
  if (found == nullptr) {
    absl::StatusOr<TransformerBlocks> blocks = FindTransformerBlocks(prefill);
    if (!blocks.ok()) return {};
    own = *std::move(blocks);
    found = &*own;
  }
  const int head = found->lm_head;
  if (head < 0) return {};
  const int logits = prefill.node(head).Output(0);
  if (logits < 0) return {};
  const graph::Tensor& t = prefill.tensor(logits);
  if (!t.shape_known || t.dims.size() < 3) return {};
  const int64_t positions = t.dims[t.dims.size() - 2];
  if (positions <= 1) return {};
  return {{head, 1.0 / static_cast<double>(positions)}};
}

// `sharded`: some layout spans several GPUs.
absl::Status Prepare(const ServeInputs& in, bool sharded, Prepared* p) {
  if (absl::Status s = CheckInputs(in); !s.ok()) return s;
  p->pricer = &p->dtype_pricer;
  if (!in.options.precision.empty()) {
    const Precision* precision = FindPrecision(in.options.precision);
    if (precision == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("unknown precision '{}'", in.options.precision));
    }
    p->repricer.emplace(*precision);
    p->pricer = &*p->repricer;
  }
  if (in.options.pricer != nullptr) p->pricer = in.options.pricer;
  absl::StatusOr<KvCache> kv =
      FindKvCache(*in.decode, in.prompt, *p->pricer, in.decode_next);
  if (!kv.ok()) {
    return absl::Status(kv.status().code(),
                        fmt::format("{}: {}", in.decode_name,
                                    std::string(kv.status().message())));
  }
  p->kv = *std::move(kv);
  absl::StatusOr<PastRebinder> rebind =
      PastRebinder::Create(*in.decode, *in.decode_next, in.prompt);
  if (!rebind.ok()) return rebind.status();
  const int64_t analyzed = std::max<int64_t>(1, DecodeSteps(in.generate));
  for (int64_t step : SampleSteps(analyzed, in.samples)) {
    absl::StatusOr<graph::Graph> g = rebind->At(in.prompt + step);
    if (!g.ok()) return g.status();
    p->contexts.push_back(in.prompt + step);
    p->steps.push_back(*std::move(g));
  }
  const CounterRegistry& registry = in.options.registry != nullptr
                                        ? *in.options.registry
                                        : CounterRegistry::Default();
  if (sharded) {
    absl::StatusOr<ShardingStructure> pre = FindShardingStructure(*in.prefill);
    if (!pre.ok()) return pre.status();
    p->prefill_structure = *std::move(pre);
    absl::StatusOr<ShardingStructure> step =
        FindShardingStructure(p->steps.front());
    if (!step.ok()) return step.status();
    p->step_structure = *std::move(step);
    absl::StatusOr<std::vector<int>> pre_barriers = CollectiveBarriers(
        *in.prefill, in.options.runtime, &*p->prefill_structure);
    if (!pre_barriers.ok()) return pre_barriers.status();
    constexpr int kTp = static_cast<int>(KernelPlan::kTensorParallel);
    constexpr int kEp = static_cast<int>(KernelPlan::kExpertParallel);
    p->prefill_barriers[kTp] = *std::move(pre_barriers);
    absl::StatusOr<std::vector<int>> step_barriers = CollectiveBarriers(
        p->steps.front(), in.options.runtime, &*p->step_structure);
    if (!step_barriers.ok()) return step_barriers.status();
    p->step_barriers[kTp] = *std::move(step_barriers);
    p->prefill_barriers[kEp] = ExpertParallelBarriers(*in.prefill);
    p->step_barriers[kEp] = ExpertParallelBarriers(p->steps.front());
  }
  // After the sharded structure: the LM head is found once.
  if (in.options.runtime != nullptr) {
    p->prefill_chunk_tokens = in.options.runtime->prefill_chunk_tokens;
    p->kv_cache_free_memory_fraction =
        in.options.runtime->kv_cache_free_memory_fraction;
    if (in.options.runtime->prefill_last_position_logits) {
      p->prefill_row_share = LastPositionLogits(
          *in.prefill,
          p->prefill_structure ? &p->prefill_structure->blocks : nullptr);
    }
  }
  absl::StatusOr<double> act =
      ActivationBytes(*in.prefill, *p->pricer, registry, in.options.runtime,
                      p->prefill_row_share);
  if (!act.ok()) return act.status();
  p->activation_bytes = *act;
  return absl::OkStatus();
}

// The unsharded analyses of the prefill and of every sampled step at one
// pricing (the run's, or its weights quantized).
struct Phases {
  Analysis prefill;
  std::vector<Analysis> steps;
};

// `peak_before`: the peak key of the run's own analysis (needed to quantize;
// found by analyzing the prefill as the run prices it when empty).
// `lean`: the layers' tensor descriptions are left out (a search copies each
// analysis once per layout; no figure reads them). `plan`: for layouts
// with tp > 1 or ep > 1 the kernels are planned around the collectives (the
// Prepared barriers; Prepare with `sharded`).
absl::StatusOr<Phases> AnalyzePhases(const ServeInputs& in, const Prepared& p,
                                     std::string peak_before, bool lean,
                                     KernelPlan plan) {
  AnalyzeOptions opts = in.options;
  opts.batch = in.concurrency / Microbatches(in.parallel);
  opts.fusion_barriers.clear();
  opts.describe_tensors = !lean;
  const bool quantized = !in.quantize.weights.empty();
  if (quantized) {
    if (absl::Status s = ValidateQuantizeOptions(*in.decode, in.quantize);
        !s.ok()) {
      return s;
    }
    if (peak_before.empty()) {
      absl::StatusOr<Analysis> stored = Analyze(*in.prefill, in.hardware, opts);
      if (!stored.ok()) return stored.status();
      peak_before = stored->assumptions.peak_precision;
    }
  }
  auto analyze = [&](const graph::Graph& g) -> absl::StatusOr<Analysis> {
    if (!quantized) return Analyze(g, in.hardware, opts);
    absl::StatusOr<QuantizedRun> run =
        QuantizedRunOptions(g, in.hardware, opts, in.quantize, peak_before);
    if (!run.ok()) return run.status();
    return Analyze(g, in.hardware, run->options);  // run->pricer held
  };
  Phases out;
  const int k = static_cast<int>(plan);
  opts.fusion_barriers = p.prefill_barriers[k];
  opts.row_share = p.prefill_row_share;
  absl::StatusOr<Analysis> prefill = analyze(*in.prefill);
  if (!prefill.ok()) return prefill.status();
  out.prefill = *std::move(prefill);
  opts.fusion_barriers = p.step_barriers[k];
  opts.row_share.clear();
  for (const graph::Graph& g : p.steps) {
    absl::StatusOr<Analysis> a = analyze(g);
    if (!a.ok()) return a.status();
    out.steps.push_back(*std::move(a));
  }
  return out;
}

// What a serving result takes from one analysis, sharded for the layout.
struct Phase {
  double latency_s = 0;     // one micro-batch through every stage
  double pipeline_s = 0;    // M micro-batches: sum + (M - 1) x slowest
  double slowest_s = 0;     // the slowest stage
  double mfu = 0;           // per GPU, one micro-batch
  double weight_bytes = 0;  // per GPU
};

Phase PhaseOf(const Analysis& a) {
  Phase p;
  p.latency_s = a.summary.latency_s;
  p.pipeline_s = a.summary.latency_s;
  p.slowest_s = a.summary.latency_s;
  p.mfu = a.summary.mfu;
  p.weight_bytes = a.summary.weight_bytes;
  if (const std::optional<ParallelSummary>& ps = a.summary.parallel) {
    p.pipeline_s = ps->pipeline_latency_s;
    p.slowest_s = ps->stage_latency_s.empty()
                      ? a.summary.latency_s
                      : *std::max_element(ps->stage_latency_s.begin(),
                                          ps->stage_latency_s.end());
    p.weight_bytes = ps->weight_bytes_per_gpu;
  }
  return p;
}

// `a` as the layout runs it: itself on one GPU, else sharded (a copy, or
// `a` itself moved when `consume`).
absl::StatusOr<Phase> ShardPhase(const graph::Graph& graph, Analysis* a,
                                 const ParallelOptions& parallel,
                                 const std::optional<ShardingStructure>& st,
                                 bool consume) {
  if (parallel.gpus() <= 1) return PhaseOf(*a);
  const ShardingStructure* structure = st ? &*st : nullptr;
  absl::StatusOr<Analysis> s =
      consume ? ShardAnalysis(graph, std::move(*a), parallel, structure)
              : ShardAnalysis(graph, *a, parallel, structure);
  if (!s.ok()) return s.status();
  return PhaseOf(*s);
}

// Memory of one GPU at `in.concurrency` with `weight_bytes` of weights on
// it, and the largest concurrency that fits.
void MemoryOf(const ServeInputs& in, const Prepared& p, double weight_bytes,
              ServeMemory* m, int64_t* max_concurrency) {
  const double gpus = in.parallel.gpus();
  const double micro = static_cast<double>(in.concurrency) /
                       static_cast<double>(Microbatches(in.parallel));
  m->capacity_bytes = in.hardware.memory_capacity_bytes;
  m->weight_bytes = weight_bytes;
  const double kv_per_request =
      (p.kv.bytes_per_token * static_cast<double>(in.prompt + in.generate) +
       p.kv.fixed_bytes_per_sequence) /
      gpus;
  m->kv_cache_bytes = kv_per_request * static_cast<double>(in.concurrency);
  // One request's prompt's activations, and one prefill chunk's (the
  // activations scale with the tokens; no chunk without chunking).
  const double per_request_activation = p.activation_bytes / micro;
  const double prompt = static_cast<double>(in.prompt);
  const double chunk = static_cast<double>(p.prefill_chunk_tokens);
  const bool chunked = chunk > 0;
  const double chunk_activation = per_request_activation * chunk / prompt;
  m->prefill_chunk_tokens = p.prefill_chunk_tokens;
  m->activation_bytes =
      chunked && micro * prompt > chunk ? chunk_activation : p.activation_bytes;
  // The reserve: a fraction of the device, or what the runtime's KV cache
  // leaves of the memory free after the weights and `activations`.
  const double free_fraction = p.kv_cache_free_memory_fraction;
  m->reserve_of_free = free_fraction > 0;
  m->reserve_fraction =
      m->reserve_of_free ? 1 - free_fraction : kRuntimeReserveFraction;
  auto reserve = [&](double activations) {
    return m->reserve_of_free
               ? m->reserve_fraction *
                     std::max(0.0,
                              m->capacity_bytes - m->weight_bytes - activations)
               : m->reserve_fraction * m->capacity_bytes;
  };
  m->reserve_bytes = reserve(m->activation_bytes);
  m->total_bytes = m->weight_bytes + m->kv_cache_bytes + m->activation_bytes +
                   m->reserve_bytes;
  m->fits = m->total_bytes <= m->capacity_bytes;
  // Below one chunk of prompts each request brings its activations; above
  // it the chunk's activations are fixed and each request brings its KV.
  *max_concurrency =
      MaxConcurrency(m->capacity_bytes, m->weight_bytes, reserve(0),
                     kv_per_request + per_request_activation);
  if (chunked && static_cast<double>(*max_concurrency) * prompt > chunk) {
    *max_concurrency =
        MaxConcurrency(m->capacity_bytes, m->weight_bytes + chunk_activation,
                       reserve(chunk_activation), kv_per_request);
  }
}

// Shards the phases for `in.parallel` and builds the result (`phases`
// moved from when `consume`).
absl::StatusOr<ServeResult> Combine(const ServeInputs& in, const Prepared& p,
                                    Phases* phases, bool consume) {
  ServeResult r;
  r.prompt = in.prompt;
  r.generate = in.generate;
  r.concurrency = in.concurrency;
  r.kv = p.kv;
  r.encoder = FindEncoderSide(*in.prefill, *in.decode, p.kv);
  r.gpus = in.parallel.gpus();
  r.parallel = in.parallel;
  r.parallel.microbatches = Microbatches(in.parallel);
  r.weights = in.quantize.weights;
  const double m = r.parallel.microbatches;
  const double tdp = in.hardware.tdp_w;
  // Energy of a phase that takes `seconds`, all GPUs: static power for the
  // whole phase, the rest for the work of the M micro-batches
  // (TDP x (0.3 + 0.7 x MFU) x latency when M = 1).
  auto joules = [&](const Phase& ph, double seconds) {
    return r.gpus * tdp *
           (kStaticPowerFraction * seconds +
            (1 - kStaticPowerFraction) * m * ph.mfu * ph.latency_s);
  };
  r.energy.tdp_w = tdp;
  absl::StatusOr<Phase> prefill = ShardPhase(
      *in.prefill, &phases->prefill, r.parallel, p.prefill_structure, consume);
  if (!prefill.ok()) return prefill.status();
  r.analyses = 1 + static_cast<int>(p.steps.size());
  r.per_request_s =
      in.options.runtime != nullptr ? in.options.runtime->per_request_s : 0;
  r.ttft_s =
      (m > 1 ? prefill->pipeline_s : prefill->latency_s) + r.per_request_s;
  r.energy.prefill_j = joules(*prefill, r.ttft_s);
  double weight_bytes = 0;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    absl::StatusOr<Phase> step = ShardPhase(
        p.steps[i], &phases->steps[i], r.parallel, p.step_structure, consume);
    if (!step.ok()) return step.status();
    if (i == 0) weight_bytes = step->weight_bytes;
    // M micro-batches in flight: each stage runs them in turn, and a
    // micro-batch's next token starts when its last one leaves the last
    // stage.
    const double t = std::max(step->latency_s, m * step->slowest_s);
    r.tpot_by_context.push_back({p.contexts[i], t, joules(*step, t)});
  }
  // M - 1 decode steps; with M = 1 none runs and the TPOT is the step at N.
  const int64_t steps = DecodeSteps(in.generate);
  const double interpolated = SumInterpolated(r.tpot_by_context);
  r.decode_s = steps > 0 ? interpolated : 0;
  r.tpot_s = steps > 0 ? interpolated / static_cast<double>(steps)
                       : r.tpot_by_context.front().tpot_s;
  r.request_latency_s = r.ttft_s + r.decode_s;
  r.output_tokens_per_s =
      static_cast<double>(in.generate) / r.request_latency_s;
  r.aggregate_output_tokens_per_s =
      r.output_tokens_per_s * static_cast<double>(in.concurrency);
  const double tokens =
      static_cast<double>(in.concurrency) * static_cast<double>(in.generate);
  ServeEnergy& e = r.energy;
  e.decode_j =
      steps > 0 ? SumInterpolated(r.tpot_by_context, &ServeStep::joules) : 0;
  e.joules_per_token = (e.prefill_j + e.decode_j) / tokens;
  e.mean_power_w = (e.prefill_j + e.decode_j) / (r.gpus * r.request_latency_s);
  e.usd_per_gpu_hour = in.usd_per_gpu_hour;
  if (in.usd_per_gpu_hour) {
    e.usd_per_million_tokens = r.gpus * *in.usd_per_gpu_hour / 3600.0 *
                               r.request_latency_s / tokens * 1e6;
  }
  MemoryOf(in, p, weight_bytes, &r.memory, &r.max_concurrency);
  return r;
}

}  // namespace

absl::StatusOr<ServeResult> AnalyzeServe(const ServeInputs& in) {
  Prepared p;
  if (absl::Status s = Prepare(in, in.parallel.gpus() > 1, &p); !s.ok()) {
    return s;
  }
  absl::StatusOr<Phases> phases =
      AnalyzePhases(in, p, "", /*lean=*/false, PlanOf(in.parallel));
  if (!phases.ok()) return phases.status();
  return Combine(in, p, &*phases, /*consume=*/true);
}

std::vector<ParallelOptions> SearchLayouts(const Hardware& hardware,
                                           int64_t experts) {
  const Interconnect& ic = hardware.interconnect;
  if (!ic.present()) return {ParallelOptions{}};
  std::vector<ParallelOptions> out;
  for (int tp = 1; tp <= ic.gpus_per_node; tp *= 2) {
    ParallelOptions p;
    p.tp = tp;
    out.push_back(p);
  }
  // Pipeline stages of a whole node each, across nodes (tensor parallel in
  // the node, pipeline across: vLLM's multi-node layout); in one node when
  // the device has no network.
  for (int pp : {2, 4}) {
    ParallelOptions p;
    p.pp = pp;
    p.microbatches = pp;
    p.tp = ic.has_network() ? ic.gpus_per_node : ic.gpus_per_node / pp;
    if (p.tp >= 1 && p.tp * pp >= 2) out.push_back(p);
  }
  // Expert parallel over 2, 4, ... GPUs of a node, where it divides the
  // experts (data-parallel attention; --ep).
  for (int ep = 2; experts > 0 && ep <= ic.gpus_per_node; ep *= 2) {
    if (experts % ep != 0) continue;
    ParallelOptions p;
    p.ep = ep;
    out.push_back(p);
  }
  return out;
}

namespace {

// The experts every MoE layer of the decoder divides into (their gcd; 0
// without MoE layers): what expert-parallel layouts must divide.
int64_t SearchExperts(const graph::Graph& decoder) {
  int64_t experts = 0;
  for (const MoeLayer& layer : FindMoeLayers(decoder)) {
    experts = std::gcd(experts, layer.experts);
  }
  return experts;
}

std::string MemoryReason(const ServeMemory& m) {
  return fmt::format(
      "{} per GPU > {}: weights {} + KV cache {} + activations {} + reserve "
      "{}",
      report::FormatSi(m.total_bytes, "B"),
      report::FormatSi(m.capacity_bytes, "B"),
      report::FormatSi(m.weight_bytes, "B"),
      report::FormatSi(m.kv_cache_bytes, "B"),
      report::FormatSi(m.activation_bytes, "B"),
      report::FormatSi(m.reserve_bytes, "B"));
}

// Bytes per parameter of an analysis' weights.
double BytesPerParam(const Analysis& a) {
  return a.summary.params > 0
             ? a.summary.weight_bytes / static_cast<double>(a.summary.params)
             : 0;
}

}  // namespace

absl::StatusOr<ServeSearch> SearchServe(const ServeSearchInputs& in,
                                        const ServeGraphsAt& graphs_at) {
  ServeSearch s;
  s.ttft_max_s = in.ttft_max_s;
  s.tpot_max_s = in.tpot_max_s;
  s.samples = in.samples;
  s.max_concurrency = in.max_concurrency;
  s.precision = in.serve.options.precision.empty() ? "model dtypes"
                                                   : in.serve.options.precision;
  // The graphs at micro-batch 1 first: the layouts depend on the experts.
  absl::StatusOr<ServeGraphs> first_graphs = graphs_at(1);
  if (!first_graphs.ok()) return first_graphs.status();
  s.layouts = in.layouts.empty()
                  ? SearchLayouts(in.serve.hardware,
                                  SearchExperts(first_graphs->decode))
                  : in.layouts;
  // A configuration: weight precision x layout; alive while it fits.
  struct Config {
    std::string weights;
    ParallelOptions parallel;
    bool alive = true;
    std::optional<double> weight_bytes;  // per GPU, once known
  };
  std::vector<Config> configs;
  // `run` below points into it while it grows: no reallocation.
  configs.reserve((1 + in.weights.size()) * s.layouts.size());
  auto add_configs = [&](const std::string& w) {
    s.weights.push_back(w);
    for (const ParallelOptions& p : s.layouts) configs.push_back({w, p});
  };
  add_configs("");
  auto exclude = [&](Config& c, int64_t concurrency, double memory,
                     std::string reason) {
    c.alive = false;
    s.excluded.push_back(
        {c.parallel, c.weights, concurrency, memory, std::move(reason)});
  };
  std::string peak_before;
  bool weights_chosen = false;
  for (int64_t b = 1;; b *= 2) {
    bool any = false;
    for (const Config& c : configs) {
      any |= c.alive && b * c.parallel.pp <= in.max_concurrency;
    }
    if (!any && weights_chosen) break;
    absl::StatusOr<ServeGraphs> graphs =
        b == 1 ? std::move(first_graphs) : graphs_at(b);
    if (!graphs.ok()) return graphs.status();
    ServeInputs base = in.serve;
    base.prefill = &graphs->prefill;
    base.decode = &graphs->decode;
    base.decode_next = &graphs->decode_next;
    base.decode_name = graphs->decode_name;
    base.concurrency = b;
    base.parallel = {};
    base.quantize = {};
    base.samples = in.samples;
    bool sharded = false;
    for (const ParallelOptions& l : s.layouts) sharded |= l.gpus() > 1;
    Prepared prepared;
    if (absl::Status st = Prepare(base, sharded, &prepared); !st.ok()) {
      return st;
    }
    for (size_t wi = 0; wi < s.weights.size(); ++wi) {
      const std::string w = s.weights[wi];
      ServeInputs at = base;
      at.quantize.weights = w;
      at.quantize.int4_group_size = in.serve.quantize.int4_group_size;
      // Memory first, where the weights per GPU are known: what does not
      // fit is not timed.
      std::vector<Config*> run;
      for (Config& c : configs) {
        if (c.weights != w || !c.alive) continue;
        const int64_t concurrency = b * c.parallel.pp;
        if (concurrency > in.max_concurrency) continue;
        if (c.weight_bytes) {
          ServeInputs ci = at;
          ci.parallel = c.parallel;
          ci.concurrency = concurrency;
          ServeMemory m;
          int64_t unused = 0;
          MemoryOf(ci, prepared, *c.weight_bytes, &m, &unused);
          if (!m.fits) {
            exclude(c, concurrency, m.total_bytes, MemoryReason(m));
            continue;
          }
        }
        run.push_back(&c);
      }
      if (run.empty() && (wi > 0 || weights_chosen)) continue;
      // The analyses of each kernel plan (KernelPlan: one GPU's, around
      // tensor parallelism's collectives, around expert parallelism's
      // all-to-alls), each made when a layout needs it; the last layout
      // using one consumes it.
      std::optional<Phases> plans[kKernelPlans];
      size_t last_of[kKernelPlans] = {0, 0, 0};
      bool needed[kKernelPlans] = {run.empty(), false, false};
      for (size_t i = 0; i < run.size(); ++i) {
        const int k = static_cast<int>(PlanOf(run[i]->parallel));
        needed[k] = true;
        last_of[k] = i;
      }
      const Phases* first = nullptr;
      for (int k = 0; k < kKernelPlans; ++k) {
        if (!needed[k]) continue;
        absl::StatusOr<Phases> phases =
            AnalyzePhases(at, prepared, peak_before, /*lean=*/true,
                          static_cast<KernelPlan>(k));
        if (!phases.ok()) return phases.status();
        s.analyses += 1 + static_cast<int64_t>(phases->steps.size());
        plans[k] = *std::move(phases);
        if (first == nullptr) first = &*plans[k];
      }
      if (w.empty() && !weights_chosen) {
        // The weight precisions worth searching: narrower than the run's,
        // on a model that is not quantized already.
        weights_chosen = true;
        peak_before = first->prefill.assumptions.peak_precision;
        const double bytes = BytesPerParam(first->steps.front());
        for (const std::string& q : in.weights) {
          QuantizeOptions qo;
          qo.weights = q;
          qo.int4_group_size = in.serve.quantize.int4_group_size;
          const double q_bytes = q == "int4" ? 0.5 : 1.0;
          if (absl::Status v = ValidateQuantizeOptions(graphs->decode, qo);
              !v.ok()) {
            s.weights_left_out.push_back(
                fmt::format("{}: {}", q, std::string(v.message())));
          } else if (bytes <= q_bytes) {
            s.weights_left_out.push_back(fmt::format(
                "{}: the run's weights are {:.3g} bytes per parameter already",
                q, bytes));
          } else {
            add_configs(q);
          }
        }
      }
      for (size_t i = 0; i < run.size(); ++i) {
        Config& c = *run[i];
        const int k = static_cast<int>(PlanOf(c.parallel));
        Phases* phases = &*plans[k];
        ServeInputs ci = at;
        ci.parallel = c.parallel;
        ci.concurrency = b * c.parallel.pp;
        if (!c.weight_bytes) {
          // The weights per GPU (one sharded step), then memory.
          absl::StatusOr<Phase> step = ShardPhase(
              prepared.steps.front(), &phases->steps.front(), c.parallel,
              prepared.step_structure, /*consume=*/false);
          if (!step.ok()) {
            exclude(c, 0, 0, std::string(step.status().message()));
            continue;
          }
          c.weight_bytes = step->weight_bytes;
          ServeMemory m;
          int64_t unused = 0;
          MemoryOf(ci, prepared, *c.weight_bytes, &m, &unused);
          if (!m.fits) {
            exclude(c, ci.concurrency, m.total_bytes, MemoryReason(m));
            continue;
          }
        }
        absl::StatusOr<ServeResult> r =
            Combine(ci, prepared, phases, /*consume=*/i == last_of[k]);
        if (!r.ok()) {
          exclude(c, 0, 0, std::string(r.status().message()));
          continue;
        }
        s.results.push_back(*std::move(r));
      }
    }
  }
  RankServeSearch(&s);
  return s;
}

int64_t MaxConcurrency(double capacity_bytes, double weight_bytes,
                       double reserve_bytes, double per_request_bytes) {
  const double free_bytes = capacity_bytes - weight_bytes - reserve_bytes;
  if (free_bytes <= 0 || per_request_bytes <= 0) return 0;
  return static_cast<int64_t>(std::floor(free_bytes / per_request_bytes));
}

}  // namespace ridgeline::engine
