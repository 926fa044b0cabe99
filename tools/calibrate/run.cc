#include "tools/calibrate/run.h"

#include <fstream>

#include "absl/status/statusor.h"
#include "engine/hardware.h"
#include "fmt/format.h"
#include "fmt/ostream.h"
#include "graph/fmt_absl.h"
#include "tools/calibrate/calibrate.h"
#include "tools/calibrate/options.h"

namespace ridgeline::calibrate {

int CalibrateMain(const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err) {
  absl::StatusOr<CalibrateArgs> a = ParseCalibrateArgs(args);
  if (!a.ok()) {
    fmt::print(err, "calibrate: {}\n\n{}", MessageOf(a.status()),
               CalibrateUsage());
    return kExitUsage;
  }
  if (a->help) {
    fmt::print(out, "{}", CalibrateUsage());
    return kExitOk;
  }
  std::ostream& summary = a->output.empty() ? err : out;
  const HostInfo info = ReadHostInfo();
  fmt::print(summary, "calibrate: measuring for about {:.0f} s ...\n",
             a->measure.seconds);
  summary.flush();
  const Measurements m = MeasureHost(a->measure);
  fmt::print(summary, "{}", FormatMeasurements(info, m));
  const engine::Hardware hw = MakeHostHardware(info, m, a->measure, TodayUtc());
  const std::string json = engine::HardwareToJson(hw);
  if (a->output.empty()) {
    fmt::print(out, "{}\n", json);
    return kExitOk;
  }
  std::ofstream file(a->output);
  file << json << '\n';
  file.close();
  if (!file) {
    fmt::print(err, "calibrate: error: cannot write {}\n", a->output);
    return kExitOutput;
  }
  fmt::print(out, "wrote {} (key \"{}\", {} thread(s))\n", a->output, hw.key,
             a->measure.entry_threads == 1 ? 1 : m.hardware_threads);
  return kExitOk;
}

}  // namespace ridgeline::calibrate
