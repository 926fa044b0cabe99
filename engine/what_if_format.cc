#include "engine/what_if_format.h"

#include <cmath>

#include "engine/report/units.h"
#include "fmt/format.h"

// The what-if tables use the report layer's one units module
// (engine/report/units.h); only "n/a" for a value that is not a number is
// theirs.
namespace ridgeline::engine {

std::string FormatTime(double seconds) {
  return std::isfinite(seconds) ? report::FormatSeconds(seconds) : "n/a";
}
std::string FormatBytes(double bytes) {
  return std::isfinite(bytes) ? report::FormatSi(bytes, "B") : "n/a";
}
std::string FormatFlops(double flops) {
  return std::isfinite(flops) ? report::FormatSi(flops, "FLOP") : "n/a";
}

std::string FormatSpeedup(double speedup) {
  if (!std::isfinite(speedup)) return "n/a";
  return fmt::format("{:.2f}x", speedup);
}

}  // namespace ridgeline::engine
