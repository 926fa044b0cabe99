// The feature modes of `analyze` (zoo, whole model, sweep, what-ifs,
// measured, pictures), each in its own file, called from RunAnalyze
// (run.cc). A mode adds text after the report (AppendX) and/or keys to the
// JSON report (AddXJson); its errors are input errors (exit status 2).
#ifndef RIDGELINE_TOOLS_ANALYZE_MODES_H_
#define RIDGELINE_TOOLS_ANALYZE_MODES_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/hardware.h"
#include "engine/report/html.h"
#include "engine/report/json.h"
#include "engine/report/report.h"
#include "engine/report/text_table.h"
#include "engine/serve.h"
#include "engine/sweep.h"
#include "engine/whole_model.h"
#include "graph/graph.h"
#include "importers/onnx_importer.h"
#include "nlohmann/json.hpp"
#include "tools/analyze/options.h"
#include "zoo/catalog.h"
#include "zoo/hardware_catalog.h"

namespace ridgeline::tools::analyze {

// Everything a mode needs about the run.
struct RunContext {
  const Options* options = nullptr;
  const zoo::HardwareLookup* catalog = nullptr;  // --hw lookups
  engine::Hardware hw;                           // the first device
  engine::Runtime runtime;  // the runtime profile the analysis ran with
  std::optional<zoo::ModelEntry> zoo_entry;  // --zoo NAME
  std::string model_name;                    // the path, or "zoo:NAME"
  // A serialized model held in memory (the Python package's bytes and
  // from_torch), imported instead of the MODEL path, which names it.
  std::string_view model_bytes;
  graph::Graph graph;
  engine::AnalyzeOptions analyze;  // the options the analysis ran with
  engine::Analysis analysis;
  std::ostream* err = nullptr;  // warnings
  // The widest line of every text table (layers, what-ifs, sweeps, serving,
  // whole model, measured comparison and fit): $COLUMNS or the terminal's
  // width when the report goes to standard output, else
  // report::kMaxTableWidth (160). Names are elided in the middle to fit;
  // numbers are never cut (report::TextTable::max_width).
  size_t table_width = engine::report::kMaxTableWidth;
  // Every warning printed on `err` (without the "analyze: warning: "
  // prefix); the JSON report lists them under "warnings".
  std::vector<std::string>* warnings = nullptr;
};

// Prints "analyze: warning: TEXT" on ctx.err (control characters escaped)
// and records it in ctx.warnings.
void Warn(const RunContext& ctx, const std::string& text);

// run.cc --------------------------------------------------------------------
// Sets ctx->runtime to the profile the options select: --runtime, else
// mlsysim with --mlsysim, else the default for ctx->hw (compiled on a GPU,
// ort-cpu on a CPU). Errors name the unknown profile or bad file.
absl::Status SelectRuntime(RunContext* ctx);
// Imports the model (LoadModel) and warns the importer's warnings, each
// prefixed with the model's name.
absl::Status LoadRunModel(RunContext* ctx);
// Analyzes ctx->graph as the options say (RunAnalyzeOptions, the batch the
// importer settled, sharded with --tp/--pp/--ep) into ctx->analysis; warns
// when --batch could not apply or layers were skipped. Errors name the
// model.
absl::Status AnalyzeRun(RunContext* ctx);
// The feature modes' text sections after the report, in a fixed order
// (empty without a mode).
absl::StatusOr<std::string> ModeText(const RunContext& ctx);
// The JSON report's additions: the modes' keys, and the run's warnings
// (ctx.warnings) listed before the analysis' own.
absl::StatusOr<engine::report::JsonExtras> ReportJsonExtras(
    const RunContext& ctx);

// zoo_mode.cc ---------------------------------------------------------------
// --list-zoo in `format` (zoo::WriteModelList): the table at most
// `max_width` columns wide, csv, md or the JSON array.
absl::StatusOr<std::string> ListZoo(engine::report::Format format,
                                    size_t max_width);
// Imports the model (a file, or the --zoo entry with its dims) into
// ctx->graph and sets ctx->model_name / ctx->zoo_entry; errors name it.
absl::Status LoadModel(RunContext* ctx);
// Imports the same model with the batch dim bound to `batch` (sweeps).
absl::StatusOr<graph::Graph> LoadModelAtBatch(const RunContext& ctx,
                                              int64_t batch);
// The analysis options of the run: the flags' (options->analyze), and for a
// --zoo entry run without --precision, the entry's native precision (the
// published checkpoint's dtype; the stored graph is fp32).
engine::AnalyzeOptions RunAnalyzeOptions(const RunContext& ctx);

// whole_model_mode.cc -------------------------------------------------------
// The estimate options: lumped, or mlsysim's with --mlsysim.
engine::WholeModelOptions EstimateOptions(const RunContext& ctx);
absl::StatusOr<std::string> WholeModelText(const RunContext& ctx);
absl::Status AddWholeModelJson(const RunContext& ctx,
                               nlohmann::ordered_json* report);

// sweep_mode.cc --------------------------------------------------------------
// One sweep of the analyzed model: batch=LIST (re-imported per batch),
// hw=A,B, or tp=|pp=|ep=LIST (sharded per width). concurrency=LIST is a
// --serve sweep (ServeSweepText) and an error here.
absl::StatusOr<engine::SweepResult> RunSweep(const RunContext& ctx,
                                             const std::string& spec);
absl::StatusOr<std::string> SweepText(const RunContext& ctx);
absl::Status AddSweepJson(const RunContext& ctx,
                          nlohmann::ordered_json* report);

// whatif_mode.cc -------------------------------------------------------------
// --fuse / --weights / --activations / --kv-cache / --what-if sections.
absl::StatusOr<std::string> WhatIfText(const RunContext& ctx);
absl::Status AddWhatIfJson(const RunContext& ctx,
                           nlohmann::ordered_json* report);
// Before/after bars (fusion groups, quantized layers) for the HTML page.
absl::Status AddWhatIfHtml(const RunContext& ctx,
                           engine::report::HtmlReportInput* page);

// measured_mode.cc -----------------------------------------------------------
// --measured (and --fit, which writes --fit-out).
absl::StatusOr<std::string> MeasuredText(const RunContext& ctx);
absl::Status AddMeasuredJson(const RunContext& ctx,
                             nlohmann::ordered_json* report);

// serve_mode.cc --------------------------------------------------------------
// --serve on a decoder file: binds what the user left unbound of the first
// decode step (the past-length dim to --prompt, one new token, the
// attention mask's length to --prompt + 1, a merged decoder's
// use_cache_branch to true, the batch to --concurrency), so that the main
// report is that step. Errors: no KV inputs, a --kv-dim they lack, a
// past-length or new-token dim not found, a bad --prompt/--concurrency.
absl::Status AddServeDecodeBindings(const RunContext& ctx,
                                    importers::ImportOptions* import);
// --serve: TTFT, TPOT by context, memory and max concurrency.
absl::StatusOr<std::string> ServeText(const RunContext& ctx);
// --search (with --serve): tensor-parallel widths x concurrencies against
// --ttft-max / --tpot-max; the Pareto set and the cheapest that meets both.
absl::StatusOr<std::string> SearchText(const RunContext& ctx);
absl::Status AddSearchJson(const RunContext& ctx,
                           nlohmann::ordered_json* report);
// --sweep concurrency=LIST with --serve: one serving analysis per
// concurrency; as a table / the "sweep" JSON key.
absl::StatusOr<std::vector<engine::ServeResult>> RunServeSweep(
    const RunContext& ctx, const std::vector<int64_t>& concurrency);
absl::StatusOr<std::string> ServeSweepText(
    const RunContext& ctx, const std::vector<int64_t>& concurrency);
absl::Status AddServeSweepJson(const RunContext& ctx,
                               const std::vector<int64_t>& concurrency,
                               nlohmann::ordered_json* report);
absl::Status AddServeJson(const RunContext& ctx,
                          nlohmann::ordered_json* report);
// The HTML page's serving charts: TPOT vs context and the memory stack.
absl::Status AddServeHtml(const RunContext& ctx,
                          engine::report::HtmlReportInput* page);

// html_mode.cc ---------------------------------------------------------------
// --format html|svg: the page or the plot; every --hw device draws a roof.
absl::StatusOr<std::string> RenderPicture(const RunContext& ctx);

}  // namespace ridgeline::tools::analyze

#endif  // RIDGELINE_TOOLS_ANALYZE_MODES_H_
