// AnalyzeServe (engine/serve.h): TTFT, TPOT over the generation, memory and
// the largest concurrency that fits. Every second comes from Analyze().
#include "engine/serve.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "engine/activation_memory.h"
#include "engine/precision.h"
#include "engine/precision_pricer.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

// Prices the KV cache tensors at 0 bytes: they are counted as the cache.
class KvFreePricer : public TensorPricer {
 public:
  explicit KvFreePricer(const TensorPricer& base) : base_(base) {}
  double ElementBytes(const graph::Graph& graph,
                      const graph::Tensor& tensor) const override {
    return IsKvCacheTensor(tensor) ? 0.0 : base_.ElementBytes(graph, tensor);
  }

 private:
  const TensorPricer& base_;
};

// Peak activations of `graph` with the KV tensors excluded.
absl::StatusOr<double> ActivationBytes(const graph::Graph& graph,
                                       const TensorPricer& pricer,
                                       const CounterRegistry& registry) {
  std::vector<bool> is_view(graph.nodes().size(), false);
  for (int n : graph.topological_order()) {
    absl::StatusOr<Cost> cost = registry.Count(graph, n, pricer);
    if (cost.ok()) is_view[n] = cost->view;
  }
  return PeakActivationBytes(graph, KvFreePricer(pricer), is_view);
}

// The decode steps analyzed in full: `samples` evenly spaced steps of
// 0..generate-1, both ends included.
std::vector<int64_t> SampleSteps(int64_t generate, int64_t samples) {
  const int64_t k = std::clamp<int64_t>(samples, 2, generate);
  std::vector<int64_t> steps;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t s =
        k == 1
            ? 0
            : static_cast<int64_t>(std::llround(
                  static_cast<double>(i) * static_cast<double>(generate - 1) /
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

int64_t MaxConcurrency(double capacity_bytes, double weight_bytes,
                       double reserve_bytes, double per_request_bytes) {
  const double free_bytes = capacity_bytes - weight_bytes - reserve_bytes;
  if (free_bytes <= 0 || per_request_bytes <= 0) return 0;
  return static_cast<int64_t>(std::floor(free_bytes / per_request_bytes));
}

absl::StatusOr<ServeResult> AnalyzeServe(const ServeInputs& in) {
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
  TensorPricer dtype_pricer;
  std::optional<FloatRepricer> repricer;
  const TensorPricer* pricer = &dtype_pricer;
  if (!in.options.precision.empty()) {
    const Precision* p = FindPrecision(in.options.precision);
    if (p == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("unknown precision '{}'", in.options.precision));
    }
    repricer.emplace(p->element_bytes);
    pricer = &*repricer;
  }
  if (in.options.pricer != nullptr) pricer = in.options.pricer;

  ServeResult r;
  r.prompt = in.prompt;
  r.generate = in.generate;
  r.concurrency = in.concurrency;
  absl::StatusOr<KvCache> kv =
      FindKvCache(*in.decode, in.prompt, *pricer, in.decode_next);
  if (!kv.ok()) {
    return absl::Status(kv.status().code(),
                        fmt::format("{}: {}", in.decode_name,
                                    std::string(kv.status().message())));
  }
  r.kv = *std::move(kv);
  absl::StatusOr<PastRebinder> rebind =
      PastRebinder::Create(*in.decode, *in.decode_next, in.prompt);
  if (!rebind.ok()) return rebind.status();

  AnalyzeOptions opts = in.options;
  opts.batch = in.concurrency;
  r.gpus = in.parallel.gpus();
  auto analyze = [&](const graph::Graph& g) {
    return AnalyzeSharded(g, in.hardware, opts, in.parallel);
  };
  absl::StatusOr<Analysis> prefill = analyze(*in.prefill);
  if (!prefill.ok()) return prefill.status();
  ++r.analyses;
  r.ttft_s = prefill->summary.latency_s;
  // Energy of one analysis, all GPUs: TDP x (0.3 + 0.7 x MFU) x latency.
  const double tdp = in.hardware.tdp_w;
  auto joules = [&](const Summary& s) {
    return r.gpus * tdp *
           (kStaticPowerFraction + (1 - kStaticPowerFraction) * s.mfu) *
           s.latency_s;
  };
  r.energy.tdp_w = tdp;
  r.energy.prefill_j = joules(prefill->summary);

  std::optional<double> weight_bytes;
  for (int64_t step : SampleSteps(in.generate, in.samples)) {
    absl::StatusOr<graph::Graph> g = rebind->At(in.prompt + step);
    if (!g.ok()) return g.status();
    absl::StatusOr<Analysis> a = analyze(*g);
    if (!a.ok()) return a.status();
    ++r.analyses;
    if (!weight_bytes) {
      weight_bytes = a->summary.parallel
                         ? a->summary.parallel->weight_bytes_per_gpu
                         : a->summary.weight_bytes;
    }
    r.tpot_by_context.push_back(
        {in.prompt + step, a->summary.latency_s, joules(a->summary)});
  }
  r.decode_s = SumInterpolated(r.tpot_by_context);
  r.tpot_s = r.decode_s / static_cast<double>(in.generate);
  r.request_latency_s = r.ttft_s + r.decode_s;
  r.output_tokens_per_s =
      static_cast<double>(in.generate) / r.request_latency_s;
  r.aggregate_output_tokens_per_s =
      r.output_tokens_per_s * static_cast<double>(in.concurrency);
  const double tokens =
      static_cast<double>(in.concurrency) * static_cast<double>(in.generate);
  ServeEnergy& e = r.energy;
  e.decode_j = SumInterpolated(r.tpot_by_context, &ServeStep::joules);
  e.joules_per_token = (e.prefill_j + e.decode_j) / tokens;
  e.mean_power_w = (e.prefill_j + e.decode_j) / (r.gpus * r.request_latency_s);
  e.usd_per_gpu_hour = in.usd_per_gpu_hour;
  if (in.usd_per_gpu_hour) {
    e.usd_per_million_tokens = r.gpus * *in.usd_per_gpu_hour / 3600.0 *
                               r.request_latency_s / tokens * 1e6;
  }

  const CounterRegistry& registry = in.options.registry != nullptr
                                        ? *in.options.registry
                                        : CounterRegistry::Default();
  absl::StatusOr<double> act = ActivationBytes(*in.prefill, *pricer, registry);
  if (!act.ok()) return act.status();
  ServeMemory& m = r.memory;
  m.capacity_bytes = in.hardware.memory_capacity_bytes;
  m.weight_bytes = weight_bytes.value_or(0);
  const double kv_per_request =
      (r.kv.bytes_per_token * static_cast<double>(in.prompt + in.generate) +
       r.kv.fixed_bytes_per_sequence) /
      static_cast<double>(r.gpus);
  m.kv_cache_bytes = kv_per_request * static_cast<double>(in.concurrency);
  m.activation_bytes = *act;
  m.reserve_bytes = kRuntimeReserveFraction * m.capacity_bytes;
  m.total_bytes =
      m.weight_bytes + m.kv_cache_bytes + m.activation_bytes + m.reserve_bytes;
  m.fits = m.total_bytes <= m.capacity_bytes;
  r.max_concurrency =
      MaxConcurrency(m.capacity_bytes, m.weight_bytes, m.reserve_bytes,
                     kv_per_request + m.activation_bytes /
                                          static_cast<double>(in.concurrency));
  return r;
}

}  // namespace ridgeline::engine
