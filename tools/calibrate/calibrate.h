// Measures this host's CPU roofline: sustained memory bandwidth with a
// STREAM-like triad and peak fp32 FLOP/s with an FMA loop, single-threaded
// and with all hardware threads, and turns them into a hardware entry in the
// --hw-file format (engine/hardware.h).
//
//   calibrate::Measurements m = calibrate::MeasureHost(options);
//   engine::Hardware hw = calibrate::MakeHostHardware(info, m, options, date);
//   std::string json = engine::HardwareToJson(hw);
#ifndef RIDGELINE_TOOLS_CALIBRATE_CALIBRATE_H_
#define RIDGELINE_TOOLS_CALIBRATE_CALIBRATE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/hardware.h"

namespace ridgeline::calibrate {

inline constexpr char kDefaultKey[] = "host";
inline constexpr size_t kDefaultArrayBytes = size_t{256} << 20;  // 256 MiB

struct CalibrateOptions {
  // Wall-clock budget for all measurements together, seconds (split between
  // the four measurements; each still runs its minimum repetitions).
  double seconds = 10;
  // Bytes of each of the three triad arrays; should be many times the
  // last-level cache.
  size_t array_bytes = kDefaultArrayBytes;
  // Threads whose measurements go into the entry: 1 or the host's hardware
  // threads (0 = all). Both are always measured and printed.
  int entry_threads = 0;
  std::string key = kDefaultKey;
};

// Best-of-N STREAM triad a[i] = b[i] + s * c[i] over doubles. Bytes per
// element follow STREAM's convention: 24 (two arrays read, one written; the
// write-allocate read of `a` is not counted), the same convention as the
// engine's bytes_read + bytes_written.
struct BandwidthResult {
  int threads = 0;
  double bytes_per_s = 0;  // best pass
  double median_bytes_per_s = 0;
  int passes = 0;
};

// Best-of-N fp32 multiply-add loop on independent accumulators; 2 FLOPs per
// lane per fused multiply-add.
struct FlopsResult {
  int threads = 0;
  double flops_per_s = 0;  // best repetition
  std::string isa;         // the kernel variant that ran, e.g. "avx512f fma"
  int repetitions = 0;
};

struct Measurements {
  int hardware_threads = 0;
  BandwidthResult bandwidth_1;    // one thread
  BandwidthResult bandwidth_all;  // all hardware threads
  FlopsResult flops_1;
  FlopsResult flops_all;
  std::string load_average;  // /proc/loadavg at the start ("" if unknown)
};

struct HostInfo {
  std::string cpu_model;    // /proc/cpuinfo "model name" ("" if unknown)
  double memory_bytes = 0;  // /proc/meminfo MemTotal
  int hardware_threads = 0;
};

// Parsers for /proc text (pure, for tests).
std::string CpuModelFromCpuinfo(std::string_view cpuinfo);
std::optional<double> MemTotalBytesFromMeminfo(std::string_view meminfo);
// Reads /proc/cpuinfo and /proc/meminfo (empty / 0 where unavailable).
HostInfo ReadHostInfo();

// The fastest FMA kernel variant this CPU runs ("avx512f fma", "avx2 fma",
// or the portable fallback).
std::string FmaIsa();

BandwidthResult MeasureTriadBandwidth(int threads, size_t array_bytes,
                                      double seconds);
FlopsResult MeasureFmaFlops(int threads, double seconds);
Measurements MeasureHost(const CalibrateOptions& options);

// The hardware entry: key options.key, name from the CPU model, peak "fp32"
// and bandwidth from the entry_threads measurements, capacity MemTotal,
// dispatch tax 0 (not measured: a runtime's own dispatch cost belongs to the
// runtime, see the source note), source "measured by ridgeline calibrate on
// DATE ..." with every measured number. `date` is "YYYY-MM-DD".
engine::Hardware MakeHostHardware(const HostInfo& info, const Measurements& m,
                                  const CalibrateOptions& options,
                                  std::string_view date);

// A human-readable summary of the measurements: the host, one table row per
// measurement (report::TextTable, numbers from report/units.h), the
// conventions and the load average.
std::string FormatMeasurements(const HostInfo& info, const Measurements& m);

// Today's UTC date, "YYYY-MM-DD".
std::string TodayUtc();

}  // namespace ridgeline::calibrate

#endif  // RIDGELINE_TOOLS_CALIBRATE_CALIBRATE_H_
