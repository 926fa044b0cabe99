// analyze --serve --prompt N --generate M [--concurrency B] [--kv-dim NAME]:
// LLM serving of a decoder (engine/serve.h). A zoo pair NAME-prefill /
// NAME-decode gives the prefill and the decode graph; a single decoder (a
// file, or another zoo entry) with past-KV inputs runs its prefill with the
// past-length dim at 0.
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "engine/report/serve_report.h"
#include "engine/serve.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "graph/fmt_absl.h"
#include "importers/onnx_importer.h"
#include "tools/analyze/modes.h"
#include "zoo/catalog.h"

namespace ridgeline::tools::analyze {
namespace {

using Dims = absl::flat_hash_map<std::string, int64_t>;

// Dim names tried, in order, when the model is a file and --kv-dim is not
// given (tools/export_llama.py, HF/optimum exports).
constexpr const char* kPastNames[] = {"past_sequence",
                                      "past_sequence_length",
                                      "past_sequence_len",
                                      "past_seq_len",
                                      "past_len",
                                      "past_length",
                                      "past_key_values_length"};
constexpr const char* kSequenceNames[] = {"sequence", "sequence_length",
                                          "seq_len", "seq"};

absl::Status InputError(const RunContext& ctx, const std::string& text) {
  return absl::InvalidArgumentError(
      fmt::format("{}: --serve: {}", ctx.model_name, text));
}

absl::StatusOr<int64_t> Count(const RunContext& ctx, std::string_view flag,
                              const std::string& value,
                              std::optional<int64_t> fallback) {
  if (value.empty()) {
    if (fallback) return *fallback;
    return InputError(ctx, fmt::format("{} N is required", flag));
  }
  int64_t n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < 1 || n > (int64_t{1} << 24)) {
    return InputError(
        ctx,
        fmt::format("{} '{}' is not an integer in 1..16777216", flag, value));
  }
  return n;
}

// --usd-per-gpu-hour: a price > 0 (US dollars), or none.
absl::StatusOr<std::optional<double>> Price(const RunContext& ctx,
                                            const std::string& value) {
  if (value.empty()) return std::optional<double>();
  double x = 0;
  if (!absl::SimpleAtod(value, &x) || !std::isfinite(x) || x <= 0) {
    return InputError(ctx, fmt::format("--usd-per-gpu-hour '{}' is not a "
                                       "price > 0 (US dollars per GPU-hour)",
                                       value));
  }
  return std::optional<double>(x);
}

struct Source {
  const zoo::ModelEntry* entry = nullptr;  // nullptr: the file
};

absl::StatusOr<graph::Graph> ImportAt(const RunContext& ctx, const Source& src,
                                      const Dims& dims, int64_t batch) {
  const Options& o = *ctx.options;
  importers::ImportOptions import;
  for (const auto& [name, value] : o.dims) import.dims[name] = value;
  for (const auto& [name, value] : dims) import.dims[name] = value;
  import.inputs = o.inputs;
  import.input_values = o.input_values;
  import.batch = batch;
  absl::StatusOr<graph::Graph> g;
  if (src.entry != nullptr) {
    import.dims = zoo::EntryDims(*src.entry, import.dims, batch);
    g = importers::ImportOnnxBytes(src.entry->onnx, src.entry->name, "",
                                   import);
  } else if (!ctx.model_bytes.empty()) {
    g = importers::ImportOnnxBytes(ctx.model_bytes, ctx.model_name, "", import);
  } else {
    g = importers::ImportOnnxFile(o.model_path, import);
  }
  if (!g.ok()) return InputError(ctx, std::string(MessageOf(g.status())));
  return g;
}

// The entry's dim names: the past one (named like "past") and the new
// tokens' one (named like "seq", not "past").
void EntryDimNames(const zoo::ModelEntry& e, std::string* past,
                   std::string* sequence) {
  for (const auto& [name, value] : e.default_dims) {
    const std::string lower = absl::AsciiStrToLower(name);
    if (absl::StrContains(lower, "past")) {
      if (past->empty()) *past = name;
    } else if (absl::StrContains(lower, "seq") && sequence->empty()) {
      *sequence = name;
    }
  }
}

struct Graphs {
  graph::Graph prefill, decode, decode_next;
  graph::Graph decode_last;  // imported at the last step, to verify
  std::string decode_name;
};

absl::StatusOr<Graphs> LoadGraphs(const RunContext& ctx, int64_t prompt,
                                  int64_t last_past, int64_t batch) {
  const Options& o = *ctx.options;
  std::optional<zoo::ModelEntry> prefill_entry, decode_entry;
  if (ctx.zoo_entry) {
    decode_entry = ctx.zoo_entry;
    const std::string& name = ctx.zoo_entry->name;
    for (const char* suffix : {"-prefill", "-decode"}) {
      if (!absl::EndsWith(name, suffix)) continue;
      const std::string base = name.substr(0, name.size() - strlen(suffix));
      absl::StatusOr<std::vector<zoo::ModelEntry>> cat = zoo::ModelCatalog();
      if (!cat.ok()) return cat.status();
      absl::StatusOr<zoo::ModelEntry> p =
          zoo::FindModel(*cat, base + "-prefill");
      absl::StatusOr<zoo::ModelEntry> d =
          zoo::FindModel(*cat, base + "-decode");
      if (p.ok() && d.ok()) {
        prefill_entry = *p;
        decode_entry = *d;
      }
    }
  }
  if (!prefill_entry) {
    // One model for both phases: it must take a KV cache (shapes may still
    // be unbound here, so by name and dtype).
    bool has_kv = false;
    for (int t : ctx.graph.Inputs()) {
      const graph::Tensor& in = ctx.graph.tensor(t);
      const std::string name = absl::AsciiStrToLower(in.name);
      has_kv |=
          graph::IsFloating(in.dtype) && (absl::StrContains(name, "past") ||
                                          absl::StrContains(name, "present") ||
                                          absl::StrContains(name, "cache"));
    }
    if (!has_kv) {
      return InputError(ctx,
                        "no KV cache: --serve needs a decoder that takes its "
                        "past keys and values as inputs (named like past, "
                        "present or cache)");
    }
  }
  Graphs out;
  out.decode_name = decode_entry ? "zoo:" + decode_entry->name : ctx.model_name;
  std::string past = o.kv_dim, sequence;
  if (decode_entry) EntryDimNames(*decode_entry, &past, &sequence);
  std::vector<std::string> past_names, seq_names;
  if (!past.empty()) {
    past_names = {past};
  } else {
    past_names.assign(std::begin(kPastNames), std::end(kPastNames));
  }
  if (!sequence.empty()) {
    seq_names = {sequence};
  } else {
    seq_names.assign(std::begin(kSequenceNames), std::end(kSequenceNames));
  }
  const Source dsrc{decode_entry ? &*decode_entry : nullptr};
  absl::Status last = InputError(ctx, "no past-length dim found");
  for (const std::string& p : past_names) {
    for (const std::string& s : seq_names) {
      absl::StatusOr<graph::Graph> d =
          ImportAt(ctx, dsrc, {{p, prompt}, {s, 1}}, batch);
      if (!d.ok()) {
        last = d.status();
        continue;
      }
      absl::StatusOr<graph::Graph> d1 =
          ImportAt(ctx, dsrc, {{p, prompt + 1}, {s, 1}}, batch);
      if (!d1.ok()) return d1.status();
      absl::StatusOr<graph::Graph> pre =
          prefill_entry
              ? ImportAt(ctx, Source{&*prefill_entry}, {{s, prompt}}, batch)
              : ImportAt(ctx, dsrc, {{p, 0}, {s, prompt}}, batch);
      if (!pre.ok()) return pre.status();
      absl::StatusOr<graph::Graph> last_step =
          ImportAt(ctx, dsrc, {{p, last_past}, {s, 1}}, batch);
      if (!last_step.ok()) return last_step.status();
      out.decode_last = *std::move(last_step);
      out.decode = *std::move(d);
      out.decode_next = *std::move(d1);
      out.prefill = *std::move(pre);
      return out;
    }
  }
  return InputError(
      ctx, fmt::format("cannot bind the past-length dim ({}); name it with "
                       "--kv-dim NAME. Last error: {}",
                       fmt::join(past_names, ", "), MessageOf(last)));
}

// One import at `concurrency` (a --sweep/--search point, else
// --concurrency), then one serving analysis per parallel layout (--search:
// each tensor-parallel width); `samples` decode steps analyzed in full.
absl::StatusOr<std::vector<absl::StatusOr<engine::ServeResult>>> RunServeFor(
    const RunContext& ctx, std::optional<int64_t> concurrency,
    const std::vector<engine::ParallelOptions>& layouts, int64_t samples) {
  const Options& o = *ctx.options;
  absl::StatusOr<int64_t> prompt = Count(ctx, "--prompt", o.prompt, {});
  if (!prompt.ok()) return prompt.status();
  absl::StatusOr<int64_t> generate = Count(ctx, "--generate", o.generate, {});
  if (!generate.ok()) return generate.status();
  absl::StatusOr<int64_t> batch =
      concurrency ? absl::StatusOr<int64_t>(*concurrency)
                  : Count(ctx, "--concurrency", o.concurrency, int64_t{1});
  if (!batch.ok()) return batch.status();
  absl::StatusOr<std::optional<double>> price = Price(ctx, o.usd_per_gpu_hour);
  if (!price.ok()) return price.status();
  absl::StatusOr<Graphs> graphs =
      LoadGraphs(ctx, *prompt, *prompt + *generate - 1, *batch);
  if (!graphs.ok()) return graphs.status();
  // The rebinding must reproduce an import at the last step.
  absl::StatusOr<engine::PastRebinder> rebind = engine::PastRebinder::Create(
      graphs->decode, graphs->decode_next, *prompt);
  if (!rebind.ok())
    return InputError(ctx, std::string(MessageOf(rebind.status())));
  if (absl::Status v =
          rebind->Verify(graphs->decode_last, *prompt + *generate - 1);
      !v.ok()) {
    return InputError(ctx, std::string(MessageOf(v)));
  }
  engine::ServeInputs in;
  in.prefill = &graphs->prefill;
  in.decode = &graphs->decode;
  in.decode_next = &graphs->decode_next;
  in.decode_name = graphs->decode_name;
  in.hardware = ctx.hw;
  in.options = ctx.analyze;
  in.prompt = *prompt;
  in.generate = *generate;
  in.concurrency = *batch;
  in.usd_per_gpu_hour = *price;
  in.samples = samples;
  std::vector<absl::StatusOr<engine::ServeResult>> out;
  for (const engine::ParallelOptions& layout : layouts) {
    in.parallel = layout;
    absl::StatusOr<engine::ServeResult> r = engine::AnalyzeServe(in);
    if (!r.ok()) {
      const std::string m(MessageOf(r.status()));
      r = absl::InvalidArgumentError(
          absl::StrContains(m, ctx.model_name) || absl::StrContains(m, "zoo:")
              ? std::string(m)
              : fmt::format("{}: --serve: {}", ctx.model_name, m));
    }
    out.push_back(std::move(r));
  }
  return out;
}

// `concurrency` (a --sweep concurrency=LIST point) replaces --concurrency.
absl::StatusOr<engine::ServeResult> RunServe(
    const RunContext& ctx, std::optional<int64_t> concurrency = std::nullopt) {
  absl::StatusOr<std::vector<absl::StatusOr<engine::ServeResult>>> r =
      RunServeFor(ctx, concurrency, {ctx.options->parallel},
                  engine::ServeInputs{}.samples);
  if (!r.ok()) return r.status();
  return r->front();
}

// --ttft-max / --tpot-max: seconds > 0, or none.
absl::StatusOr<std::optional<double>> Seconds(const RunContext& ctx,
                                              std::string_view flag,
                                              const std::string& value) {
  if (value.empty()) return std::optional<double>();
  double x = 0;
  if (!absl::SimpleAtod(value, &x) || !std::isfinite(x) || x <= 0) {
    return InputError(
        ctx, fmt::format("{} '{}' is not a time > 0 in seconds", flag, value));
  }
  return std::optional<double>(x);
}

// --search: every tensor-parallel width the node holds (powers of 2) x
// concurrency 1, 2, 4, ... up to the first that fits on no width; 9 decode
// steps analyzed per point.
absl::StatusOr<engine::ServeSearch> RunSearch(const RunContext& ctx) {
  const Options& o = *ctx.options;
  engine::ServeSearch s;
  absl::StatusOr<std::optional<double>> ttft =
      Seconds(ctx, "--ttft-max", o.ttft_max);
  if (!ttft.ok()) return ttft.status();
  absl::StatusOr<std::optional<double>> tpot =
      Seconds(ctx, "--tpot-max", o.tpot_max);
  if (!tpot.ok()) return tpot.status();
  s.ttft_max_s = *ttft;
  s.tpot_max_s = *tpot;
  s.samples = 9;
  std::vector<engine::ParallelOptions> layouts;
  const engine::Interconnect& ic = ctx.hw.interconnect;
  const int max_tp = ic.present() ? ic.gpus_per_node : 1;
  for (int tp = 1; tp <= max_tp; tp *= 2) {
    engine::ParallelOptions p;
    p.tp = tp;
    layouts.push_back(p);
  }
  for (int64_t b = 1; b <= 4096; b *= 2) {
    absl::StatusOr<std::vector<absl::StatusOr<engine::ServeResult>>> rs =
        RunServeFor(ctx, b, layouts, s.samples);
    if (!rs.ok()) return rs.status();
    bool any_fits = false;
    for (absl::StatusOr<engine::ServeResult>& r : *rs) {
      if (!r.ok()) continue;  // a width that does not divide the heads
      any_fits |= r->memory.fits;
      s.results.push_back(*std::move(r));
    }
    if (!any_fits) break;
  }
  if (s.results.empty()) {
    return InputError(ctx, "--search: no configuration could be analyzed");
  }
  engine::RankServeSearch(&s);
  return s;
}

}  // namespace

