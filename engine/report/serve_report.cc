#include "engine/report/serve_report.h"

#include <cmath>

#include "absl/strings/str_join.h"
#include "engine/report/text.h"
#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "fmt/format.h"

namespace ridgeline::engine::report {

std::string TtftEncoderNote(const EncoderSide& e) {
  if (!e.encoder_decoder()) return "";
  std::vector<std::string> names = e.state_inputs;
  names.insert(names.end(), e.cross_kv_inputs.begin(), e.cross_kv_inputs.end());
  const size_t total = names.size();
  if (total > 3) names.resize(3);
  return fmt::format(
      "the decoder of an encoder-decoder model (input{} {}{}): the time to "
      "first token is its first pass alone, without the encoder's run{}; "
      "add the encoder's latency (analyze the encoder at the same batch){}",
      total == 1 ? "" : "s", absl::StrJoin(names, ", "),
      total > 3 ? fmt::format(", ... {} in all", total) : "",
      e.prefill_reads_cross_kv
          ? " and without projecting the encoder's output into the "
            "cross-attention keys and values, which that pass takes as inputs"
          : "",
      e.prefill_reads_cross_kv ? " and that projection's" : "");
}

namespace {

// "runtime reserve (10% of device)", or with a runtime whose KV cache takes
// a fraction of the free memory, "runtime reserve (10% of the memory free
// after weights and activations)".
std::string ReserveLabel(const ServeMemory& m) {
  const double percent = std::round(1000 * m.reserve_fraction) / 10;
  return m.reserve_of_free
             ? fmt::format(
                   "runtime reserve ({:g}% of the memory free after weights "
                   "and activations)",
                   percent)
             : fmt::format("runtime reserve ({:g}% of device)", percent);
}

// "ttft_includes_encoder" / "ttft_includes_cross_kv_projection": false /
// whether the first pass projects the cross-attention KV itself for the
// decoder of an encoder-decoder model; null for a decoder-only model, or
// when `encoder` is null (a search with no configuration that fits).
void AddTtftEncoderFlags(const EncoderSide* encoder,
                         nlohmann::ordered_json* j) {
  if (encoder != nullptr && encoder->encoder_decoder()) {
    (*j)["ttft_includes_encoder"] = false;
    (*j)["ttft_includes_cross_kv_projection"] =
        !encoder->prefill_reads_cross_kv;
  } else {
    (*j)["ttft_includes_encoder"] = nullptr;
    (*j)["ttft_includes_cross_kv_projection"] = nullptr;
  }
}

}  // namespace

std::string FormatServe(const ServeResult& r, size_t max_width) {
  // Labels padded to one width, so every value starts in one column.
  constexpr size_t kLabelWidth = 34;
  constexpr size_t kNestedWidth = kLabelWidth - 2;
  std::string out = fmt::format(
      "Serving: prompt {} tokens, generate {} tokens (the prefill's first + "
      "{} decode steps), concurrency {}\n",
      r.prompt, r.generate, DecodeSteps(r.generate), r.concurrency);
  out += RenderItems(
      {{r.encoder.encoder_decoder() ? "time to first token (decoder only)"
                                    : "time to first token (prefill)",
        FormatSeconds(r.ttft_s)},
       {"of which per-request host cost", FormatSeconds(r.per_request_s)},
       {"time per output token (mean)", FormatSeconds(r.tpot_s)},
       {"request latency (TTFT + decode)", FormatSeconds(r.request_latency_s)},
       {"output tokens/s per request", FormatNumber(r.output_tokens_per_s)},
       {"output tokens/s aggregate",
        FormatNumber(r.aggregate_output_tokens_per_s)},
       {"KV cache per token",
        fmt::format(
            "{} ({} layers){}", FormatSi(r.kv.bytes_per_token, "B"),
            r.kv.layers,
            r.kv.fixed_inputs.empty()
                ? ""
                : fmt::format(", + {} per request fixed "
                              "(cross-attention, {} inputs)",
                              FormatSi(r.kv.fixed_bytes_per_sequence, "B"),
                              r.kv.fixed_inputs.size()))}},
      "  ", kLabelWidth, max_width);
  // At most 9 rows here (every analyzed step is in the JSON).
  const size_t n = r.tpot_by_context.size();
  const size_t stride = n > 9 ? (n + 7) / 8 : 1;
  out +=
      "  TPOT by context (tokens in the cache; json lists every analyzed "
      "step):\n";
  TextTable steps;
  steps.headers = {"context", "TPOT"};
  steps.right_align = {true, true};
  steps.max_width = max_width;
  for (size_t i = 0; i < n; ++i) {
    if (i % stride != 0 && i + 1 != n) continue;
    const ServeStep& s = r.tpot_by_context[i];
    steps.rows.push_back(
        {fmt::format("{}", s.context), FormatSeconds(s.tpot_s)});
  }
  out += RenderText(steps, "    ");
  const ServeMemory& m = r.memory;
  out += "  Memory:\n";
  out += RenderItems(
      {{"weights", FormatSi(m.weight_bytes, "B")},
       {"KV cache at prompt + generate", FormatSi(m.kv_cache_bytes, "B")},
       {m.prefill_chunk_tokens > 0
            ? fmt::format("peak activations (prefill, {}-token chunks)",
                          m.prefill_chunk_tokens)
            : std::string("peak activations (prefill)"),
        FormatSi(m.activation_bytes, "B")},
       {ReserveLabel(m), FormatSi(m.reserve_bytes, "B")},
       {"total / device",
        fmt::format("{} / {} ({})", FormatSi(m.total_bytes, "B"),
                    FormatSi(m.capacity_bytes, "B"),
                    m.fits ? "fits" : "does NOT fit")}},
      "    ", kNestedWidth, max_width);
  Items last = {
      {"max concurrency that fits", fmt::format("{}", r.max_concurrency)}};
  if (r.encoder.encoder_decoder()) {
    last.push_back({"assumption (TTFT)", TtftEncoderNote(r.encoder)});
  }
  out += RenderItems(last, "  ", kLabelWidth, max_width);
  const ServeEnergy& e = r.energy;
  out += fmt::format(
      "  Energy (each GPU at TDP x (0.3 + 0.7 x MFU), mlsysim's power "
      "model):\n");
  Items energy;
  if (e.tdp_w > 0) {
    energy.push_back(
        {"energy per output token",
         fmt::format("{:.4g} J (prefill {:.4g} J + decode {:.4g} J over {} "
                     "tokens)",
                     e.joules_per_token, e.prefill_j, e.decode_j,
                     r.concurrency * r.generate)});
    energy.push_back(
        {"mean power per GPU",
         fmt::format("{:.4g} W of {:.4g} W TDP ({} GPU{})", e.mean_power_w,
                     e.tdp_w, r.gpus, r.gpus == 1 ? "" : "s")});
  } else {
    energy.push_back(
        {"energy per output token", "n/a: the hardware file gives no tdp_w"});
  }
  if (e.usd_per_gpu_hour) {
    energy.push_back(
        {"cost per million output tokens",
         fmt::format("{:.4g} USD ({} GPU{} x {:.4g} USD/h x request latency "
                     "/ tokens)",
                     e.usd_per_million_tokens, r.gpus, r.gpus == 1 ? "" : "s",
                     *e.usd_per_gpu_hour)});
  }
  out += RenderItems(energy, "    ", kNestedWidth, max_width);
  return out;
}

void AddServeHtml(const ServeResult& r, HtmlReportInput* page) {
  const std::string gpus = r.gpus == 1 ? std::string("one GPU")
                                       : fmt::format("per GPU of {}", r.gpus);
  LineChart tpot;
  tpot.title = fmt::format(
      "Time per output token vs context (prompt {} tokens, generate {}, "
      "concurrency {})",
      r.prompt, r.generate, r.concurrency);
  tpot.x_label = "Context (tokens in the KV cache)";
  tpot.y_label = "Time per output token (s)";
  for (const ServeStep& s : r.tpot_by_context) {
    tpot.points.push_back(
        {.x = static_cast<double>(s.context), .y_s = s.tpot_s});
  }
  tpot.note = fmt::format(
      "Time to first token (prefill of {} tokens x {} requests, which yields "
      "the first of the {} output tokens) {}; mean time per output token {} "
      "over the {} decode steps; request latency (TTFT + decode) {}; {} "
      "output tokens/s per request, {} in aggregate. Each point is a decode "
      "step analyzed in full ({} of {}); the others are interpolated linearly "
      "between them.",
      r.prompt, r.concurrency, r.generate, FormatSeconds(r.ttft_s),
      FormatSeconds(r.tpot_s), DecodeSteps(r.generate),
      FormatSeconds(r.request_latency_s), FormatNumber(r.output_tokens_per_s),
      FormatNumber(r.aggregate_output_tokens_per_s), r.tpot_by_context.size(),
      DecodeSteps(r.generate));
  page->line_charts.push_back(std::move(tpot));

  const ServeMemory& m = r.memory;
  StackedBarChart memory;
  memory.title = fmt::format("Serving memory ({})", gpus);
  memory.unit = ChartUnit::kBytes;
  // Short legend labels (the legend elides long ones); the note says what
  // each is.
  memory.bars.push_back(
      {.label = fmt::format("needed, concurrency {}", r.concurrency),
       .segments = {{"weights", m.weight_bytes, "#4e79a7"},
                    {"KV cache", m.kv_cache_bytes, "#f28e2b"},
                    {"activations", m.activation_bytes, "#59a14f"},
                    {"runtime reserve", m.reserve_bytes, "#a0a7ae"}}});
  memory.bars.push_back(
      {.label = "device capacity",
       .segments = {{"device capacity", m.capacity_bytes, "#4a4f55"}}});
  memory.note = fmt::format(
      "{} of {} ({}). Weights: {}; KV cache at prompt + generate = {} tokens: "
      "{} per token ({} layers) x {} tokens x {} requests{}; activations: the "
      "prefill's peak (KV cache excluded); {}. Largest concurrency that "
      "fits: {}. Bytes in decimal SI units (1 GB = 10^9 B).",
      FormatSi(m.total_bytes, "B"), FormatSi(m.capacity_bytes, "B"),
      m.fits ? "fits" : "does NOT fit",
      r.gpus == 1 ? "the whole model" : "this GPU's shard",
      r.prompt + r.generate, FormatSi(r.kv.bytes_per_token, "B"), r.kv.layers,
      r.prompt + r.generate, r.concurrency,
      r.gpus == 1 ? "" : fmt::format(" / {} GPUs", r.gpus), ReserveLabel(m),
      r.max_concurrency);
  page->stacked_bars.push_back(std::move(memory));
}

nlohmann::ordered_json ServeJson(const ServeResult& r) {
  nlohmann::ordered_json j;
  j["prompt_tokens"] = r.prompt;
  j["generate_tokens"] = r.generate;
  j["concurrency"] = r.concurrency;
  j["ttft_s"] = r.ttft_s;
  j["per_request_s"] = r.per_request_s;
  AddTtftEncoderFlags(&r.encoder, &j);
  j["tpot_s"] = r.tpot_s;
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const ServeStep& s : r.tpot_by_context) {
    steps.push_back({{"context", s.context}, {"tpot_s", s.tpot_s}});
  }
  j["tpot_by_context"] = std::move(steps);
  j["decode_s"] = r.decode_s;
  j["request_latency_s"] = r.request_latency_s;
  j["output_tokens_per_s"] = r.output_tokens_per_s;
  j["aggregate_output_tokens_per_s"] = r.aggregate_output_tokens_per_s;
  j["kv_bytes_per_token"] = r.kv.bytes_per_token;
  j["kv_layers"] = r.kv.layers;
  j["kv_fixed_bytes_per_sequence"] = r.kv.fixed_bytes_per_sequence;
  const ServeMemory& m = r.memory;
  j["memory"] = {{"capacity_bytes", m.capacity_bytes},
                 {"weight_bytes", m.weight_bytes},
                 {"kv_cache_bytes", m.kv_cache_bytes},
                 {"activation_bytes", m.activation_bytes},
                 {"prefill_chunk_tokens", m.prefill_chunk_tokens},
                 {"reserve_bytes", m.reserve_bytes},
                 {"reserve_fraction", m.reserve_fraction},
                 {"reserve_of", m.reserve_of_free ? "free" : "device"},
                 {"total_bytes", m.total_bytes},
                 {"fits", m.fits}};
  j["max_concurrency"] = r.max_concurrency;
  const ServeEnergy& e = r.energy;
  if (e.tdp_w > 0) {
    j["joules_per_token"] = e.joules_per_token;
  } else {
    j["joules_per_token"] = nullptr;
  }
  nlohmann::ordered_json energy = {
      {"tdp_w", e.tdp_w},
      {"power_model", "TDP x (0.3 + 0.7 x MFU) per GPU (mlsysim)"},
      {"prefill_j", e.prefill_j},
      {"decode_j", e.decode_j},
      {"mean_power_w", e.mean_power_w}};
  if (e.usd_per_gpu_hour) {
    energy["usd_per_gpu_hour"] = *e.usd_per_gpu_hour;
    j["usd_per_million_output_tokens"] = e.usd_per_million_tokens;
  }
  j["energy"] = std::move(energy);
  j["analyses"] = r.analyses;
  return j;
}

