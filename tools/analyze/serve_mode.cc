// analyze --serve --prompt N --generate M [--concurrency B] [--kv-dim NAME]:
// LLM serving of a decoder (engine/serve.h). A zoo pair NAME-prefill /
// NAME-decode gives the prefill and the decode graph; a single decoder (a
// file, or another zoo entry) with past-KV inputs runs its prefill with the
// past-length dim at 0 and, when it is HF optimum's merged decoder, its
// use_cache_branch false (the branch without past), every decode step with
// it true. The dims are found from the declared inputs (DecoderBinding).
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "engine/report/serve_report.h"
#include "engine/report/units.h"
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

// Past-length dim names preferred when the KV inputs carry several named
// dims (tools/export_llama.py, HF/optimum exports; an encoder-decoder's
// cross-attention KV inputs carry the encoder's length too), and the new
// tokens' dim names tried when no input_ids-like input names it.
constexpr const char* kPastNames[] = {"past_sequence",
                                      "past_sequence_length",
                                      "past_decoder_sequence_length",
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

struct Source {
  const zoo::ModelEntry* entry = nullptr;  // nullptr: the file
};

using Values = absl::flat_hash_map<std::string, std::vector<double>>;

// How a decoder's inputs are bound at one step, found from its declared
// inputs (names and structure), so that one binding serves the unmerged
// export and optimum's merged one alike.
struct DecoderBinding {
  std::string past;      // the KV inputs' past-length dim
  std::string sequence;  // the new tokens' dim (input_ids dim 1)
  // Dims of past + new tokens: the attention mask's length
  // ("total_sequence", "past_sequence_length + 1",
  // "attention_mask_sequence_length").
  std::vector<std::string> total;
  // A merged decoder's branch input: a one-element bool input that is the
  // condition of a main-graph If (optimum's use_cache_branch; "" if none).
  // False selects the decoder without past (the prefill), true the one with.
  std::string cache_branch;

  // The dims and input values of a step with `past_len` tokens cached and
  // `new_len` new ones; the cache branch is taken when `with_cache`.
  void At(int64_t past_len, int64_t new_len, bool with_cache, Dims* dims,
          Values* values) const {
    (*dims)[past] = past_len;
    (*dims)[sequence] = new_len;
    for (const std::string& t : total) (*dims)[t] = past_len + new_len;
    if (!cache_branch.empty()) {
      (*values)[cache_branch] = {with_cache ? 1.0 : 0.0};
    }
  }
};

absl::StatusOr<std::vector<importers::DeclaredInput>> DeclaredInputs(
    const RunContext& ctx, const Source& src) {
  absl::StatusOr<std::vector<importers::DeclaredInput>> in =
      src.entry != nullptr ? importers::ReadDeclaredInputsBytes(
                                 src.entry->onnx, "zoo:" + src.entry->name)
      : !ctx.model_bytes.empty()
          ? importers::ReadDeclaredInputsBytes(ctx.model_bytes, ctx.model_name)
          : importers::ReadDeclaredInputsFile(ctx.options->model_path);
  return in;  // errors name the model
}

// The named (symbolic) dims of `in` from axis 1 on (axis 0 is the batch).
std::vector<std::pair<int, std::string>> NamedDims(
    const importers::DeclaredInput& in) {
  std::vector<std::pair<int, std::string>> out;
  for (size_t a = 1; a < in.dims.size(); ++a) {
    const auto* name = std::get_if<std::string>(&in.dims[a]);
    if (name != nullptr && !name->empty()) {
      out.push_back({static_cast<int>(a), *name});
    }
  }
  return out;
}

// `--dim NAME=N` as typed in a shell (quoted when NAME has other than
// letters, digits and _.-).
std::string DimFlag(const std::string& name) {
  const bool plain = std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '.' || c == '-';
  });
  return plain ? fmt::format("--dim {}=N", name)
               : fmt::format("--dim '{}=N'", name);
}

