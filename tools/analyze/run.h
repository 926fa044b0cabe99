// Runs `analyze` in-process: options in, report out, exit status returned.
// main.cc only converts argv; tests call AnalyzeMain / RunAnalyze directly.
//
//   std::ostringstream out, err;
//   int rc = AnalyzeMain({"m.onnx", "--hw", "h100", "--format", "json"},
//                        out, err);
#ifndef RIDGELINE_TOOLS_ANALYZE_RUN_H_
#define RIDGELINE_TOOLS_ANALYZE_RUN_H_

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "tools/analyze/options.h"

namespace ridgeline::tools::analyze {

// Exit statuses.
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;  // bad flag or arguments (usage printed)
inline constexpr int kExitInput = 2;  // model, hardware or output error

// Called with the exit status once a run's report is written and its output
// file closed, while the run's model, analysis and catalogs are still alive.
// main.cc ends the process there: freeing them piece by piece took a tenth
// of a zoo Llama run (bench/README.md, "Whole process"). Tests leave it
// empty and the run returns as usual.
using AtFinish = std::function<void(int status)>;

// Parses `args` (without the program name) and runs. Usage errors print
// "analyze: MESSAGE" and the usage text to `err` and return kExitUsage.
int AnalyzeMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err, const AtFinish& at_finish = nullptr);

// Runs parsed options: the report goes to `out` (or -o FILE); errors are one
// line "analyze: error: ..." on `err` naming the file and the problem.
int RunAnalyze(const Options& options, std::ostream& out, std::ostream& err,
               const AtFinish& at_finish = nullptr);

}  // namespace ridgeline::tools::analyze

#endif  // RIDGELINE_TOOLS_ANALYZE_RUN_H_
