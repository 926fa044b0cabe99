#include "tools/analyze/run.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "engine/analysis.h"
#include "engine/hardware.h"
#include "engine/parallel/sharding.h"
#include "engine/report/hardware_list.h"
#include "engine/report/json.h"
#include "engine/report/report.h"
#include "engine/report/text.h"
#include "fmt/format.h"
#include "fmt/ostream.h"
#include "graph/fmt_absl.h"
#include "importers/onnx_importer.h"
#include "tools/analyze/modes.h"
#include "zoo/hardware_catalog.h"
#include "zoo/runtime_catalog.h"

namespace ridgeline::tools::analyze {
namespace {

int Fail(std::ostream& err, std::string_view message) {
  fmt::print(err, "analyze: error: {}\n",
             engine::report::EscapeControl(message));
  return kExitInput;
}

// The device lookups: the zoo plus the --hw-file entry (which replaces a zoo
// entry with the same key).
absl::Status OpenCatalog(const Options& o, zoo::HardwareLookup* catalog,
                         std::optional<engine::Hardware>* from_file) {
  if (o.hw_file.empty()) return absl::OkStatus();
  absl::StatusOr<engine::Hardware> hw = engine::LoadHardwareFile(o.hw_file);
  if (!hw.ok()) return hw.status();
  *from_file = *hw;
  catalog->Override(*std::move(hw));
  return absl::OkStatus();
}

// The widest text-table line when the report goes to standard output:
// $COLUMNS when it is a positive number (as ls and Python read it), else
// the terminal's width when standard output is one; else 160 columns.
size_t TableWidth(const Options& o, const std::ostream& out) {
  if (!o.output_path.empty() || &out != &std::cout) {
    return engine::report::kMaxTableWidth;
  }
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    int width = 0;
    if (absl::SimpleAtoi(columns, &width) && width > 0) return width;
  }
  if (isatty(STDOUT_FILENO)) {
    struct winsize size {};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
      return size.ws_col;
    }
  }
  return engine::report::kMaxTableWidth;
}

// True when a feature mode adds to the report.
bool AnyMode(const Options& o) {
  return o.whole_model || !o.sweep.empty() || !o.fuse.empty() ||
         !o.weights.empty() || !o.activations.empty() || !o.kv_cache.empty() ||
         o.what_if || !o.measured_path.empty() || o.serve;
}

}  // namespace

absl::StatusOr<std::string> ModeText(const RunContext& ctx) {
  const Options& o = *ctx.options;
  std::string text;
  auto add = [&](absl::StatusOr<std::string> section) -> absl::Status {
    if (!section.ok()) return section.status();
    text += "\n";
    text += *section;
    return absl::OkStatus();
  };
  if (o.whole_model) {
    if (absl::Status s = add(WholeModelText(ctx)); !s.ok()) return s;
  }
  if (!o.sweep.empty()) {
    if (absl::Status s = add(SweepText(ctx)); !s.ok()) return s;
  }
  if (!o.fuse.empty() || !o.weights.empty() || !o.activations.empty() ||
      !o.kv_cache.empty() || o.what_if) {
    if (absl::Status s = add(WhatIfText(ctx)); !s.ok()) return s;
  }
  if (!o.measured_path.empty()) {
    if (absl::Status s = add(MeasuredText(ctx)); !s.ok()) return s;
  }
  if (o.serve) {
    if (absl::Status s = add(ServeText(ctx)); !s.ok()) return s;
  }
  if (o.search) {
    if (absl::Status s = add(SearchText(ctx)); !s.ok()) return s;
  }
  return text;
}