// The declared dims that neither --serve (the batch, the past length, the
// new tokens, the mask's length) nor the user (--dim, --input,
// --input-value) binds: an encoder-decoder's decoder carries the encoder's
// output length (Whisper's encoder_hidden_states and cross-attention KV
// inputs), which only the user knows. Fails naming each dim, its inputs and
// the flags to type; for a decoder with past only (no cache branch, an
// unbound dim on a KV input), how to serve the merged decoder instead.
absl::Status CheckServeBindsEveryDim(
    const RunContext& ctx, const std::vector<importers::DeclaredInput>& inputs,
    const DecoderBinding& b) {
  const Options& o = *ctx.options;
  std::vector<std::pair<std::string, std::vector<std::string>>> unbound;
  std::vector<std::string> flags;
  bool on_kv = false;
  bool encoder = false;
  for (const importers::DeclaredInput& in : inputs) {
    if (o.inputs.contains(in.name) || o.input_values.contains(in.name)) {
      continue;
    }
    graph::Tensor t;
    t.name = in.name;
    t.dtype = in.dtype;
    t.shape_known = in.shape_known;
    t.dims.resize(in.dims.size());
    std::vector<std::string> spec;  // --input NAME=... for anonymous dims
    bool anonymous = false;
    for (size_t a = 0; a < in.dims.size(); ++a) {
      const auto* name = std::get_if<std::string>(&in.dims[a]);
      const bool bound =
          name == nullptr || importers::IsBatchDim(*name, a, in.dims.size()) ||
          *name == b.past || *name == b.sequence ||
          std::find(b.total.begin(), b.total.end(), *name) != b.total.end() ||
          std::any_of(o.dims.begin(), o.dims.end(),
                      [&](const auto& d) { return d.first == *name; });
      if (name == nullptr) {
        spec.push_back(std::to_string(std::get<int64_t>(in.dims[a])));
      } else {
        spec.push_back(!bound && name->empty() ? "N" : "?");
      }
      if (bound) continue;
      on_kv = on_kv || engine::IsKvCacheTensor(t);
      encoder = encoder || absl::StrContains(*name, "encoder") ||
                absl::StrContains(in.name, "encoder");
      if (name->empty()) {
        anonymous = true;
        unbound.push_back({fmt::format("input '{}' dim {}", in.name, a), {}});
        continue;
      }
      auto it = std::find_if(unbound.begin(), unbound.end(),
                             [&](const auto& u) { return u.first == *name; });
      if (it == unbound.end()) {
        unbound.push_back({*name, {}});
        flags.push_back(DimFlag(*name));
        it = unbound.end() - 1;
      }
      it->second.push_back(in.name);
    }
    if (anonymous) {
      flags.push_back(
          fmt::format("--input {}={}", in.name, fmt::join(spec, "x")));
    }
  }
  if (unbound.empty()) return absl::OkStatus();
  std::vector<std::string> listed;
  for (const auto& [dim, carriers] : unbound) {
    listed.push_back(carriers.empty()
                         ? dim
                         : fmt::format("'{}' (input{} {})", dim,
                                       carriers.size() > 1 ? "s" : "",
                                       fmt::join(carriers, ", ")));
  }
  std::vector<std::string> own = {"the batch (--concurrency)",
                                  fmt::format("'{}' (cached tokens)", b.past),
                                  fmt::format("'{}' (new tokens)", b.sequence)};
  for (const std::string& t : b.total) {
    own.push_back(fmt::format("'{}' (cached + new)", t));
  }
  if (!b.cache_branch.empty()) {
    own.push_back(fmt::format("'{}' (which branch)", b.cache_branch));
  }
  const std::string last = own.back();
  own.pop_back();
  std::string text = fmt::format(
      "binds {} and {} itself, not {}: give {}", fmt::join(own, ", "), last,
      fmt::join(listed, ", "), fmt::join(flags, " "));
  if (encoder) {
    text +=
        " (N: the encoder's output length, the same in each; Whisper's "
        "encoder gives 1500 positions for its 30 s window)";
  }
  if (on_kv && b.cache_branch.empty()) {
    text +=
        ". This decoder takes the encoder's keys and values as inputs and "
        "has no branch without them: a decoder with past only (optimum's "
        "decoder_with_past_model.onnx), whose first pass (decoder_model.onnx, "
        "which projects the encoder output into them) is another file. Serve "
        "optimum's decoder_model_merged.onnx, which holds both (optimum-cli "
        "export onnx writes it by default), with the same flags";
  }
  return InputError(ctx, text);
}