std::string FormatServeSweep(const std::vector<ServeResult>& results,
                             size_t max_width) {
  if (results.empty()) return "";
  TextTable table;
  table.headers = {"concurrency",
                   "TTFT",
                   "TPOT",
                   "request latency",
                   "tokens/s per request",
                   "tokens/s aggregate",
                   "memory",
                   "fits",
                   "J per token"};
  table.right_align.assign(table.headers.size(), true);
  table.max_width = max_width;
  for (const ServeResult& r : results) {
    table.rows.push_back(
        {fmt::format("{}", r.concurrency), FormatSeconds(r.ttft_s),
         FormatSeconds(r.tpot_s), FormatSeconds(r.request_latency_s),
         fmt::format("{}/s", FormatNumber(r.output_tokens_per_s)),
         fmt::format("{}/s", FormatNumber(r.aggregate_output_tokens_per_s)),
         FormatSi(r.memory.total_bytes, "B"), r.memory.fits ? "yes" : "NO",
         r.energy.tdp_w > 0 ? fmt::format("{:.4g} J", r.energy.joules_per_token)
                            : "n/a"});
  }
  const ServeResult& first = results.front();
  return fmt::format(
      "Serving sweep: prompt {} tokens, generate {} tokens, {} GPU{} "
      "(memory per GPU)\n{}largest concurrency that fits: {}\n",
      first.prompt, first.generate, first.gpus, first.gpus == 1 ? "" : "s",
      RenderText(table), first.max_concurrency);
}

