#include "tools/analyze/options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "engine/precision.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"

namespace ridgeline::tools::analyze {
namespace {

using ApplyFn = absl::Status (*)(Options&, std::string_view value);

struct Flag {
  std::string_view name;        // "--batch"
  std::string_view value_name;  // "N"; empty for a switch
  std::string_view help;
  ApplyFn apply;
};

absl::Status Bad(std::string_view flag, std::string_view value,
                 std::string_view expected) {
  return absl::InvalidArgumentError(fmt::format(
      "{}: invalid value '{}' (expected {})", flag, value, expected));
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

absl::Status ApplyHw(Options& o, std::string_view v) {
  o.hw.clear();
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    if (comma == std::string_view::npos) comma = v.size();
    std::string_view name = v.substr(start, comma - start);
    if (name.empty()) return Bad("--hw", v, "a device name or a,b,...");
    o.hw.emplace_back(name);
    start = comma + 1;
  }
  return absl::OkStatus();
}

absl::Status ApplyBatch(Options& o, std::string_view v) {
  std::optional<int64_t> n = ParseInt(v);
  if (!n || *n < 1) return Bad("--batch", v, "an integer >= 1");
  o.batch = *n;
  return absl::OkStatus();
}

absl::Status ApplyDim(Options& o, std::string_view v) {
  const size_t eq = v.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Bad("--dim", v, "NAME=VALUE");
  }
  std::optional<int64_t> n = ParseInt(v.substr(eq + 1));
  if (!n || *n < 1) return Bad("--dim", v, "NAME=VALUE with VALUE >= 1");
  o.dims.emplace_back(std::string(v.substr(0, eq)), *n);
  return absl::OkStatus();
}

absl::Status ApplyPrecision(Options& o, std::string_view v) {
  const engine::Precision* p = engine::FindPrecision(v);
  if (p == nullptr || !p->selectable) {
    return Bad("--precision", v, engine::SelectablePrecisionList());
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
    return Bad("--flops-per-mac", v, "1 or 2");
  }
  return absl::OkStatus();
}

absl::Status ApplyFraction(std::string_view flag, std::string_view v,
                           double* out) {
  std::optional<double> x = ParseDouble(v);
  if (!x || *x <= 0 || *x > 1) return Bad(flag, v, "a number in (0, 1]");
  *out = *x;
  return absl::OkStatus();
}

absl::Status ApplyEfficiency(Options& o, std::string_view v) {
  return ApplyFraction("--efficiency", v, &o.analyze.compute_efficiency);
}

absl::Status ApplyMemoryEfficiency(Options& o, std::string_view v) {
  return ApplyFraction("--memory-efficiency", v, &o.analyze.memory_efficiency);
}

std::optional<double> Microseconds(std::string_view v) {
  std::optional<double> x = ParseDouble(v);
  if (!x || *x < 0) return std::nullopt;
  return *x / 1e6;  // correctly rounded: "5" -> 5e-6 exactly
}

absl::Status ApplyLayerTax(Options& o, std::string_view v) {
  std::optional<double> s = Microseconds(v);
  if (!s) return Bad("--layer-tax-us", v, "microseconds >= 0");
  o.analyze.per_layer_tax_s = *s;
  return absl::OkStatus();
}

absl::Status ApplyDispatchTax(Options& o, std::string_view v) {
  std::optional<double> s = Microseconds(v);
  if (!s) return Bad("--dispatch-tax-us", v, "microseconds >= 0");
  o.analyze.dispatch_tax_s = *s;
  return absl::OkStatus();
}

absl::Status ApplyTop(Options& o, std::string_view v) {
  std::optional<int64_t> n = ParseInt(v);
  if (!n || *n < 1 || *n > 1000000) return Bad("--top", v, "an integer >= 1");
  o.report.top = static_cast<int>(*n);
  return absl::OkStatus();
}

absl::Status ApplyFormat(Options& o, std::string_view v) {
  absl::StatusOr<engine::report::Format> f = engine::report::ParseFormat(v);
  if (!f.ok()) return Bad("--format", v, engine::report::kFormatNames);
  o.format = *f;
  return absl::OkStatus();
}

// The flag table: usage text and parsing both come from here.
constexpr Flag kFlags[] = {
    {"--hw", "NAME",
     "device from the built-in zoo (key, name or alias, any case; see "
     "--list-hw)",
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
     "bind the symbolic first dim of every input to N (throughput = N / "
     "latency)",
     ApplyBatch},
    {"--dim", "NAME=VALUE",
     "bind the symbolic input dim NAME (repeatable; wins over --batch)",
     ApplyDim},
    {"--precision", "P",
     "re-price every floating tensor at P and use P's peak: fp32|tf32|fp16|"
     "bf16|fp8|int8|int4 (default: the model's dtypes)",
     ApplyPrecision},
    {"--flops-per-mac", "1|2",
     "FLOPs counted per multiply-accumulate (default 2, the vendors' "
     "convention)",
     ApplyFlopsPerMac},
    {"--efficiency", "E", "fraction of peak compute attained (default 0.5)",
     ApplyEfficiency},
    {"--memory-efficiency", "E",
     "fraction of memory bandwidth attained (default 1.0)",
     ApplyMemoryEfficiency},
    {"--layer-tax-us", "U",
     "fixed framework cost per non-view layer, microseconds (default 10)",
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
    {"--format", "table|json|csv|md", "output format (default table)",
     ApplyFormat},
    {"-o", "FILE", "write the report to FILE instead of standard output",
     [](Options& o, std::string_view v) {
       o.output_path = std::string(v);
       return absl::OkStatus();
     }},
    {"--help", "", "print this help and exit",
     [](Options& o, std::string_view) {
       o.help = true;
       return absl::OkStatus();
     }},
};

const Flag* FindFlag(std::string_view name) {
  if (name == "-h") name = "--help";
  if (name == "--output") name = "-o";
  for (const Flag& f : kFlags) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace

std::string UsageText() {
  std::string text =
      "usage: analyze MODEL.onnx (--hw NAME | --hw-file FILE.json) [flags]\n"
      "       analyze --list-hw [--hw-file FILE.json] [--format F]\n\n"
      "Predicts the latency of every layer of an ONNX model on a device with "
      "a\nroofline (compute vs memory bound, plus per-layer and dispatch "
      "taxes).\n\nflags:\n";
  for (const Flag& f : kFlags) {
    std::string head(f.name);
    if (f.name == "-o") head = "-o, --output";
    if (f.name == "--help") head = "-h, --help";
    if (!f.value_name.empty()) head += fmt::format(" {}", f.value_name);
    text += fmt::format("  {:<34} {}\n", head, f.help);
  }
  text +=
      "\nexit status: 0 success, 1 usage error, 2 model, hardware or input "
      "error\n";
  return text;
}

absl::StatusOr<Options> ParseArgs(const std::vector<std::string>& args) {
  Options o;
  bool positional_only = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    const bool looks_like_flag =
        !positional_only && arg.size() > 1 && arg[0] == '-';
    if (!looks_like_flag) {
      if (!o.model_path.empty()) {
        return absl::InvalidArgumentError(fmt::format(
            "unexpected argument '{}' (one model per run; the model is '{}')",
            arg, o.model_path));
      }
      o.model_path = std::string(arg);
      continue;
    }
    if (arg == "--") {
      positional_only = true;
      continue;
    }
    std::string_view name = arg;
    std::optional<std::string_view> value;
    if (const size_t eq = arg.find('=');
        eq != std::string_view::npos && arg.starts_with("--")) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    const Flag* flag = FindFlag(name);
    if (flag == nullptr) {
      return absl::InvalidArgumentError(fmt::format("unknown flag '{}'", name));
    }
    if (flag->value_name.empty()) {
      if (value) {
        return absl::InvalidArgumentError(
            fmt::format("{} takes no value", flag->name));
      }
    } else if (!value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            fmt::format("{} needs a value ({})", flag->name, flag->value_name));
      }
      value = args[++i];
    }
    if (absl::Status s = flag->apply(o, value.value_or("")); !s.ok()) return s;
  }
  if (o.help) return o;
  if (o.list_hw) {
    if (!o.model_path.empty()) {
      return absl::InvalidArgumentError(
          "--list-hw takes no model; run it on its own");
    }
    return o;
  }
  if (o.model_path.empty()) {
    return absl::InvalidArgumentError("no model given (MODEL.onnx)");
  }
  if (o.hw.empty() && o.hw_file.empty()) {
    return absl::InvalidArgumentError(
        "no device given: pass --hw NAME (see --list-hw) or --hw-file "
        "FILE.json");
  }
  if (o.hw.size() > 1) {
    return absl::InvalidArgumentError(fmt::format(
        "--hw takes one device for this report (got {})", o.hw.size()));
  }
  return o;
}

}  // namespace ridgeline::tools::analyze