// The KV inputs (engine::IsKvCacheTensor: floating, rank >= 3, named like
// past / present / cache), their past-length dim (--kv-dim, else the one
// named dim they carry, else one of kPastNames, else the dim at rank - 2 of
// the first), the new tokens' dim (dim 1 of an integer input named like
// "ids", else one of kSequenceNames), the attention mask's other dims and
// a merged decoder's cache branch.
absl::StatusOr<DecoderBinding> FindDecoderBinding(const RunContext& ctx,
                                                  const Source& src) {
  absl::StatusOr<std::vector<importers::DeclaredInput>> inputs =
      DeclaredInputs(ctx, src);
  if (!inputs.ok()) return inputs.status();
  DecoderBinding b;
  std::vector<std::string> kv_dims;  // named dims of the KV inputs, in order
  std::string at_rank_minus_2;
  bool any_kv = false;
  std::vector<const importers::DeclaredInput*> other;
  for (const importers::DeclaredInput& in : *inputs) {
    graph::Tensor t;
    t.name = in.name;
    t.dtype = in.dtype;
    t.shape_known = in.shape_known;
    t.dims.resize(in.dims.size());
    if (!engine::IsKvCacheTensor(t)) {
      other.push_back(&in);
      continue;
    }
    for (const auto& [axis, name] : NamedDims(in)) {
      if (std::find(kv_dims.begin(), kv_dims.end(), name) == kv_dims.end()) {
        kv_dims.push_back(name);
      }
      if (!any_kv && axis + 2 == static_cast<int>(in.dims.size())) {
        at_rank_minus_2 = name;
      }
    }
    any_kv = true;
  }
  if (!any_kv) {
    return InputError(ctx,
                      "no KV cache: --serve needs a decoder that takes its "
                      "past keys and values as inputs (named like past, "
                      "present or cache)");
  }
  const Options& o = *ctx.options;
  if (!o.kv_dim.empty()) {
    if (std::find(kv_dims.begin(), kv_dims.end(), o.kv_dim) == kv_dims.end()) {
      return InputError(
          ctx, fmt::format("--kv-dim {}: no KV input has a dim of that name "
                           "(their named dims: {})",
                           o.kv_dim,
                           kv_dims.empty()
                               ? std::string("none")
                               : fmt::format("{}", fmt::join(kv_dims, ", "))));
    }
    b.past = o.kv_dim;
  } else if (kv_dims.size() == 1) {
    b.past = kv_dims.front();
  } else {
    for (const char* name : kPastNames) {
      if (b.past.empty() &&
          std::find(kv_dims.begin(), kv_dims.end(), name) != kv_dims.end()) {
        b.past = name;
      }
    }
    if (b.past.empty()) b.past = at_rank_minus_2;
  }
  if (b.past.empty()) {
    return InputError(ctx,
                      "cannot find the past-length dim: the KV inputs have no "
                      "named dim besides the batch; name one with --input "
                      "NAME=...xpastx... and --kv-dim past");
  }
  // The new tokens' dim: dim 1 of input_ids.
  for (const importers::DeclaredInput* in : other) {
    if (!b.sequence.empty() || graph::IsFloating(in->dtype) ||
        in->dims.size() != 2 ||
        !absl::StrContains(absl::AsciiStrToLower(in->name), "ids")) {
      continue;
    }
    for (const auto& [axis, name] : NamedDims(*in)) {
      if (name != b.past) b.sequence = name;
    }
  }
  for (const char* name : kSequenceNames) {
    if (!b.sequence.empty()) break;
    for (const importers::DeclaredInput* in : other) {
      for (const auto& [axis, dim] : NamedDims(*in)) {
        if (dim == name) b.sequence = name;
      }
    }
  }
  if (b.sequence.empty()) {
    return InputError(ctx,
                      "cannot find the new tokens' dim (a named dim 1 of "
                      "input_ids, or one named sequence / sequence_length)");
  }
  for (const importers::DeclaredInput* in : other) {
    const std::string lower = absl::AsciiStrToLower(in->name);
    if (absl::StrContains(lower, "mask")) {
      for (const auto& [axis, name] : NamedDims(*in)) {
        if (name != b.past && name != b.sequence &&
            std::find(b.total.begin(), b.total.end(), name) == b.total.end()) {
          b.total.push_back(name);
        }
      }
    }
    // The cache branch: one bool element deciding a main-graph If.
    const bool one_element =
        in->shape_known && std::all_of(in->dims.begin(), in->dims.end(),
                                       [](const importers::InputDim& d) {
                                         const int64_t* v =
                                             std::get_if<int64_t>(&d);
                                         return v != nullptr && *v == 1;
                                       });
    if (in->dtype == graph::DType::kBool && one_element &&
        std::find(in->read_by.begin(), in->read_by.end(), "If") !=
            in->read_by.end() &&
        (b.cache_branch.empty() || absl::StrContains(lower, "cache"))) {
      b.cache_branch = in->name;
    }
  }
  if (src.entry == nullptr) {  // a zoo entry's dims come with it
    if (absl::Status s = CheckServeBindsEveryDim(ctx, *inputs, b); !s.ok()) {
      return s;
    }
  }
  return b;
}