nlohmann::ordered_json ServeSweepJson(const std::vector<ServeResult>& results) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const ServeResult& r : results) {
    nlohmann::ordered_json j = ServeJson(r);
    j.erase("tpot_by_context");
    points.push_back(std::move(j));
  }
  nlohmann::ordered_json out;
  out["axis"] = "concurrency";
  out["points"] = std::move(points);
  return out;
}

namespace {

// The weights of a search row: the run's precision, or weight-only int8 /
// int4.
std::string WeightsLabel(const ServeSearch& s, const std::string& weights) {
  return weights.empty() ? s.precision : weights;
}

nlohmann::ordered_json SearchPoint(const ServeSearch& s, const ServeResult& r) {
  nlohmann::ordered_json j;
  j["tp"] = r.parallel.tp;
  j["pp"] = r.parallel.pp;
  j["ep"] = r.parallel.ep;
  j["microbatches"] = r.parallel.microbatches;
  j["gpus"] = r.gpus;
  j["weights"] = WeightsLabel(s, r.weights);
  j["weight_only"] = !r.weights.empty();
  j["concurrency"] = r.concurrency;
  j["ttft_s"] = r.ttft_s;
  j["tpot_s"] = r.tpot_s;
  j["request_latency_s"] = r.request_latency_s;
  j["output_tokens_per_s"] = r.output_tokens_per_s;
  j["aggregate_output_tokens_per_s"] = r.aggregate_output_tokens_per_s;
  j["output_tokens_per_s_per_gpu"] = TokensPerGpu(r);
  j["memory_bytes"] = r.memory.total_bytes;
  j["weight_bytes_per_gpu"] = r.memory.weight_bytes;
  if (r.energy.tdp_w > 0) {
    j["joules_per_token"] = r.energy.joules_per_token;
  } else {
    j["joules_per_token"] = nullptr;
  }
  return j;
}

std::string Limit(const std::optional<double>& s) {
  return s ? FormatSeconds(*s) : std::string("none");
}

std::string Layout(const ParallelOptions& p) {
  if (p.ep > 1) return fmt::format("ep {}", p.ep);
  return fmt::format("tp {} x pp {}", p.tp, p.pp);
}

// A layout in the search table: "2x1" (tp x pp), or "ep 8".
std::string LayoutCell(const ParallelOptions& p) {
  if (p.ep > 1) return fmt::format("ep {}", p.ep);
  return fmt::format("{}x{}", p.tp, p.pp);
}

bool Meets(const ServeSearch& s, const ServeResult& r) {
  return (!s.ttft_max_s || r.ttft_s <= *s.ttft_max_s) &&
         (!s.tpot_max_s || r.tpot_s <= *s.tpot_max_s);
}

std::string SearchPrecisionsNote(const ServeSearch& s) {
  std::string searched;
  for (const std::string& w : s.weights) {
    if (!searched.empty()) searched += ", ";
    searched += w.empty() ? fmt::format("{} (the run's)", s.precision)
                          : fmt::format("weight-only {}", w);
  }
  std::string out = fmt::format(
      "Weights searched: {}. Weight-only int8 (one scale per output "
      "channel) and int4 (one scale per group) are priced as the --weights "
      "what-if prices them (W8A16 / W4A16 kernels): activations, KV cache "
      "and all-reduce messages stay as the run prices them. Activation "
      "quantization (W8A8, fp8) is not searched: it would change the "
      "all-reduce messages, which the sharded what-ifs do not model.\n",
      searched);
  for (const std::string& why : s.weights_left_out) {
    out += fmt::format("Not searched: {}\n", why);
  }
  return out;
}

}  // namespace

