#include "tools/analyze/options.h"

#include <optional>
#include <string_view>

#include "absl/strings/match.h"
#include "engine/fusion.h"
#include "engine/precision.h"
#include "engine/sweep.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "tools/cli/flags.h"

namespace ridgeline::tools::analyze {
namespace {

using cli::BadValue;
using cli::ParseDouble;
using cli::ParseInt;
using Flag = cli::Flag<Options>;

absl::Status ApplyHw(Options& o, std::string_view v) {
  o.hw.clear();
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    if (comma == std::string_view::npos) comma = v.size();
    std::string_view name = v.substr(start, comma - start);
    if (name.empty()) return BadValue("--hw", v, "a device name or a,b,...");
    o.hw.emplace_back(name);
    start = comma + 1;
  }
  return absl::OkStatus();
}

absl::Status ApplyBatch(Options& o, std::string_view v) {
  std::optional<int64_t> n = ParseInt(v);
  if (!n || *n < 1) return BadValue("--batch", v, "an integer >= 1");
  o.batch = *n;
  return absl::OkStatus();
}

absl::Status ApplyDim(Options& o, std::string_view v) {
  const size_t eq = v.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return BadValue("--dim", v, "NAME=VALUE");
  }
  std::optional<int64_t> n = ParseInt(v.substr(eq + 1));
  if (!n || *n < 0) return BadValue("--dim", v, "NAME=VALUE with VALUE >= 0");
  o.dims.emplace_back(std::string(v.substr(0, eq)), *n);
  return absl::OkStatus();
}

// NAME=REST with a non-empty NAME, or nullopt.
std::optional<std::pair<std::string, std::string_view>> SplitNameValue(
    std::string_view v) {
  const size_t eq = v.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == v.size()) {
    return std::nullopt;
  }
  return std::make_pair(std::string(v.substr(0, eq)), v.substr(eq + 1));
}