absl::StatusOr<graph::Graph> ImportAt(const RunContext& ctx, const Source& src,
                                      const Dims& dims, const Values& values,
                                      int64_t batch) {
  const Options& o = *ctx.options;
  importers::ImportOptions import;
  for (const auto& [name, value] : o.dims) import.dims[name] = value;
  for (const auto& [name, value] : dims) import.dims[name] = value;
  import.inputs = o.inputs;
  import.input_values = o.input_values;
  for (const auto& [name, value] : values) import.input_values[name] = value;
  import.batch = batch;
  absl::StatusOr<graph::Graph> g;
  if (src.entry != nullptr) {
    import.dims = zoo::EntryDims(*src.entry, import.dims, batch);
    g = importers::ImportWeightlessOnnxBytes(src.entry->onnx, src.entry->name,
                                             import);
  } else if (!ctx.model_bytes.empty()) {
    g = importers::ImportOnnxBytes(ctx.model_bytes, ctx.model_name, "", import);
  } else {
    g = importers::ImportOnnxFile(o.model_path, import);
  }
  if (!g.ok()) return InputError(ctx, std::string(MessageOf(g.status())));
  return g;
}

struct Graphs {
  graph::Graph prefill, decode, decode_next;
  graph::Graph decode_last;  // imported at the last step, to verify
  std::string decode_name;
};

absl::StatusOr<Graphs> LoadGraphs(const RunContext& ctx, int64_t prompt,
                                  int64_t last_past, int64_t batch) {
  std::optional<zoo::ModelEntry> prefill_entry, decode_entry;
  if (ctx.zoo_entry) {
    decode_entry = ctx.zoo_entry;
    const std::string& name = ctx.zoo_entry->name;
    for (const char* suffix : {"-prefill", "-decode"}) {
      if (!absl::EndsWith(name, suffix)) continue;
      const std::string base = name.substr(0, name.size() - strlen(suffix));
      absl::StatusOr<zoo::ModelEntry> p = zoo::FindZooModel(base + "-prefill");
      absl::StatusOr<zoo::ModelEntry> d = zoo::FindZooModel(base + "-decode");
      if (p.ok() && d.ok()) {
        prefill_entry = *p;
        decode_entry = *d;
      }
    }
  }
  Graphs out;
  out.decode_name = decode_entry ? "zoo:" + decode_entry->name : ctx.model_name;
  const Source dsrc{decode_entry ? &*decode_entry : nullptr};
  absl::StatusOr<DecoderBinding> bind = FindDecoderBinding(ctx, dsrc);
  if (!bind.ok()) return bind.status();
  auto import_step = [&](int64_t past, int64_t fresh, bool with_cache) {
    Dims dims;
    Values values;
    bind->At(past, fresh, with_cache, &dims, &values);
    return ImportAt(ctx, dsrc, dims, values, batch);
  };
  absl::StatusOr<graph::Graph> d = import_step(prompt, 1, true);
  if (!d.ok()) return d.status();
  absl::StatusOr<graph::Graph> d1 = import_step(prompt + 1, 1, true);
  if (!d1.ok()) return d1.status();
  // The prefill: the zoo's -prefill entry at N tokens, else the decoder
  // with nothing cached (a merged decoder's branch without past).
  absl::StatusOr<graph::Graph> pre =
      prefill_entry ? ImportAt(ctx, Source{&*prefill_entry},
                               {{bind->sequence, prompt}}, {}, batch)
                    : import_step(0, prompt, false);
  if (!pre.ok()) return pre.status();
  absl::StatusOr<graph::Graph> last_step = import_step(last_past, 1, true);
  if (!last_step.ok()) return last_step.status();
  out.decode_last = *std::move(last_step);
  out.decode = *std::move(d);
  out.decode_next = *std::move(d1);
  out.prefill = *std::move(pre);
  return out;
}

