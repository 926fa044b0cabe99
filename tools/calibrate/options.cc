#include "tools/calibrate/options.h"

#include <string_view>

#include "fmt/format.h"
#include "tools/cli/flags.h"

namespace ridgeline::calibrate {
namespace {

namespace cli = tools::cli;

absl::Status ApplySeconds(CalibrateArgs& a, std::string_view v) {
  absl::StatusOr<double> s = cli::NumberIn("--seconds", v, 0, 3600);
  if (!s.ok()) return s.status();
  a.measure.seconds = *s;
  return absl::OkStatus();
}

absl::Status ApplyThreads(CalibrateArgs& a, std::string_view v) {
  absl::StatusOr<std::string> t = cli::Choice("--threads", "all|1", v);
  if (!t.ok()) return t.status();
  a.measure.entry_threads = *t == "1" ? 1 : 0;
  return absl::OkStatus();
}

absl::Status ApplyArrayMb(CalibrateArgs& a, std::string_view v) {
  absl::StatusOr<double> mib = cli::NumberIn("--array-mb", v, 1, 65536);
  if (!mib.ok()) return mib.status();
  a.measure.array_bytes = static_cast<size_t>(*mib * (1 << 20));
  return absl::OkStatus();
}

absl::Status ApplyKey(CalibrateArgs& a, std::string_view v) {
  if (v.empty()) return cli::BadValue("--key", v, "a non-empty key");
  a.measure.key = std::string(v);
  return absl::OkStatus();
}

constexpr cli::Flag<CalibrateArgs> kFlags[] = {
    {"-o", "FILE",
     "write the entry to FILE (default: standard output; the summary then "
     "goes to standard error)",
     [](CalibrateArgs& a, std::string_view v) {
       if (v.empty()) return cli::BadValue("-o", v, "a file name");
       a.output = std::string(v);
       return absl::OkStatus();
     },
     "--output"},
    {"--seconds", "S",
     "time budget for all measurements, seconds in [0, 3600] (default 10)",
     ApplySeconds},
    {"--threads", "all|1",
     "whose numbers go into the entry: all hardware threads (default) or 1, "
     "e.g. 1 to predict a single-threaded runtime",
     ApplyThreads},
    {"--array-mb", "N",
     "MiB per triad array, 3 arrays, in [1, 65536] (default 256; use many "
     "times the last-level cache)",
     ApplyArrayMb},
    {"--key", "KEY", "the entry's key (default host)", ApplyKey},
    {"--help", "", "print this help and exit",
     [](CalibrateArgs& a, std::string_view) {
       a.help = true;
       return absl::OkStatus();
     },
     "-h"},
};

}  // namespace

absl::StatusOr<CalibrateArgs> ParseCalibrateArgs(
    const std::vector<std::string>& args) {
  CalibrateArgs a;
  absl::Status parsed =
      cli::ParseFlags<CalibrateArgs>(kFlags, args, a, [](std::string_view arg) {
        return absl::InvalidArgumentError(fmt::format(
            "unexpected argument '{}' (calibrate takes flags only)", arg));
      });
  if (!parsed.ok()) return parsed;
  return a;
}

std::string CalibrateUsage() {
  return "usage: calibrate [-o FILE] [--seconds S] [--threads all|1] "
         "[--array-mb N] [--key KEY]\n\n"
         "Measures this host's CPU roofline: peak fp32 FLOP/s (an FMA loop) "
         "and\nsustained memory bandwidth (a STREAM triad), with one thread "
         "and with\nall hardware threads, and writes a hardware entry for\n"
         "`analyze MODEL --hw-file FILE`.\n\nflags:\n" +
         cli::HelpLines<CalibrateArgs>(kFlags, 20) +
         "\nexit status: 0 success, 1 usage error, 2 cannot write the "
         "output\n";
}

}  // namespace ridgeline::calibrate