std::string FormatServeSearch(const ServeSearch& s, size_t max_width) {
  std::string layouts;
  std::string expert_layouts;
  for (const ParallelOptions& p : s.layouts) {
    std::string& list = p.ep > 1 ? expert_layouts : layouts;
    if (!list.empty()) list += ", ";
    list += p.ep > 1 ? fmt::format("{}", p.ep) : LayoutCell(p);
  }
  if (!expert_layouts.empty()) {
    layouts +=
        fmt::format(", and expert parallel {} with data-parallel attention",
                    expert_layouts);
  }
  std::string out = fmt::format(
      "Search: {} configurations (tensor x pipeline parallel {}; pipeline "
      "stages decode as many micro-batches in flight; x {} weight "
      "precision{} x concurrency 1, 2, 4, ... up to {} while it fits; {} "
      "decode steps analyzed each, {} analyses), targets TTFT <= {}, TPOT "
      "<= {}\n",
      s.results.size() + s.excluded.size(), layouts, s.weights.size(),
      s.weights.size() == 1 ? "" : "s", s.max_concurrency, s.samples,
      s.analyses, Limit(s.ttft_max_s), Limit(s.tpot_max_s));
  out += SearchPrecisionsNote(s);
  TextTable table;
  table.headers = {"",
                   "GPUs",
                   expert_layouts.empty() ? "tp x pp" : "tp x pp / ep",
                   "weights",
                   "concurrency",
                   "TTFT",
                   "TPOT",
                   "tokens/s",
                   "tokens/s per GPU",
                   "memory per GPU",
                   "meets"};
  table.right_align.assign(table.headers.size(), true);
  table.right_align[0] = false;
  table.keep = {true};  // "best"
  table.max_width = max_width;
  for (size_t i : s.pareto) {
    const ServeResult& r = s.results[i];
    table.rows.push_back(
        {s.best && *s.best == i ? "best" : "", fmt::format("{}", r.gpus),
         LayoutCell(r.parallel), WeightsLabel(s, r.weights),
         fmt::format("{}", r.concurrency), FormatSeconds(r.ttft_s),
         FormatSeconds(r.tpot_s),
         fmt::format("{}/s", FormatNumber(r.aggregate_output_tokens_per_s)),
         fmt::format("{}/s", FormatNumber(TokensPerGpu(r))),
         FormatSi(r.memory.total_bytes, "B"), Meets(s, r) ? "yes" : "no"});
  }
  out += fmt::format(
      "Pareto set (TPOT vs output tokens/s per GPU, of the {} configurations "
      "that fit):\n",
      s.results.size());
  out += RenderText(table);
  if (!s.results.empty() && s.results.front().encoder.encoder_decoder()) {
    out += RenderItems(
        {{"assumption (TTFT)", TtftEncoderNote(s.results.front().encoder)}}, "",
        0, max_width);
  }
  if (s.best) {
    const ServeResult& b = s.results[*s.best];
    out += fmt::format(
        "cheapest meeting the targets: {} GPU{} ({}), {} weights, "
        "concurrency {}: TTFT {}, TPOT {}, {}/s per GPU\n",
        b.gpus, b.gpus == 1 ? "" : "s", Layout(b.parallel),
        WeightsLabel(s, b.weights), b.concurrency, FormatSeconds(b.ttft_s),
        FormatSeconds(b.tpot_s), FormatNumber(TokensPerGpu(b)));
  } else {
    out += "no configuration that fits meets the targets\n";
  }
  if (!s.excluded.empty()) {
    out +=
        "Left out (memory grows with the concurrency: the first that does "
        "not fit, and every larger one):\n";
    for (const ServeExcluded& e : s.excluded) {
      out +=
          fmt::format("  {}, {} weights, {}: {}\n", Layout(e.parallel),
                      WeightsLabel(s, e.weights),
                      e.concurrency > 0
                          ? fmt::format("concurrency {} and up", e.concurrency)
                          : std::string("every concurrency"),
                      EscapeControl(e.reason));
    }
  }
  return out;
}

