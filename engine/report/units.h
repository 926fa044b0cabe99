// Human-readable numbers with their unit: "4.09 GFLOP", "25.6 MB" (decimal
// prefixes), "12.3 us", "3.35 TB/s". Three significant digits unless a
// function says otherwise. The one units module of every text output (the
// report, what-ifs, sweeps, measured comparisons, fits, lists).
#ifndef RIDGELINE_ENGINE_REPORT_UNITS_H_
#define RIDGELINE_ENGINE_REPORT_UNITS_H_

#include <string>
#include <string_view>

namespace ridgeline::engine::report {

// `value` with an SI prefix (k, M, G, T, P, E) before `unit`:
// FormatSi(4.09e9, "FLOP") == "4.09 GFLOP"; FormatSi(0, "B") == "0 B";
// "n/a" for NaN and the infinities.
std::string FormatSi(double value, std::string_view unit);

// Seconds as ns / us / ms / s: FormatSeconds(1.5e-5) == "15.0 us"; "n/a"
// for NaN and the infinities.
std::string FormatSeconds(double seconds);

// Seconds with three decimals in s or ms, one in us (measured profiles,
// whose times are read to the microsecond): FormatDuration(0.0012345) ==
// "1.234 ms", FormatDuration(4.5e-5) == "45.0 us"; "-" when not finite.
std::string FormatDuration(double seconds);

// Milliseconds with three decimals, whatever the size (columns of one
// scale): FormatMilliseconds(2.5e-5) == "0.025 ms".
std::string FormatMilliseconds(double seconds);

// A ratio of two times as a speed-up: FormatSpeedup(1.234) == "1.23x";
// "n/a" when not finite.
std::string FormatSpeedup(double speedup);

// A plain number with three significant digits and no exponent for
// 1e-3 <= |x| < 1e6 ("0.250", "72.8", "1843"); scientific otherwise.
std::string FormatNumber(double value);

// A fraction as a percentage: FormatPercent(0.1234) == "12.3%"; below 0.1%
// three significant digits: FormatPercent(0.0000123) == "0.00123%".
std::string FormatPercent(double fraction);

// part / whole as FormatPercent, or "-" when whole is not positive.
std::string FormatShare(double part, double whole);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_UNITS_H_
