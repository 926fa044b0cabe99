#include "tools/cli/flags.h"

#include <charconv>
#include <cmath>

#include "fmt/format.h"

namespace ridgeline::tools::cli {

std::string HelpLine(std::string_view name, std::string_view alias,
                     std::string_view value_name, std::string_view help,
                     size_t head_width) {
  std::string head(name);
  if (!alias.empty()) {
    const bool alias_first = alias.starts_with("-") && !alias.starts_with("--");
    head = alias_first ? fmt::format("{}, {}", alias, name)
                       : fmt::format("{}, {}", name, alias);
  }
  if (!value_name.empty()) head += fmt::format(" {}", value_name);
  return fmt::format("  {:<{}} {}\n", head, head_width, help);
}

std::optional<FlagArg> AsFlag(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-') return std::nullopt;
  FlagArg flag{arg, std::nullopt};
  if (const size_t eq = arg.find('=');
      eq != std::string_view::npos && arg.starts_with("--")) {
    flag.name = arg.substr(0, eq);
    flag.value = arg.substr(eq + 1);
  }
  return flag;
}

absl::Status UnknownFlag(std::string_view name) {
  return absl::InvalidArgumentError(fmt::format("unknown flag '{}'", name));
}

absl::Status TakesNoValue(std::string_view name) {
  return absl::InvalidArgumentError(fmt::format("{} takes no value", name));
}

absl::Status NeedsValue(std::string_view name, std::string_view value_name) {
  return absl::InvalidArgumentError(
      fmt::format("{} needs a value ({})", name, value_name));
}

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return v;
}

std::optional<double> ParseDouble(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

absl::Status BadValue(std::string_view flag, std::string_view value,
                      std::string_view expected) {
  return absl::InvalidArgumentError(fmt::format(
      "{}: invalid value '{}' (expected {})", flag, value, expected));
}

absl::StatusOr<double> NumberIn(std::string_view flag, std::string_view value,
                                double lo, double hi) {
  std::optional<double> x = ParseDouble(value);
  if (!x || *x < lo || *x > hi) {
    return BadValue(flag, value, fmt::format("a number in [{}, {}]", lo, hi));
  }
  return *x;
}

absl::StatusOr<std::string> Choice(std::string_view flag,
                                   std::string_view allowed,
                                   std::string_view value) {
  size_t start = 0;
  while (start <= allowed.size()) {
    size_t bar = allowed.find('|', start);
    if (bar == std::string_view::npos) bar = allowed.size();
    if (allowed.substr(start, bar - start) == value) return std::string(value);
    start = bar + 1;
  }
  return BadValue(flag, value, allowed);
}

}  // namespace ridgeline::tools::cli