// Splits `v` at every `sep`.
std::vector<std::string_view> SplitAt(std::string_view v, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t at = v.find(sep, start);
    parts.push_back(v.substr(start, at == std::string_view::npos
                                        ? std::string_view::npos
                                        : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

absl::Status ApplyInput(Options& o, std::string_view v) {
  constexpr std::string_view kExpected =
      "NAME=D0xD1x... with each D a number >= 0, ? or a dim name";
  auto split = SplitNameValue(v);
  if (!split) return BadValue("--input", v, kExpected);
  std::vector<importers::InputDim> dims;
  for (std::string_view d : SplitAt(split->second, 'x')) {
    if (d.empty()) return BadValue("--input", v, kExpected);
    if (std::optional<int64_t> n = ParseInt(d)) {
      if (*n < 0) return BadValue("--input", v, kExpected);
      dims.emplace_back(*n);
    } else {
      dims.emplace_back(std::string(d));
    }
  }
  o.inputs[split->first] = std::move(dims);
  return absl::OkStatus();
}

absl::Status ApplyInputValue(Options& o, std::string_view v) {
  constexpr std::string_view kExpected = "NAME=V or NAME=V,V,... (numbers)";
  auto split = SplitNameValue(v);
  if (!split) return BadValue("--input-value", v, kExpected);
  std::vector<double> values;
  for (std::string_view x : SplitAt(split->second, ',')) {
    std::optional<double> d = ParseDouble(x);
    if (!d) return BadValue("--input-value", v, kExpected);
    values.push_back(*d);
  }
  o.input_values[split->first] = std::move(values);
  return absl::OkStatus();
}

absl::Status ApplyPrecision(Options& o, std::string_view v) {
  const engine::Precision* p = engine::FindPrecision(v);
  if (p == nullptr || !p->selectable) {
    return BadValue("--precision", v, engine::SelectablePrecisionList());
  }
  o.analyze.precision = std::string(v);
  return absl::OkStatus();
}

absl::Status ApplyFlopsPerMac(Options& o, std::string_view v) {
  if (v == "1") {
    o.analyze.flops_per_mac = 1;
  } else if (v == "2") {
    o.analyze.flops_per_mac = 2;
  } else {
    return BadValue("--flops-per-mac", v, "1 or 2");
  }
  return absl::OkStatus();
}

absl::Status ApplyFraction(std::string_view flag, std::string_view v,
                           double* out) {
  std::optional<double> x = ParseDouble(v);
  if (!x || *x <= 0 || *x > 1) return BadValue(flag, v, "a number in (0, 1]");
  *out = *x;
  return absl::OkStatus();
}

absl::Status ApplyEfficiency(Options& o, std::string_view v) {
  absl::Status s =
      ApplyFraction("--efficiency", v, &o.analyze.compute_efficiency);
  if (s.ok())
    o.analyze.overrides.compute_efficiency = o.analyze.compute_efficiency;
  return s;
}

absl::Status ApplyMemoryEfficiency(Options& o, std::string_view v) {
  absl::Status s =
      ApplyFraction("--memory-efficiency", v, &o.analyze.memory_efficiency);
  if (s.ok())
    o.analyze.overrides.memory_efficiency = o.analyze.memory_efficiency;
  return s;
}

std::optional<double> Microseconds(std::string_view v) {
  std::optional<double> x = ParseDouble(v);
  if (!x || *x < 0) return std::nullopt;
  return *x / 1e6;  // correctly rounded: "5" -> 5e-6 exactly
}

absl::Status ApplyLayerTax(Options& o, std::string_view v) {
  std::optional<double> s = Microseconds(v);
  if (!s) return BadValue("--layer-tax-us", v, "microseconds >= 0");
  o.analyze.per_layer_tax_s = *s;
  o.analyze.overrides.per_node_tax_s = *s;
  return absl::OkStatus();
}

absl::Status ApplyDispatchTax(Options& o, std::string_view v) {
  std::optional<double> s = Microseconds(v);
  if (!s) return BadValue("--dispatch-tax-us", v, "microseconds >= 0");
  o.analyze.dispatch_tax_s = *s;
  return absl::OkStatus();
}

absl::Status ApplySkipRuns(Options& o, std::string_view v) {
  std::optional<int64_t> n = ParseInt(v);
  if (!n || *n < 0) return BadValue("--skip-runs", v, "an integer >= 0");
  o.skip_runs = *n;
  return absl::OkStatus();
}

// A number > 0 (`expected` says what, for the error).
absl::Status ApplyPositive(std::string_view flag, std::string_view v,
                           std::string_view expected,
                           std::optional<double>* out) {
  std::optional<double> x = ParseDouble(v);
  if (!x || *x <= 0) return BadValue(flag, v, expected);
  *out = *x;
  return absl::OkStatus();
}

absl::Status ApplyServeCount(std::string_view flag, std::string_view v,
                             std::optional<int64_t>* out) {
  std::optional<int64_t> n = ParseInt(v);
  if (!n || *n < 1 || *n > kMaxServeCount) {
    return BadValue(flag, v,
                    fmt::format("an integer in [1, {}]", kMaxServeCount));
  }
  *out = *n;
  return absl::OkStatus();
}

absl::Status ApplyGpuCount(std::string_view flag, std::string_view v,
                           int* out) {
  std::optional<int64_t> n = ParseInt(v);
  if (!n || *n < 1 || *n > 4096)
    return BadValue(flag, v, "an integer in [1, 4096]");
  *out = static_cast<int>(*n);
  return absl::OkStatus();
}

absl::Status ApplyTop(Options& o, std::string_view v) {
  std::optional<int64_t> n = ParseInt(v);
  if (!n || *n < 1 || *n > 1000000)
    return BadValue("--top", v, "an integer >= 1");
  o.report.top = static_cast<int>(*n);
  return absl::OkStatus();
}

// --format values: the report writers' plus the pictures.
constexpr std::string_view kAllFormats = "table|json|csv|md|html|svg";

absl::Status ApplyFormat(Options& o, std::string_view v) {
  o.picture = Options::Picture::kNone;
  if (v == "html" || v == "svg") {
    o.picture = v == "html" ? Options::Picture::kHtml : Options::Picture::kSvg;
    o.format = engine::report::Format::kTable;
    return absl::OkStatus();
  }
  absl::StatusOr<engine::report::Format> f = engine::report::ParseFormat(v);
  if (!f.ok()) return BadValue("--format", v, kAllFormats);
  o.format = *f;
  return absl::OkStatus();
}

// Sets `*out` to `v` when it is one of `allowed` ("a|b|c").
absl::Status ApplyChoice(std::string_view flag, std::string_view allowed,
                         std::string_view v, std::string* out) {
  absl::StatusOr<std::string> choice = cli::Choice(flag, allowed, v);
  if (!choice.ok()) return choice.status();
  *out = *std::move(choice);
  return absl::OkStatus();
}

absl::Status ApplyFuse(Options& o, std::string_view v) {
  absl::StatusOr<engine::FusionKinds> kinds = engine::ParseFusionKinds(v);
  if (!kinds.ok()) {
    return BadValue("--fuse", v,
                    "none|epilogue|elementwise|attention|all, or a,b");
  }
  o.fuse = std::string(v);
  return absl::OkStatus();
}

absl::Status ApplySweep(Options& o, std::string_view v) {
  absl::StatusOr<engine::SweepSpec> spec = ParseSweepFlag(v);
  if (!spec.ok()) return spec.status();
  o.sweep = std::string(v);
  return absl::OkStatus();
}

absl::Status SetSwitch(bool* b) {
  *b = true;
  return absl::OkStatus();
}

// The flag table: usage text and parsing both come from here.
constexpr Flag kFlags[] = {
    {"--hw", "NAME",
     "device from the built-in zoo (key, name or alias, any case; see "
     "--list-hw); a,b: html/svg draw every roof, the tables use the first",
     ApplyHw},
    {"--hw-file", "FILE.json",
     "load a device description (same JSON as zoo/hardware/*.json); used "
     "unless --hw names another device",
     [](Options& o, std::string_view v) {
       o.hw_file = std::string(v);
       return absl::OkStatus();
     }},
    {"--list-hw", "", "print the hardware zoo (with --format) and exit",
     [](Options& o, std::string_view) {
       o.list_hw = true;
       return absl::OkStatus();
     }},
    {"--batch", "N",
     "bind the batch dims to N: dims named like \"batch\" and the symbolic "
     "first dim of every input of rank >= 2 (throughput = N / latency)",
     ApplyBatch},
    {"--dim", "NAME=VALUE",
     "bind the symbolic input dim NAME to VALUE >= 0 (0: an empty dim, e.g. "
     "a decoder's past length at the prefill; repeatable; wins over --batch; "
     "a NAME that matches no input dim is an error listing the model's)",
     ApplyDim},
    {"--input", "NAME=D0xD1x...",
     "bind every dim of input NAME: a number, ? (keep the model's dim) or a "
     "name for the dim (\"batch\" joins the batch), e.g. state=2x?x128 "
     "(repeatable)",
     ApplyInput},
    {"--input-value", "NAME=V[,V...]",
     "give input NAME a value (integers, floats or a list) that the constant "
     "evaluator folds: If conditions, shape arithmetic (repeatable)",
     ApplyInputValue},
    {"--precision", "P",
     "re-price floating tensors at P and use P's peak: fp32|tf32|fp16|bf16|"
     "int8|int4 every one, fp8 the weights and the KV cache (activations "
     "stay 16-bit, as LLM runtimes run FP8) (default: the model's dtypes; "
     "a --zoo LLM: its published checkpoint's dtype, see --list-zoo)",
     ApplyPrecision},
    {"--flops-per-mac", "1|2",
     "FLOPs counted per multiply-accumulate (default 2, the vendors' "
     "convention)",
     ApplyFlopsPerMac},
    {"--runtime", "NAME|FILE.json",
     "runtime profile that maps the graph to kernels and prices them: "
     "compiled|eager|tensorrt|ort-cpu|mlsysim or a profile file (default: "
     "compiled on a GPU, ort-cpu on a CPU; see --list-runtimes)",
     [](Options& o, std::string_view v) {
       if (v.empty())
         return BadValue("--runtime", v, "a runtime name or FILE.json");
       o.runtime = std::string(v);
       return absl::OkStatus();
     }},
    {"--list-runtimes", "", "print the built-in runtime profiles and exit",
     [](Options& o, std::string_view) { return SetSwitch(&o.list_runtimes); }},
    {"--efficiency", "E",
     "override: fraction of peak compute attained (flat runtimes: replaces "
     "their efficiency; size-aware: the device's fitted matrix efficiency)",
     ApplyEfficiency},
    {"--memory-efficiency", "E",
     "override: fraction of memory bandwidth attained (replaces the "
     "runtime's or the device's fitted value)",
     ApplyMemoryEfficiency},
    {"--layer-tax-us", "U",
     "override: per-node tax of a flat runtime, or per-kernel launch cost "
     "(no CUDA graphs) of a size-aware one, microseconds",
     ApplyLayerTax},
    {"--dispatch-tax-us", "U",
     "once-per-inference dispatch cost, microseconds (default: the device's)",
     ApplyDispatchTax},
    {"--top", "K", "layers listed by latency in table/md output (default 25)",
     ApplyTop},
    {"--all-layers", "",
     "table/md: list every layer in order (views included), no grouping",
     [](Options& o, std::string_view) {
       o.report.all_layers = true;
       return absl::OkStatus();
     }},
    {"--format", "table|json|csv|md|html|svg",
     "output format (default table); html: self-contained report, svg: the "
     "roofline plot only (use with -o)",
     ApplyFormat},
    {"-o", "FILE", "write the report to FILE instead of standard output",
     [](Options& o, std::string_view v) {
       o.output_path = std::string(v);
       return absl::OkStatus();
     },
     "--output"},
    {"--list-zoo", "",
     "print the built-in model zoo (with --format: json, md, csv) and exit",
     [](Options& o, std::string_view) { return SetSwitch(&o.list_zoo); }},
    {"--zoo", "NAME",
     "analyze a built-in model (see --list-zoo) instead of MODEL.onnx; its "
     "default dims apply unless --batch/--dim rebind them",
     [](Options& o, std::string_view v) {
       o.zoo = std::string(v);
       return absl::OkStatus();
     }},
    {"--whole-model", "",
     "also print the whole-model (lumped) estimate next to the layer-level "
     "one (json: \"whole_model\")",
     [](Options& o, std::string_view) { return SetSwitch(&o.whole_model); }},
    {"--mlsysim", "",
     "mlsysim's assumptions: 1 FLOP per MAC, efficiency 0.5, memory "
     "efficiency 1, 10 us per layer, its whole-model formula (implies "
     "--whole-model and --runtime mlsysim unless --runtime is given; "
     "flags after it override)",
     [](Options& o, std::string_view) {
       o.analyze.flops_per_mac = 1;
       o.analyze.compute_efficiency = 0.5;
       o.analyze.memory_efficiency = 1.0;
       o.analyze.per_layer_tax_s = 10e-6;
       return SetSwitch(&o.mlsysim);
     }},
    {"--sweep", "batch=LIST|hw=A,B|tp=LIST|pp=LIST|ep=LIST",
     "one row per batch (1,2,4,...,256 or 1:64) or per device: latency, "
     "throughput, bound, MFU, where the bound flips; tp=1,2,4,8 (pp=, ep= "
     "alike): one full tensor- (pipeline-, expert-) parallel analysis per "
     "GPU count (speed-up, weights per GPU, collectives); with --serve, "
     "concurrency=1,8,32: TTFT, TPOT, tokens/s, memory per concurrency",
     ApplySweep},
    {"--fuse", "KINDS",
     "fusion what-if: none|epilogue|elementwise|attention|all (comma "
     "combinations); json adds \"groups\", \"layers\" stay unfused; with "
     "--tp/--ep, one GPU's kernels (--ep: the busiest GPU's); no group across "
     "an all-reduce, a stage's send or an expert all-to-all",
     ApplyFuse},
    {"--weights", "P", "quantization what-if: weights at int8|int4|fp8|fp16",
     [](Options& o, std::string_view v) {
       return ApplyChoice("--weights", "int8|int4|fp8|fp16", v, &o.weights);
     }},
    {"--int4-group", "N",
     "with --weights int4: elements per fp16 scale (default 128; gpt-fast "
     "uses 32, torchao 64)",
     [](Options& o, std::string_view v) {
       std::optional<int64_t> n = ParseInt(v);
       if (!n || *n < 1 || *n > (int64_t{1} << 30)) {
         return BadValue("--int4-group", v, "an integer >= 1");
       }
       o.int4_group = *n;
       return absl::OkStatus();
     }},
    {"--activations", "P", "quantization what-if: activations at int8|fp8|fp16",
     [](Options& o, std::string_view v) {
       return ApplyChoice("--activations", "int8|fp8|fp16", v, &o.activations);
     }},
    {"--kv-cache", "P",
     "quantization what-if: KV cache at int8|fp8|fp16 (default: follows "
     "--activations)",
     [](Options& o, std::string_view v) {
       return ApplyChoice("--kv-cache", "int8|fp8|fp16", v, &o.kv_cache);
     }},
    {"--what-if", "",
     "one table: as stored, each fusion level, each quantization, the best "
     "combination",
     [](Options& o, std::string_view) { return SetSwitch(&o.what_if); }},
    {"--measured", "PROFILE.json",
     "compare with an ONNX Runtime or PyTorch profile: per-layer predicted, "
     "measured, ratio, % of roof (json: measured_s, ratio per layer)",
     [](Options& o, std::string_view v) {
       o.measured_path = std::string(v);
       return absl::OkStatus();
     }},
    {"--skip-runs", "N",
     "with --measured: leave the profile's first N runs (warm-up) out of the "
     "per-run means (default 0)",
     ApplySkipRuns},
    {"--fit", "",
     "with --measured and --fit-out: fit per-op-type efficiencies to the "
     "profile",
     [](Options& o, std::string_view) { return SetSwitch(&o.fit); }},
    {"--fit-out", "FILE.json",
     "where --fit writes the fitted device (the --hw-file format)",
     [](Options& o, std::string_view v) {
       o.fit_out = std::string(v);
       return absl::OkStatus();
     }},
    {"--serve", "",
     "LLM serving of a decoder: time to first token, time per output token "
     "as the KV cache grows, request latency, tokens/s, memory (weights + KV "
     "cache + activations + reserve) and the largest concurrency that fits "
     "(json: \"serve\")",
     [](Options& o, std::string_view) { return SetSwitch(&o.serve); }},
    {"--prompt", "N", "with --serve: prompt tokens per request",
     [](Options& o, std::string_view v) {
       return ApplyServeCount("--prompt", v, &o.prompt);
     }},
    {"--generate", "M", "with --serve: output tokens per request",
     [](Options& o, std::string_view v) {
       return ApplyServeCount("--generate", v, &o.generate);
     }},
    {"--concurrency", "B",
     "with --serve: requests decoded together (the batch; default 1)",
     [](Options& o, std::string_view v) {
       return ApplyServeCount("--concurrency", v, &o.concurrency);
     }},
    {"--kv-dim", "NAME",
     "with --serve: the past-length dim of the KV inputs (default: found "
     "from the model, e.g. past_sequence)",
     [](Options& o, std::string_view v) {
       o.kv_dim = std::string(v);
       return absl::OkStatus();
     }},
    {"--usd-per-gpu-hour", "P",
     "with --serve: price of one GPU for an hour, US dollars; adds the cost "
     "per million output tokens (GPUs x P x request latency / tokens)",
     [](Options& o, std::string_view v) {
       return ApplyPositive("--usd-per-gpu-hour", v,
                            "a price > 0, US dollars per GPU-hour",
                            &o.usd_per_gpu_hour);
     }},
    {"--search", "",
     "with --serve: analyze tensor parallel 1, 2, 4, ... x pipeline parallel "
     "1, 2, 4 (and expert parallel 2, 4, ... for a mixture-of-experts model) "
     "x the run's weights and weight-only int8/int4 x concurrency 1, 2, 4, "
     "... and print the Pareto set (TPOT vs tokens/s per GPU), the "
     "cheapest configuration meeting --ttft-max/--tpot-max and what does not "
     "fit (json: \"search\")",
     [](Options& o, std::string_view) { return SetSwitch(&o.search); }},
    {"--ttft-max", "S", "with --search: time-to-first-token target, seconds",
     [](Options& o, std::string_view v) {
       return ApplyPositive("--ttft-max", v, "a time > 0 in seconds",
                            &o.ttft_max);
     }},
    {"--tpot-max", "S", "with --search: time-per-output-token target, seconds",
     [](Options& o, std::string_view v) {
       return ApplyPositive("--tpot-max", v, "a time > 0 in seconds",
                            &o.tpot_max);
     }},
    {"--tp", "T",
     "tensor parallel over T GPUs: attention and MLP MatMuls split "
     "Megatron-style, two all-reduces per transformer layer (default 1)",
     [](Options& o, std::string_view v) {
       return ApplyGpuCount("--tp", v, &o.parallel.tp);
     }},
    {"--pp", "P",
     "pipeline parallel over P stages balanced by time, a send/receive "
     "between stages (default 1)",
     [](Options& o, std::string_view v) {
       return ApplyGpuCount("--pp", v, &o.parallel.pp);
     }},
    {"--ep", "E",
     "expert parallel over E GPUs for mixture-of-experts models: each holds "
     "1/E of every MoE layer's experts, attention runs data-parallel, an "
     "all-to-all dispatch and combine around each MoE layer (default 1)",
     [](Options& o, std::string_view v) {
       return ApplyGpuCount("--ep", v, &o.parallel.ep);
     }},
    {"--microbatches", "M",
     "with --pp: micro-batches in flight; adds the pipeline time, bubble "
     "fraction and throughput; with --serve the requests decode as M "
     "micro-batches of B/M (default 1)",
     [](Options& o, std::string_view v) {
       return ApplyGpuCount("--microbatches", v, &o.parallel.microbatches);
     }},
    {"--help", "", "print this help and exit",
     [](Options& o, std::string_view) {
       o.help = true;
       return absl::OkStatus();
     },
     "-h"},
};

}  // namespace

std::string UsageText() {
  std::string text =
      "usage: analyze MODEL.onnx (--hw NAME | --hw-file FILE.json) [flags]\n"
      "       analyze --zoo NAME (--hw NAME | --hw-file FILE.json) [flags]\n"
      "       analyze --list-hw [--hw-file FILE.json] [--format F]\n"
      "       analyze --list-zoo\n\n"
      "Predicts the latency of every layer of an ONNX model on a device: the "
      "kernels a\nruntime profile launches for it (--runtime), each timed "
      "by its roofline regime\n(compute or memory bound) plus fixed and "
      "launch costs, then the whole model.\n\nflags:\n";
  text += cli::HelpLines<Options>(kFlags, 34);
  text +=
      "\nexit status: 0 success, 1 usage error, 2 model, hardware or input "
      "error\n";
  return text;
}

absl::StatusOr<engine::SweepSpec> ParseSweepFlag(std::string_view value) {
  absl::StatusOr<engine::SweepSpec> spec = engine::ParseSweepSpec(value);
  if (!spec.ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "--sweep: invalid value '{}': {}", value, MessageOf(spec.status())));
  }
  return spec;
}

