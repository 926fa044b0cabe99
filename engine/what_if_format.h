// Number formatting of the what-if renderers (fusion, quantization,
// --what-if tables), delegating to the report layer's units module
// (engine/report/units.h): three significant digits with an SI prefix; bytes
// in decimal units (1 MB = 10^6 B) like the vendors' bandwidth figures.
#ifndef RIDGELINE_ENGINE_WHAT_IF_FORMAT_H_
#define RIDGELINE_ENGINE_WHAT_IF_FORMAT_H_

#include <string>
#include <string_view>

namespace ridgeline::engine {

// "12.3 us", "4.56 ms", "1.20 s", "0 s".
std::string FormatTime(double seconds);
// "1.23 MB", "512 B".
std::string FormatBytes(double bytes);
// "4.09 GFLOP".
std::string FormatFlops(double flops);
// "1.23x".
std::string FormatSpeedup(double speedup);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_WHAT_IF_FORMAT_H_