nlohmann::ordered_json ServeSearchJson(const ServeSearch& s) {
  nlohmann::ordered_json j;
  j["ttft_max_s"] = s.ttft_max_s ? nlohmann::ordered_json(*s.ttft_max_s)
                                 : nlohmann::ordered_json(nullptr);
  j["tpot_max_s"] = s.tpot_max_s ? nlohmann::ordered_json(*s.tpot_max_s)
                                 : nlohmann::ordered_json(nullptr);
  j["samples"] = s.samples;
  // The served graphs are the same in every configuration.
  AddTtftEncoderFlags(s.results.empty() ? nullptr : &s.results.front().encoder,
                      &j);
  j["configurations"] = s.results.size() + s.excluded.size();
  j["fitting"] = s.results.size();
  j["analyses"] = s.analyses;
  j["max_concurrency"] = s.max_concurrency;
  nlohmann::ordered_json layouts = nlohmann::ordered_json::array();
  for (const ParallelOptions& p : s.layouts) {
    layouts.push_back({{"tp", p.tp}, {"pp", p.pp}, {"ep", p.ep}});
  }
  j["layouts"] = std::move(layouts);
  nlohmann::ordered_json weights = nlohmann::ordered_json::array();
  for (const std::string& w : s.weights) weights.push_back(WeightsLabel(s, w));
  j["weights"] = std::move(weights);
  j["weights_left_out"] = s.weights_left_out;
  j["best"] = s.best ? SearchPoint(s, s.results[*s.best])
                     : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json pareto = nlohmann::ordered_json::array();
  for (size_t i : s.pareto) pareto.push_back(SearchPoint(s, s.results[i]));
  j["pareto"] = std::move(pareto);
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const ServeResult& r : s.results) points.push_back(SearchPoint(s, r));
  j["points"] = std::move(points);
  nlohmann::ordered_json excluded = nlohmann::ordered_json::array();
  for (const ServeExcluded& e : s.excluded) {
    nlohmann::ordered_json x;
    x["tp"] = e.parallel.tp;
    x["pp"] = e.parallel.pp;
    x["ep"] = e.parallel.ep;
    x["gpus"] = e.parallel.gpus();
    x["weights"] = WeightsLabel(s, e.weights);
    x["concurrency"] = e.concurrency > 0 ? nlohmann::ordered_json(e.concurrency)
                                         : nlohmann::ordered_json(nullptr);
    x["memory_bytes"] = e.memory_bytes > 0
                            ? nlohmann::ordered_json(e.memory_bytes)
                            : nlohmann::ordered_json(nullptr);
    x["reason"] = e.reason;
    excluded.push_back(std::move(x));
  }
  j["excluded"] = std::move(excluded);
  return j;
}

}  // namespace ridgeline::engine::report