absl::StatusOr<Options> ParseArgs(const std::vector<std::string>& args) {
  Options o;
  absl::Status parsed = cli::ParseFlags<Options>(
      kFlags, args, o, [&o](std::string_view arg) -> absl::Status {
        if (!o.model_path.empty()) {
          return absl::InvalidArgumentError(fmt::format(
              "unexpected argument '{}' (one model per run; the model is "
              "'{}')",
              arg, o.model_path));
        }
        o.model_path = std::string(arg);
        return absl::OkStatus();
      });
  if (!parsed.ok()) return parsed;
  if (o.help) return o;
  if (o.list_hw) {
    if (!o.model_path.empty()) {
      return absl::InvalidArgumentError(
          "--list-hw takes no model; run it on its own");
    }
    return o;
  }
  if (o.list_runtimes) {
    if (!o.model_path.empty() || !o.zoo.empty()) {
      return absl::InvalidArgumentError(
          "--list-runtimes takes no model; run it on its own");
    }
    return o;
  }
  if (o.list_zoo) {
    if (!o.model_path.empty() || !o.zoo.empty()) {
      return absl::InvalidArgumentError(
          "--list-zoo takes no model; run it on its own");
    }
    return o;
  }
  if (!o.zoo.empty() && !o.model_path.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "give either MODEL.onnx or --zoo NAME, not both (got '{}' and --zoo "
        "{})",
        o.model_path, o.zoo));
  }
  if (o.model_path.empty() && o.zoo.empty()) {
    return absl::InvalidArgumentError(
        "no model given (MODEL.onnx or --zoo NAME)");
  }
  if (o.hw.empty() && o.hw_file.empty()) {
    return absl::InvalidArgumentError(
        "no device given: pass --hw NAME (see --list-hw) or --hw-file "
        "FILE.json");
  }
  if (o.mlsysim) o.whole_model = true;
  if (o.skip_runs > 0 && o.measured_path.empty()) {
    return absl::InvalidArgumentError(
        "--skip-runs needs --measured PROFILE.json");
  }
  if (o.fit && o.measured_path.empty()) {
    return absl::InvalidArgumentError("--fit needs --measured PROFILE.json");
  }
  if (o.fit && o.fit_out.empty()) {
    return absl::InvalidArgumentError(
        "--fit needs --fit-out FILE.json (where the fitted device goes)");
  }
  if (!o.serve && (o.prompt || o.generate || o.concurrency ||
                   !o.kv_dim.empty() || o.usd_per_gpu_hour)) {
    return absl::InvalidArgumentError(
        "--prompt, --generate, --concurrency, --kv-dim and "
        "--usd-per-gpu-hour are only used with --serve");
  }
  if (!o.fit_out.empty() && !o.fit) {
    return absl::InvalidArgumentError("--fit-out is only used with --fit");
  }
  if (o.parallel.microbatches > 1 && o.parallel.pp == 1) {
    return absl::InvalidArgumentError("--microbatches needs --pp P > 1");
  }
  // A serving sweep (--serve --sweep concurrency=LIST) serves the sharded
  // model at each concurrency.
  const bool serve_sweep = o.serve && absl::StartsWith(o.sweep, "concurrency=");
  if (o.parallel.gpus() > 1 &&
      (o.whole_model || (!o.sweep.empty() && !serve_sweep) ||
       !o.measured_path.empty())) {
    return absl::InvalidArgumentError(
        "--tp/--pp/--ep work with the per-layer report, --serve (and its "
        "--sweep concurrency=LIST) and the quantization what-ifs; not yet "
        "with --whole-model, another --sweep (use --sweep tp=LIST, pp=LIST "
        "or ep=LIST) or --measured");
  }
  if (o.parallel.gpus() > 1 && !o.activations.empty()) {
    return absl::InvalidArgumentError(
        "with --tp/--pp/--ep, the what-ifs are --fuse, --weights, --kv-cache "
        "and --what-if: --activations is not sharded yet (quantized "
        "activations would change the messages of the all-reduces, pipeline "
        "sends and expert all-to-alls)");
  }
  if ((o.ttft_max || o.tpot_max) && !o.search) {
    return absl::InvalidArgumentError(
        "--ttft-max and --tpot-max are only used with --search");
  }
  if (o.serve && (!o.prompt || !o.generate)) {
    return absl::InvalidArgumentError(
        "--serve needs --prompt N and --generate M (prompt and output tokens "
        "per request)");
  }
  if (o.search && (!o.serve || !o.sweep.empty() || o.concurrency ||
                   o.parallel.gpus() > 1)) {
    return absl::InvalidArgumentError(
        "--search needs --serve and chooses the tensor and pipeline parallel "
        "widths, the weight precision and the concurrency itself: not with "
        "--sweep, --concurrency, --tp, --pp or --ep");
  }
  if (absl::StartsWith(o.sweep, "concurrency=") &&
      (!o.serve || o.concurrency)) {
    return absl::InvalidArgumentError(
        "--sweep concurrency=LIST needs --serve and replaces --concurrency");
  }
  if (!o.sweep.empty() && o.serve &&
      !absl::StartsWith(o.sweep, "concurrency=")) {
    return absl::InvalidArgumentError(
        "with --serve, --sweep takes concurrency=LIST only");
  }
  // The sweep's parallel dimension, if any (ApplySweep checked the spec).
  std::optional<engine::ParallelAxis> parallel_axis;
  if (!o.sweep.empty()) {
    absl::StatusOr<engine::SweepSpec> spec = engine::ParseSweepSpec(o.sweep);
    if (spec.ok()) parallel_axis = engine::ParallelAxisOf(spec->axis);
  }
  if (parallel_axis &&
      (o.whole_model || !o.fuse.empty() || !o.weights.empty() ||
       !o.activations.empty() || !o.kv_cache.empty() || o.what_if ||
       !o.measured_path.empty() || o.serve)) {
    return absl::InvalidArgumentError(fmt::format(
        "--sweep {}=LIST works with the per-layer analysis only; not with "
        "--whole-model/--mlsysim, what-ifs, --measured or --serve",
        engine::ParallelAxisName(*parallel_axis)));
  }
  const bool any_mode = o.whole_model || !o.sweep.empty() || !o.fuse.empty() ||
                        !o.weights.empty() || !o.activations.empty() ||
                        !o.kv_cache.empty() || o.what_if ||
                        !o.measured_path.empty() || o.serve;
  if (any_mode && o.format == engine::report::Format::kCsv &&
      o.picture == Options::Picture::kNone) {
    return absl::InvalidArgumentError(
        "--format csv is one row per layer and carries no --whole-model, "
        "--sweep, what-if, --measured or --serve section; use table, md or "
        "json");
  }
  if (o.picture != Options::Picture::kNone &&
      (!o.sweep.empty() || !o.measured_path.empty() || o.search)) {
    return absl::InvalidArgumentError(
        "--sweep, --measured and --search are not drawn by --format html/svg; "
        "use table, md or json");
  }
  if (o.picture == Options::Picture::kSvg && o.serve) {
    return absl::InvalidArgumentError(
        "--format svg is the roofline plot only; --serve's charts are drawn "
        "by --format html");
  }
  return o;
}

}  // namespace ridgeline::tools::analyze
