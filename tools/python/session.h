// One analysis for the Python package (tools/python/ridgeline): the analyze
// CLI's option parser and steps (tools/analyze), with the model given as a
// zoo name, a file, or a serialized ONNX model in memory (from_torch).
//
//   absl::StatusOr<std::unique_ptr<Session>> s =
//       Session::Open({"--zoo", "resnet50", "--hw", "a100"}, std::nullopt);
//   double latency = (*s)->context().analysis.summary.latency_s;
#ifndef RIDGELINE_TOOLS_PYTHON_SESSION_H_
#define RIDGELINE_TOOLS_PYTHON_SESSION_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/sweep.h"
#include "nlohmann/json.hpp"
#include "tools/analyze/modes.h"
#include "tools/analyze/options.h"
#include "zoo/hardware_catalog.h"

namespace ridgeline::python {

// Errors are absl statuses whose message is the CLI's. A model that does
// not import (unreadable, malformed, bad dims) is a model error; everything
// else (flags, devices, runtimes, precisions, sweep lists) is an argument
// error.
bool IsModelError(const absl::Status& status);

class Session {
 public:
  // `args` are analyze's flags after the program name (validated by the
  // CLI's ParseArgs). With `model_bytes`, the positional MODEL in `args` is
  // the display name used in messages and the bytes are imported instead
  // of a file.
  static absl::StatusOr<std::unique_ptr<Session>> Open(
      const std::vector<std::string>& args,
      std::optional<std::string> model_bytes);

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The run: device, runtime, graph, analysis (as the CLI's RunAnalyze).
  const tools::analyze::RunContext& context() const { return ctx_; }
  // The CLI's warnings so far, one line each without "analyze: warning: "
  // (a repeat counted as in the JSON report).
  std::vector<std::string> warnings() const;
  // The CLI's --format json document: the analysis, the sections of the
  // modes the session was opened with (--serve, --search, what-ifs,
  // --whole-model) and "warnings".
  absl::StatusOr<nlohmann::ordered_json> Document() const;
  // The CLI's text after the report: those modes' sections ("" for none).
  absl::StatusOr<std::string> ModeText() const;

  // --sweep batch=LIST|hw=A,B on this model (the CLI's sweep, bytes too).
  absl::StatusOr<engine::SweepResult> Sweep(const std::string& spec) const;
  // --sweep concurrency=LIST (`list` in the CLI's LIST syntax) of a --serve
  // session: the JSON "sweep" section and the CLI's table.
  absl::StatusOr<std::pair<nlohmann::ordered_json, std::string>> ServeSweep(
      const std::string& list) const;

 private:
  Session() = default;
  absl::Status Load();

  tools::analyze::Options options_;
  zoo::HardwareLookup catalog_;
  std::optional<std::string> model_bytes_;
  tools::analyze::RunContext ctx_;
  // Every warning (tools::analyze::Warn records them in ctx_.warnings);
  // mutable: the const modes (what-ifs, sweeps) may warn too.
  mutable std::vector<std::string> warnings_;
};

}  // namespace ridgeline::python

#endif  // RIDGELINE_TOOLS_PYTHON_SESSION_H_