absl::StatusOr<std::string> SearchText(const RunContext& ctx) {
  absl::StatusOr<engine::ServeSearch> s = RunSearch(ctx);
  if (!s.ok()) return s.status();
  return engine::report::FormatServeSearch(*s);
}

absl::Status AddSearchJson(const RunContext& ctx,
                           nlohmann::ordered_json* report) {
  absl::StatusOr<engine::ServeSearch> s = RunSearch(ctx);
  if (!s.ok()) return s.status();
  (*report)["search"] = engine::report::ServeSearchJson(*s);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ServeText(const RunContext& ctx) {
  absl::StatusOr<engine::ServeResult> r = RunServe(ctx);
  if (!r.ok()) return r.status();
  return engine::report::FormatServe(*r);
}

absl::StatusOr<std::vector<engine::ServeResult>> RunServeSweep(
    const RunContext& ctx, const std::vector<int64_t>& concurrency) {
  std::vector<engine::ServeResult> out;
  for (int64_t b : concurrency) {
    absl::StatusOr<engine::ServeResult> r = RunServe(ctx, b);
    if (!r.ok()) return r.status();
    out.push_back(*std::move(r));
  }
  return out;
}

absl::StatusOr<std::string> ServeSweepText(
    const RunContext& ctx, const std::vector<int64_t>& concurrency) {
  absl::StatusOr<std::vector<engine::ServeResult>> r =
      RunServeSweep(ctx, concurrency);
  if (!r.ok()) return r.status();
  return engine::report::FormatServeSweep(*r);
}

absl::Status AddServeSweepJson(const RunContext& ctx,
                               const std::vector<int64_t>& concurrency,
                               nlohmann::ordered_json* report) {
  absl::StatusOr<std::vector<engine::ServeResult>> r =
      RunServeSweep(ctx, concurrency);
  if (!r.ok()) return r.status();
  (*report)["sweep"] = engine::report::ServeSweepJson(*r);
  return absl::OkStatus();
}

absl::Status AddServeJson(const RunContext& ctx,
                          nlohmann::ordered_json* report) {
  absl::StatusOr<engine::ServeResult> r = RunServe(ctx);
  if (!r.ok()) return r.status();
  (*report)["serve"] = engine::report::ServeJson(*r);
  return absl::OkStatus();
}

absl::Status AddServeHtml(const RunContext& ctx,
                          engine::report::HtmlReportInput* page) {
  absl::StatusOr<engine::ServeResult> r = RunServe(ctx);
  if (!r.ok()) return r.status();
  engine::report::AddServeHtml(*r, page);
  return absl::OkStatus();
}

}  // namespace ridgeline::tools::analyze
