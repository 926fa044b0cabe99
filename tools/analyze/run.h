// Runs `analyze` in-process: options in, report out, exit status returned.
// main.cc only converts argv; tests call AnalyzeMain / RunAnalyze directly.
//
//   std::ostringstream out, err;
//   int rc = AnalyzeMain({"m.onnx", "--hw", "h100", "--format", "json"},
//                        out, err);
#ifndef RIDGELINE_TOOLS_ANALYZE_RUN_H_
#define RIDGELINE_TOOLS_ANALYZE_RUN_H_

#include <ostream>
#include <string>
#include <vector>

#include "tools/analyze/options.h"

namespace ridgeline::tools::analyze {

// Exit statuses.
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;  // bad flag or arguments (usage printed)
inline constexpr int kExitInput = 2;  // model, hardware or output error

// Parses `args` (without the program name) and runs. Usage errors print
// "analyze: MESSAGE" and the usage text to `err` and return kExitUsage.
int AnalyzeMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err);

// Runs parsed options: the report goes to `out` (or -o FILE); errors are one
// line "analyze: error: ..." on `err` naming the file and the problem.
int RunAnalyze(const Options& options, std::ostream& out, std::ostream& err);

}  // namespace ridgeline::tools::analyze

#endif  // RIDGELINE_TOOLS_ANALYZE_RUN_H_