// The graphs at one (micro-)batch, the past-length rebinding verified
// against an import at the last step.
absl::StatusOr<engine::ServeGraphs> ServeGraphsAt(const RunContext& ctx,
                                                  int64_t prompt,
                                                  int64_t generate,
                                                  int64_t batch) {
  absl::StatusOr<Graphs> graphs = LoadGraphs(
      ctx, prompt, engine::LastDecodeContext(prompt, generate), batch);
  if (!graphs.ok()) return graphs.status();
  absl::StatusOr<engine::PastRebinder> rebind =
      engine::PastRebinder::Create(graphs->decode, graphs->decode_next, prompt);
  if (!rebind.ok())
    return InputError(ctx, std::string(MessageOf(rebind.status())));
  if (absl::Status v = rebind->Verify(
          graphs->decode_last, engine::LastDecodeContext(prompt, generate));
      !v.ok()) {
    return InputError(ctx, std::string(MessageOf(v)));
  }
  engine::ServeGraphs out;
  out.prefill = std::move(graphs->prefill);
  out.decode = std::move(graphs->decode);
  out.decode_next = std::move(graphs->decode_next);
  out.decode_name = std::move(graphs->decode_name);
  return out;
}

// An analysis' errors name the model.
absl::Status NameModel(const RunContext& ctx, const absl::Status& status) {
  const std::string m(MessageOf(status));
  return absl::InvalidArgumentError(
      absl::StrContains(m, ctx.model_name) || absl::StrContains(m, "zoo:")
          ? std::string(m)
          : fmt::format("{}: --serve: {}", ctx.model_name, m));
}

// The serving inputs every analysis shares: device, options, N, M, price.
absl::StatusOr<engine::ServeInputs> BaseInputs(const RunContext& ctx) {
  const Options& o = *ctx.options;
  if (!o.prompt || !o.generate) {  // options.cc requires both with --serve
    return InputError(ctx, "--prompt N and --generate M are required");
  }
  engine::ServeInputs in;
  in.hardware = ctx.hw;
  in.options = ctx.analyze;
  in.prompt = *o.prompt;
  in.generate = *o.generate;
  in.usd_per_gpu_hour = o.usd_per_gpu_hour;
  in.parallel = o.parallel;
  return in;
}

