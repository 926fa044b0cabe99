// Command-line flags as rows of one table, shared by the tools (analyze,
// calibrate): the table writes the usage text and parses the arguments, each
// row applying its value to the tool's options once, typed. Errors are usage
// errors whose message names the flag ("--top: invalid value 'x' (expected
// an integer >= 1)"); the tool prints it with its usage text and exits 1.
//
//   constexpr cli::Flag<Options> kFlags[] = {
//       {"--seconds", "S", "time budget", ApplySeconds}, ...};
//   absl::Status s = cli::ParseFlags<Options>(kFlags, args, options,
//   positional);
#ifndef RIDGELINE_TOOLS_CLI_FLAGS_H_
#define RIDGELINE_TOOLS_CLI_FLAGS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ridgeline::tools::cli {

template <typename Options>
struct Flag {
  std::string_view name;        // "--batch", "-o"
  std::string_view value_name;  // "N"; empty for a switch
  std::string_view help;
  absl::Status (*apply)(Options&, std::string_view value);
  std::string_view alias = {};  // another spelling: "--output" for "-o"
};

// One line of the usage text: "  -o, --output FILE   help" (the spelling
// with one dash first), the head padded to `head_width`.
std::string HelpLine(std::string_view name, std::string_view alias,
                     std::string_view value_name, std::string_view help,
                     size_t head_width);

// Every flag's HelpLine, in table order.
template <typename Options>
std::string HelpLines(std::span<const Flag<Options>> flags, size_t head_width) {
  std::string text;
  for (const Flag<Options>& f : flags) {
    text += HelpLine(f.name, f.alias, f.value_name, f.help, head_width);
  }
  return text;
}

// An argument that looks like a flag ("-x", "--name", "--name=value"; not
// "-" alone), split at its first '=' when it starts with "--".
struct FlagArg {
  std::string_view name;
  std::optional<std::string_view> value;
};
std::optional<FlagArg> AsFlag(std::string_view arg);

// The usage errors of the parse loop.
absl::Status UnknownFlag(std::string_view name);
absl::Status TakesNoValue(std::string_view name);
absl::Status NeedsValue(std::string_view name, std::string_view value_name);

// Applies every flag of `args` (without the program name) to `options`, in
// order; `positional` gets each other argument (all of them after "--").
// A flag's value is the next argument or follows "=" ("--top=5").
template <typename Options>
absl::Status ParseFlags(
    std::span<const Flag<Options>> flags, const std::vector<std::string>& args,
    Options& options,
    absl::FunctionRef<absl::Status(std::string_view)> positional) {
  bool positional_only = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::optional<FlagArg> arg =
        positional_only ? std::nullopt : AsFlag(args[i]);
    if (!arg) {
      if (absl::Status s = positional(args[i]); !s.ok()) return s;
      continue;
    }
    if (arg->name == "--" && !arg->value) {
      positional_only = true;
      continue;
    }
    const Flag<Options>* flag = nullptr;
    for (const Flag<Options>& f : flags) {
      if (f.name == arg->name || (!f.alias.empty() && f.alias == arg->name)) {
        flag = &f;
        break;
      }
    }
    if (flag == nullptr) return UnknownFlag(arg->name);
    std::optional<std::string_view> value = arg->value;
    if (flag->value_name.empty()) {
      if (value) return TakesNoValue(flag->name);
    } else if (!value) {
      if (i + 1 >= args.size()) return NeedsValue(flag->name, flag->value_name);
      value = args[++i];
    }
    if (absl::Status s = flag->apply(options, value.value_or("")); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// Values. Each parses the whole text or fails.
std::optional<int64_t> ParseInt(std::string_view text);
std::optional<double> ParseDouble(std::string_view text);  // finite only

// "FLAG: invalid value 'VALUE' (expected EXPECTED)".
absl::Status BadValue(std::string_view flag, std::string_view value,
                      std::string_view expected);

// `value` as a number in [lo, hi], or BadValue ("a number in [lo, hi]").
absl::StatusOr<double> NumberIn(std::string_view flag, std::string_view value,
                                double lo, double hi);

// `value` when it is one of `allowed` ("a|b|c"), or BadValue.
absl::StatusOr<std::string> Choice(std::string_view flag,
                                   std::string_view allowed,
                                   std::string_view value);

}  // namespace ridgeline::tools::cli

#endif  // RIDGELINE_TOOLS_CLI_FLAGS_H_
