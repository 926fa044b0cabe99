// Runs `calibrate` in-process: arguments in, exit status out. main.cc only
// converts argv; tests call CalibrateMain directly.
//
//   std::ostringstream out, err;
//   int rc = CalibrateMain({"--seconds", "2", "-o", "host.json"}, out, err);
#ifndef RIDGELINE_TOOLS_CALIBRATE_RUN_H_
#define RIDGELINE_TOOLS_CALIBRATE_RUN_H_

#include <ostream>
#include <string>
#include <vector>

namespace ridgeline::calibrate {

// Exit statuses, as analyze's.
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;   // bad flag or value (usage printed)
inline constexpr int kExitOutput = 2;  // the entry cannot be written

// Parses `args` (without the program name), measures this host and writes
// the entry (to -o FILE, else to `out` with the summary on `err`). Usage
// errors print "calibrate: MESSAGE" and the usage text to `err` and return
// kExitUsage before anything is measured.
int CalibrateMain(const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err);

}  // namespace ridgeline::calibrate

#endif  // RIDGELINE_TOOLS_CALIBRATE_RUN_H_
