// Command-line options of `calibrate` and their parser: rows of the tools'
// flag table (tools/cli/flags.h), like analyze's.
//
//   absl::StatusOr<CalibrateArgs> a = ParseCalibrateArgs({"--seconds", "5"});
#ifndef RIDGELINE_TOOLS_CALIBRATE_OPTIONS_H_
#define RIDGELINE_TOOLS_CALIBRATE_OPTIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/calibrate/calibrate.h"

namespace ridgeline::calibrate {

struct CalibrateArgs {
  bool help = false;         // -h, --help
  std::string output;        // -o FILE; empty = standard output
  CalibrateOptions measure;  // --seconds, --threads, --array-mb, --key
};

// Parses the arguments after the program name. Errors are usage errors
// (unknown flag, missing or malformed value, a positional argument); their
// message names the flag.
absl::StatusOr<CalibrateArgs> ParseCalibrateArgs(
    const std::vector<std::string>& args);

// The usage text, generated from the flag table.
std::string CalibrateUsage();

}  // namespace ridgeline::calibrate

#endif  // RIDGELINE_TOOLS_CALIBRATE_OPTIONS_H_
