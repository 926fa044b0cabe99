#include "engine/what_if_format.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

// Three significant digits with an SI prefix from p to E.
std::string Si(double value, std::string_view unit) {
  if (!std::isfinite(value)) return "n/a";
  if (value == 0) return fmt::format("0 {}", unit);
  static constexpr const char* kPrefixes[] = {"p", "n", "u", "m", "", "k",
                                              "M", "G", "T", "P", "E"};
  int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value)) / 3));
  exponent = std::max(-4, std::min(6, exponent));
  double mantissa = value / std::pow(1000.0, exponent);
  // Rounding to three digits may carry into the next prefix (999.6 -> 1000).
  if (std::fabs(mantissa) >= 999.5 && exponent < 6) {
    ++exponent;
    mantissa /= 1000;
  }
  const int decimals = std::fabs(mantissa) >= 100  ? 0
                       : std::fabs(mantissa) >= 10 ? 1
                                                   : 2;
  return fmt::format("{:.{}f} {}{}", mantissa, decimals,
                     kPrefixes[exponent + 4], unit);
}

}  // namespace

std::string FormatTime(double seconds) { return Si(seconds, "s"); }
std::string FormatBytes(double bytes) { return Si(bytes, "B"); }
std::string FormatFlops(double flops) { return Si(flops, "FLOP"); }

std::string FormatSpeedup(double speedup) {
  if (!std::isfinite(speedup)) return "n/a";
  return fmt::format("{:.2f}x", speedup);
}

std::string Elide(std::string_view text, size_t width) {
  if (text.size() <= width) return std::string(text);
  if (width <= 3) return std::string(text.substr(text.size() - width));
  return fmt::format("...{}", text.substr(text.size() - (width - 3)));
}

}  // namespace ridgeline::engine
