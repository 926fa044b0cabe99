// calibrate: measures this host's CPU roofline and writes a hardware entry in
// the --hw-file format.
//
//   calibrate [-o host.json] [--seconds 10] [--threads all|1] [--array-mb 256]
//             [--key host]
//
// Exit codes: 0 success, 1 usage error, 2 cannot write the output.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "engine/hardware.h"
#include "fmt/core.h"
#include "tools/calibrate/calibrate.h"

namespace {

constexpr char kUsage[] =
    "usage: calibrate [-o FILE] [--seconds S] [--threads all|1] "
    "[--array-mb N] [--key KEY]\n"
    "\n"
    "Measures this host's CPU roofline: peak fp32 FLOP/s (an FMA loop) and\n"
    "sustained memory bandwidth (a STREAM triad), with one thread and with\n"
    "all hardware threads, and writes a hardware entry for\n"
    "`analyze MODEL --hw-file FILE`.\n"
    "\n"
    "  -o FILE        write the entry to FILE (default: standard output; the\n"
    "                 summary then goes to standard error)\n"
    "  --seconds S    time budget for all measurements (default 10)\n"
    "  --threads T    whose numbers go into the entry: all (default) or 1,\n"
    "                 e.g. 1 to predict a single-threaded runtime\n"
    "  --array-mb N   MiB per triad array, 3 arrays (default 256; use many\n"
    "                 times the last-level cache)\n"
    "  --key KEY      the entry's key (default host)\n";

int Usage(std::string_view problem) {
  if (!problem.empty()) fmt::print(stderr, "calibrate: {}\n", problem);
  fmt::print(stderr, "{}", kUsage);
  return 1;
}

bool ParseDouble(const char* text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text, &end);
  return end != text && *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  namespace cal = ridgeline::calibrate;
  cal::CalibrateOptions options;
  std::string output;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    if (flag == "-h" || flag == "--help") {
      fmt::print("{}", kUsage);
      return 0;
    }
    if (flag != "-o" && flag != "--seconds" && flag != "--threads" &&
        flag != "--array-mb" && flag != "--key") {
      return Usage(fmt::format("unknown flag {}", flag));
    }
    if (i + 1 >= argc) return Usage(fmt::format("{} needs a value", flag));
    const char* value = argv[++i];
    double number = 0;
    if (flag == "-o") {
      output = value;
    } else if (flag == "--seconds") {
      if (!ParseDouble(value, &number) || number < 0 || number > 3600) {
        return Usage("--seconds must be a number in [0, 3600]");
      }
      options.seconds = number;
    } else if (flag == "--threads") {
      std::string_view v = value;
      if (v == "all") {
        options.entry_threads = 0;
      } else if (v == "1") {
        options.entry_threads = 1;
      } else {
        return Usage("--threads must be all or 1");
      }
    } else if (flag == "--array-mb") {
      if (!ParseDouble(value, &number) || number < 1 || number > 65536) {
        return Usage("--array-mb must be a number in [1, 65536]");
      }
      options.array_bytes = static_cast<size_t>(number * (1 << 20));
    } else {  // --key
      options.key = value;
      if (options.key.empty()) return Usage("--key must not be empty");
    }
  }

  FILE* summary = output.empty() ? stderr : stdout;
  cal::HostInfo info = cal::ReadHostInfo();
  fmt::print(summary, "calibrate: measuring for about {:.0f} s ...\n",
             options.seconds);
  std::fflush(summary);
  cal::Measurements m = cal::MeasureHost(options);
  fmt::print(summary, "{}", cal::FormatMeasurements(info, m));
  ridgeline::engine::Hardware hw =
      cal::MakeHostHardware(info, m, options, cal::TodayUtc());
  std::string json = ridgeline::engine::HardwareToJson(hw);
  if (output.empty()) {
    fmt::print("{}\n", json);
    return 0;
  }
  std::ofstream out(output);
  out << json << '\n';
  out.close();
  if (!out) {
    fmt::print(stderr, "calibrate: error: cannot write {}\n", output);
    return 2;
  }
  fmt::print("wrote {} (key \"{}\", {} thread(s))\n", output, hw.key,
             options.entry_threads == 1 ? 1 : m.hardware_threads);
  return 0;
}
