#include "tools/python/session.h"

#include <utility>

#include "absl/strings/cord.h"
#include "engine/analysis.h"
#include "engine/hardware.h"
#include "engine/parallel/sharding.h"
#include "engine/report/json.h"
#include "engine/report/text.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "zoo/hardware_catalog.h"

namespace ridgeline::python {
namespace {

using tools::analyze::Options;

constexpr char kModelErrorPayload[] = "ridgeline/model-error";

absl::Status AsModelError(const absl::Status& status) {
  absl::Status marked = status;
  marked.SetPayload(kModelErrorPayload, absl::Cord("1"));
  return marked;
}

// The batch the importer settled (Graph::batch), as the CLI's RunAnalyze
// takes it (tools/analyze/run.cc), with the same warning.
int64_t GraphBatch(const tools::analyze::RunContext& ctx) {
  const graph::Graph& g = ctx.graph;
  const Options& o = *ctx.options;
  if (o.batch && !g.batch.symbolic() && *o.batch != g.batch.value) {
    tools::analyze::Warn(
        ctx, fmt::format("--batch {} not applied: the model has no symbolic "
                         "batch dim; throughput uses batch {}",
                         *o.batch, g.batch.value));
  }
  return g.batch.value;
}

}  // namespace

bool IsModelError(const absl::Status& status) {
  return status.GetPayload(kModelErrorPayload).has_value();
}

absl::StatusOr<std::unique_ptr<Session>> Session::Open(
    const std::vector<std::string>& args,
    std::optional<std::string> model_bytes) {
  absl::StatusOr<Options> options = tools::analyze::ParseArgs(args);
  if (!options.ok()) return options.status();
  std::unique_ptr<Session> s(new Session());
  s->options_ = *std::move(options);
  // The report page is the only picture the package renders.
  s->options_.picture = Options::Picture::kHtml;
  s->model_bytes_ = std::move(model_bytes);
  if (absl::Status st = s->Load(); !st.ok()) return st;
  return s;
}

// The steps of the CLI's RunAnalyze (tools/analyze/run.cc) up to the report.
absl::Status Session::Load() {
  ctx_.options = &options_;
  ctx_.catalog = &catalog_;
  ctx_.warnings = &warnings_;  // ctx_.err stays null: nothing is printed
  if (model_bytes_) ctx_.model_bytes = *model_bytes_;
  for (size_t i = 0; i < options_.hw.size(); ++i) {
    absl::StatusOr<engine::Hardware> hw = catalog_.Find(options_.hw[i]);
    if (!hw.ok()) return hw.status();
    if (i == 0) ctx_.hw = *std::move(hw);
  }
  if (absl::Status st = tools::analyze::SelectRuntime(&ctx_); !st.ok()) {
    return st;
  }

  if (absl::Status st = tools::analyze::LoadModel(&ctx_); !st.ok()) {
    // NotFound: an unknown --zoo name, an argument; the rest is the model.
    return absl::IsNotFound(st) ? st : AsModelError(st);
  }
  for (const std::string& w : ctx_.graph.warnings) {
    tools::analyze::Warn(ctx_, fmt::format("{}: {}", ctx_.model_name, w));
  }

  ctx_.analyze = tools::analyze::RunAnalyzeOptions(ctx_);
  ctx_.analyze.runtime = &ctx_.runtime;
  ctx_.analyze.batch = GraphBatch(ctx_);
  absl::StatusOr<engine::Analysis> analysis =
      engine::Analyze(ctx_.graph, ctx_.hw, ctx_.analyze);
  if (!analysis.ok()) {
    return absl::Status(
        analysis.status().code(),
        fmt::format("{}: {}", ctx_.model_name, MessageOf(analysis.status())));
  }
  ctx_.analysis = *std::move(analysis);
  ctx_.analysis.model = ctx_.model_name;
  const engine::Summary& sum = ctx_.analysis.summary;
  if (!sum.skipped_layers.empty() || !sum.unknown_ops.empty()) {
    tools::analyze::Warn(
        ctx_, fmt::format("{}: {} layer(s) skipped (unresolved shapes or "
                          "counting errors), {} op type(s) without a counter; "
                          "see the report's warnings/summary",
                          ctx_.model_name, sum.skipped_layers.size(),
                          sum.unknown_ops.size()));
  }
  return absl::OkStatus();
}

std::vector<std::string> Session::warnings() const {
  return engine::report::CollapseRepeats(warnings_);
}

// As the CLI's ReportJson (tools/analyze/run.cc) without the mode sections:
// the run's warnings first, then the analysis' own.
nlohmann::ordered_json Session::Document() const {
  nlohmann::ordered_json j = engine::report::AnalysisToJson(ctx_.analysis);
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const std::string& w : warnings()) all.push_back(w);
  for (const auto& w : j["warnings"]) all.push_back(w);
  j["warnings"] = std::move(all);
  return j;
}

// As the CLI's RunSweep (tools/analyze/sweep_mode.cc), for any spec.
absl::StatusOr<engine::SweepResult> Session::Sweep(
    const std::string& spec_text) const {
  absl::StatusOr<engine::SweepSpec> spec = engine::ParseSweepSpec(spec_text);
  if (!spec.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("--sweep: invalid value '{}': {}", spec_text,
                    MessageOf(spec.status())));
  }
  engine::SweepOptions sweep;
  if (options_.whole_model) {
    sweep.whole_model = tools::analyze::EstimateOptions(ctx_);
  }
  if (spec->axis == engine::SweepSpec::Axis::kBatch) {
    engine::AnalyzeAtBatch at =
        [this](int64_t batch) -> absl::StatusOr<engine::Analysis> {
      absl::StatusOr<graph::Graph> g =
          tools::analyze::LoadModelAtBatch(ctx_, batch);
      if (!g.ok()) return g.status();
      engine::AnalyzeOptions o = ctx_.analyze;
      o.batch = batch;
      return engine::Analyze(*g, ctx_.hw, o);
    };
    return engine::SweepBatch(at, spec->batches, sweep);
  }
  if (spec->axis == engine::SweepSpec::Axis::kConcurrency) {
    return absl::InvalidArgumentError(
        "--sweep concurrency=LIST is a --serve sweep (the analyze CLI)");
  }
  if (const std::optional<engine::ParallelAxis> axis =
          engine::ParallelAxisOf(spec->axis)) {
    const engine::ShardAtWidth at = engine::ShardAtEachWidth(
        ctx_.graph, ctx_.hw, ctx_.analyze, ctx_.analysis, *axis);
    return engine::SweepParallel(at, spec->axis, spec->widths);
  }
  std::vector<engine::Hardware> devices;
  for (const std::string& name : spec->hardware) {
    absl::StatusOr<engine::Hardware> hw = catalog_.Find(name);
    if (!hw.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("--sweep: {}", MessageOf(hw.status())));
    }
    devices.push_back(*std::move(hw));
  }
  engine::AnalyzeOnHardware on =
      [this](const engine::Hardware& hw) -> absl::StatusOr<engine::Analysis> {
    return engine::Analyze(ctx_.graph, hw, ctx_.analyze);
  };
  return engine::SweepHardware(ctx_.analysis, ctx_.analyze, devices, on, sweep);
}

}  // namespace ridgeline::python