// `concurrency` (a --sweep concurrency=LIST point) replaces --concurrency.
// With --pp P --microbatches M the graphs are imported at B / M.
absl::StatusOr<engine::ServeResult> RunServe(
    const RunContext& ctx, std::optional<int64_t> concurrency = std::nullopt) {
  const Options& o = *ctx.options;
  absl::StatusOr<engine::ServeInputs> in = BaseInputs(ctx);
  if (!in.ok()) return in.status();
  const int64_t batch = concurrency.value_or(o.concurrency.value_or(1));
  in->concurrency = batch;
  const int64_t m = o.parallel.pp > 1 ? o.parallel.microbatches : 1;
  if (batch % m != 0) {
    return InputError(
        ctx, fmt::format("--microbatches {} must divide the concurrency {} "
                         "(the requests are decoded as {} micro-batches of "
                         "equal size)",
                         m, batch, m));
  }
  absl::StatusOr<engine::ServeGraphs> graphs =
      ServeGraphsAt(ctx, in->prompt, in->generate, batch / m);
  if (!graphs.ok()) return graphs.status();
  in->prefill = &graphs->prefill;
  in->decode = &graphs->decode;
  in->decode_next = &graphs->decode_next;
  in->decode_name = graphs->decode_name;
  absl::StatusOr<engine::ServeResult> r = engine::AnalyzeServe(*in);
  if (!r.ok()) return NameModel(ctx, r.status());
  // Once per run, though a sweep serves at every concurrency (and the text
  // and JSON writers each serve).
  const auto warn_once = [&ctx](const std::string& text) {
    if (ctx.warnings == nullptr ||
        std::find(ctx.warnings->begin(), ctx.warnings->end(), text) ==
            ctx.warnings->end()) {
      Warn(ctx, text);
    }
  };
  if (r->encoder.encoder_decoder()) {
    warn_once(fmt::format("{}: --serve: this model is {}", ctx.model_name,
                          engine::report::TtftEncoderNote(r->encoder)));
  }
  // The run's own configuration (a sweep's table says it per row).
  if (!concurrency && !r->memory.fits) {
    const engine::ServeMemory& mem = r->memory;
    const auto bytes = [](double b) {
      return engine::report::FormatSi(b, "B");
    };
    warn_once(
        fmt::format("{}: --serve: does not fit{}: weights {} + KV cache {} "
                    "+ activations {} + reserve {} = {} of {}; the times "
                    "assume it fits (shard with --tp/--pp/--ep, quantize "
                    "with --weights or --precision, or pick a larger --hw)",
                    ctx.model_name, o.parallel.gpus() > 1 ? " per GPU" : "",
                    bytes(mem.weight_bytes), bytes(mem.kv_cache_bytes),
                    bytes(mem.activation_bytes), bytes(mem.reserve_bytes),
                    bytes(mem.total_bytes), bytes(mem.capacity_bytes)));
  }
  return r;
}

// --search: engine::SearchServe over tensor parallel 1..node x pipeline
// parallel 1, 2, 4 x concurrency x the run's weights and weight-only int8 /
// int4; 3 decode steps analyzed per point.
absl::StatusOr<engine::ServeSearch> RunSearch(const RunContext& ctx) {
  const Options& o = *ctx.options;
  engine::ServeSearchInputs in;
  in.ttft_max_s = o.ttft_max;
  in.tpot_max_s = o.tpot_max;
  absl::StatusOr<engine::ServeInputs> base = BaseInputs(ctx);
  if (!base.ok()) return base.status();
  in.serve = *std::move(base);
  in.serve.quantize.int4_group_size = o.int4_group;
  const int64_t prompt = in.serve.prompt, generate = in.serve.generate;
  absl::StatusOr<engine::ServeSearch> s =
      engine::SearchServe(in, [&](int64_t batch) {
        return ServeGraphsAt(ctx, prompt, generate, batch);
      });
  if (!s.ok()) return NameModel(ctx, s.status());
  if (s->results.empty() && s->excluded.empty()) {
    return InputError(ctx, "--search: no configuration could be analyzed");
  }
  return s;
}

}  // namespace

absl::Status AddServeDecodeBindings(const RunContext& ctx,
                                    importers::ImportOptions* import) {
  const Options& o = *ctx.options;
  if (!o.prompt) return InputError(ctx, "--prompt N is required");
  const int64_t prompt = *o.prompt;
  const int64_t batch = o.concurrency.value_or(1);
  absl::StatusOr<DecoderBinding> bind = FindDecoderBinding(ctx, Source{});
  if (!bind.ok()) return bind.status();
  Dims dims;
  Values values;
  bind->At(prompt, 1, true, &dims, &values);
  for (const auto& [name, value] : dims) import->dims.try_emplace(name, value);
  for (const auto& [name, value] : values) {
    import->input_values.try_emplace(name, value);
  }
  if (!import->batch) import->batch = batch;
  return absl::OkStatus();
}

absl::StatusOr<std::string> SearchText(const RunContext& ctx) {
  absl::StatusOr<engine::ServeSearch> s = RunSearch(ctx);
  if (!s.ok()) return s.status();
  return engine::report::FormatServeSearch(*s, ctx.table_width);
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
  return engine::report::FormatServe(*r, ctx.table_width);
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
  return engine::report::FormatServeSweep(*r, ctx.table_width);
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
