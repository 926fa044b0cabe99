#include "engine/report/units.h"

#include <cmath>

#include "fmt/format.h"

namespace ridgeline::engine::report {
namespace {

// Three significant digits of a value in [1, 1000).
// Three significant digits by magnitude: a saving of -527.53 ns reads
// "-528" beside "533".
std::string ThreeDigits(double x) {
  const double m = std::fabs(x);
  if (m >= 100) return fmt::format("{:.0f}", x);
  if (m >= 10) return fmt::format("{:.1f}", x);
  return fmt::format("{:.2f}", x);
}

}  // namespace

std::string FormatSi(double value, std::string_view unit) {
  if (!std::isfinite(value)) return "n/a";
  if (value == 0) return fmt::format("0 {}", unit);
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  const double magnitude = std::fabs(value);
  int p = 0;
  double scaled = magnitude;
  while (scaled >= 999.5 && p < 6) {
    scaled /= 1000;
    ++p;
  }
  if (magnitude < 1) return fmt::format("{} {}", FormatNumber(value), unit);
  return fmt::format("{}{} {}{}", value < 0 ? "-" : "", ThreeDigits(scaled),
                     kPrefixes[p], unit);
}

std::string FormatSeconds(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  if (seconds == 0) return "0 s";
  const double m = std::fabs(seconds);
  if (m >= 0.9995) return fmt::format("{} s", ThreeDigits(seconds));
  if (m >= 0.9995e-3) return fmt::format("{} ms", ThreeDigits(seconds * 1e3));
  if (m >= 0.9995e-6) return fmt::format("{} us", ThreeDigits(seconds * 1e6));
  return fmt::format("{} ns", FormatNumber(seconds * 1e9));
}

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  const double a = std::fabs(seconds);
  if (a >= 1) return fmt::format("{:.3f} s", seconds);
  if (a >= 1e-3) return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.1f} us", seconds * 1e6);
}

std::string FormatMilliseconds(double seconds) {
  return fmt::format("{:.3f} ms", seconds * 1e3);
}

std::string FormatSpeedup(double speedup) {
  if (!std::isfinite(speedup)) return "n/a";
  return fmt::format("{:.2f}x", speedup);
}

std::string FormatNumber(double value) {
  if (value == 0) return "0";
  if (!std::isfinite(value)) return fmt::format("{}", value);
  const double m = std::fabs(value);
  if (m >= 1e6 || m < 1e-3) return fmt::format("{:.2e}", value);
  if (m >= 999.5) return fmt::format("{:.0f}", value);
  if (m >= 1) return ThreeDigits(value);
  // 3 significant digits below 1: 0.250, 0.0123, 0.00123.
  const int decimals = 2 - static_cast<int>(std::floor(std::log10(m)));
  return fmt::format("{:.{}f}", value, decimals);
}

std::string FormatPercent(double fraction) {
  const double percent = 100.0 * fraction;
  // Small shares keep three significant digits instead of reading "0.0%".
  if (percent != 0 && std::fabs(percent) < 0.1) {
    return FormatNumber(percent) + "%";
  }
  return fmt::format("{:.1f}%", percent);
}

std::string FormatShare(double part, double whole) {
  return whole > 0 ? FormatPercent(part / whole) : "-";
}

}  // namespace ridgeline::engine::report