namespace {

// The feature modes' keys beside "summary".
absl::Status AddModeJson(const RunContext& ctx,
                         nlohmann::ordered_json* report) {
  const Options& o = *ctx.options;
  nlohmann::ordered_json& j = *report;
  if (o.whole_model) {
    if (absl::Status s = AddWholeModelJson(ctx, &j); !s.ok()) return s;
  }
  if (!o.sweep.empty()) {
    if (absl::Status s = AddSweepJson(ctx, &j); !s.ok()) return s;
  }
  if (!o.fuse.empty() || !o.weights.empty() || !o.activations.empty() ||
      !o.kv_cache.empty() || o.what_if) {
    if (absl::Status s = AddWhatIfJson(ctx, &j); !s.ok()) return s;
  }
  if (!o.measured_path.empty()) {
    if (absl::Status s = AddMeasuredJson(ctx, &j); !s.ok()) return s;
  }
  if (o.serve) {
    if (absl::Status s = AddServeJson(ctx, &j); !s.ok()) return s;
  }
  if (o.search) {
    if (absl::Status s = AddSearchJson(ctx, &j); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<engine::report::JsonExtras> ReportJsonExtras(
    const RunContext& ctx) {
  engine::report::JsonExtras extras;
  extras.sections = nlohmann::ordered_json::object();
  if (absl::Status s = AddModeJson(ctx, &extras.sections); !s.ok()) return s;
  extras.warnings_first = engine::report::CollapseRepeats(*ctx.warnings);
  return extras;
}

absl::Status SelectRuntime(RunContext* ctx) {
  const Options& o = *ctx->options;
  const std::string name =
      !o.runtime.empty()
          ? o.runtime
          : std::string(o.mlsysim ? "mlsysim"
                                  : zoo::DefaultRuntimeKey(ctx->hw));
  absl::StatusOr<engine::Runtime> runtime = zoo::ResolveRuntime(name);
  if (!runtime.ok()) return runtime.status();
  ctx->runtime = *std::move(runtime);
  return absl::OkStatus();
}

absl::Status LoadRunModel(RunContext* ctx) {
  if (absl::Status s = LoadModel(ctx); !s.ok()) return s;
  for (const std::string& w : ctx->graph.warnings) {
    Warn(*ctx, fmt::format("{}: {}", ctx->model_name, w));
  }
  return absl::OkStatus();
}

absl::Status AnalyzeRun(RunContext* ctx) {
  const Options& o = *ctx->options;
  const graph::Graph& g = ctx->graph;
  ctx->analyze = RunAnalyzeOptions(*ctx);
  ctx->analyze.runtime = &ctx->runtime;
  // The batch the importer settled (Graph::batch).
  ctx->analyze.batch = g.batch.value;
  if (o.batch && !g.batch.symbolic() && *o.batch != g.batch.value) {
    Warn(*ctx, fmt::format("--batch {} not applied: the model has no symbolic "
                           "batch dim; throughput uses batch {}",
                           *o.batch, g.batch.value));
  }
  // Sharded with --tp/--pp/--ep: planned so that no kernel spans a
  // collective, then split over the GPUs.
  absl::StatusOr<engine::Analysis> analysis =
      engine::AnalyzeSharded(g, ctx->hw, ctx->analyze, o.parallel);
  if (!analysis.ok()) {
    return absl::Status(
        analysis.status().code(),
        fmt::format("{}: {}", ctx->model_name, MessageOf(analysis.status())));
  }
  ctx->analysis = *std::move(analysis);
  ctx->analysis.model = ctx->model_name;
  const engine::Summary& s = ctx->analysis.summary;
  if (!s.skipped_layers.empty() || !s.unknown_ops.empty()) {
    Warn(*ctx, fmt::format("{}: {} layer(s) skipped (unresolved shapes or "
                           "counting errors), {} op type(s) without a "
                           "counter; see the report's warnings/summary",
                           ctx->model_name, s.skipped_layers.size(),
                           s.unknown_ops.size()));
  }
  return absl::OkStatus();
}

void Warn(const RunContext& ctx, const std::string& text) {
  if (ctx.warnings != nullptr) {
    // Printed once; a repeat only counts in the report.
    const bool seen = std::find(ctx.warnings->begin(), ctx.warnings->end(),
                                text) != ctx.warnings->end();
    ctx.warnings->push_back(text);
    if (seen) return;
  }
  if (ctx.err != nullptr) {
    fmt::print(*ctx.err, "analyze: warning: {}\n",
               engine::report::EscapeControl(text));
  }
}

int RunAnalyze(const Options& options, std::ostream& out, std::ostream& err,
               const AtFinish& at_finish) {
  if (options.help) {
    fmt::print(out, "{}", UsageText());
    return kExitOk;
  }
  std::ofstream file;
  std::ostream* sink = &out;
  auto open_output = [&]() -> bool {
    if (options.output_path.empty()) return true;
    file.open(options.output_path, std::ios::binary | std::ios::trunc);
    if (!file) return false;
    sink = &file;
    return true;
  };
  auto finish = [&]() -> int {
    if (file.is_open()) {
      file.close();
      if (!file) {
        return Fail(err, fmt::format("{}: write failed", options.output_path));
      }
    }
    if (at_finish) at_finish(kExitOk);
    return kExitOk;
  };
  const std::string cannot_open =
      fmt::format("{}: cannot open for writing", options.output_path);

  if (options.list_runtimes) {
    absl::StatusOr<std::vector<engine::Runtime>> runtimes =
        zoo::RuntimeCatalog();
    if (!runtimes.ok()) return Fail(err, MessageOf(runtimes.status()));
    if (!open_output()) return Fail(err, cannot_open);
    engine::report::WriteRuntimeList(*runtimes, options.format, *sink,
                                     TableWidth(options, out));
    return finish();
  }
  if (options.list_zoo) {
    absl::StatusOr<std::string> list =
        ListZoo(options.format, TableWidth(options, out));
    if (!list.ok()) return Fail(err, MessageOf(list.status()));
    if (!open_output()) return Fail(err, cannot_open);
    fmt::print(*sink, "{}", *list);
    return finish();
  }

  std::optional<engine::Hardware> from_file;
  zoo::HardwareLookup catalog;
  if (absl::Status s = OpenCatalog(options, &catalog, &from_file); !s.ok()) {
    return Fail(err, MessageOf(s));
  }

  if (options.list_hw) {
    absl::StatusOr<std::vector<engine::Hardware>> all = catalog.All();
    if (!all.ok()) return Fail(err, MessageOf(all.status()));
    if (!open_output()) return Fail(err, cannot_open);
    engine::report::WriteHardwareList(*all, options.format, *sink,
                                      TableWidth(options, out));
    return finish();
  }

  std::vector<std::string> warnings;
  RunContext ctx;
  ctx.options = &options;
  ctx.catalog = &catalog;
  ctx.err = &err;
  ctx.warnings = &warnings;
  ctx.table_width = TableWidth(options, out);
  if (options.hw.empty()) {
    ctx.hw = *from_file;
  } else {
    absl::StatusOr<engine::Hardware> found = catalog.Find(options.hw.front());
    if (!found.ok()) return Fail(err, MessageOf(found.status()));
    ctx.hw = *found;
    for (size_t i = 1; i < options.hw.size(); ++i) {
      absl::StatusOr<engine::Hardware> other = catalog.Find(options.hw[i]);
      if (!other.ok()) return Fail(err, MessageOf(other.status()));
    }
    if (options.hw.size() > 1 && options.picture == Options::Picture::kNone) {
      Warn(ctx, fmt::format("--hw: the report uses the first device ({}); "
                            "--format html/svg draw every device's roof",
                            ctx.hw.key));
    }
  }

  if (absl::Status s = SelectRuntime(&ctx); !s.ok()) {
    return Fail(err, MessageOf(s));
  }

  if (absl::Status s = LoadRunModel(&ctx); !s.ok()) {
    return Fail(err, MessageOf(s));
  }
  if (absl::Status s = AnalyzeRun(&ctx); !s.ok()) {
    return Fail(err, MessageOf(s));
  }

  // Everything is computed before the output is opened: an error leaves no
  // half-written file.
  std::string report;
  if (options.picture != Options::Picture::kNone) {
    absl::StatusOr<std::string> page = RenderPicture(ctx);
    if (!page.ok()) return Fail(err, MessageOf(page.status()));
    report = *std::move(page);
  } else if (options.format == engine::report::Format::kJson) {
    // Written as it goes, straight to the output (no document in memory).
    absl::StatusOr<engine::report::JsonExtras> extras = ReportJsonExtras(ctx);
    if (!extras.ok()) return Fail(err, MessageOf(extras.status()));
    if (!open_output()) return Fail(err, cannot_open);
    engine::report::WriteAnalysisJson(ctx.analysis, *extras, *sink);
    return finish();
  } else {
    std::ostringstream text;
    engine::report::ReportOptions layout = options.report;
    layout.width = ctx.table_width;
    engine::report::WriteReport(ctx.analysis, options.format, layout, text);
    report = text.str();
    if (AnyMode(options)) {
      absl::StatusOr<std::string> extra = ModeText(ctx);
      if (!extra.ok()) return Fail(err, MessageOf(extra.status()));
      report += *extra;
    }
  }
  if (!open_output()) return Fail(err, cannot_open);
  *sink << report;
  return finish();
}

int AnalyzeMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err, const AtFinish& at_finish) {
  absl::StatusOr<Options> options = ParseArgs(args);
  if (!options.ok()) {
    fmt::print(err, "analyze: {}\n\n{}", MessageOf(options.status()),
               UsageText());
    return kExitUsage;
  }
  return RunAnalyze(*options, out, err, at_finish);
}

}  // namespace ridgeline::tools::analyze
