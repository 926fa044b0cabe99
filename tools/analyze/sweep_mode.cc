// analyze --sweep batch=LIST | hw=A,B | tp=LIST | pp=LIST | ep=LIST: the
// model re-priced per batch or per device, or sharded per tensor-, pipeline-
// or expert-parallel width (engine/sweep.h).
#include <optional>
#include <utility>
#include <vector>

#include "engine/parallel/sharding.h"
#include "engine/sweep.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "tools/analyze/modes.h"

namespace ridgeline::tools::analyze {
absl::StatusOr<engine::SweepResult> RunSweep(const RunContext& ctx,
                                             const std::string& spec_text) {
  absl::StatusOr<engine::SweepSpec> spec = ParseSweepFlag(spec_text);
  if (!spec.ok()) return spec.status();
  engine::SweepOptions sweep;
  if (ctx.options->whole_model) sweep.whole_model = EstimateOptions(ctx);

  if (spec->axis == engine::SweepSpec::Axis::kBatch) {
    engine::AnalyzeAtBatch at =
        [&ctx](int64_t batch) -> absl::StatusOr<engine::Analysis> {
      absl::StatusOr<graph::Graph> g = LoadModelAtBatch(ctx, batch);
      if (!g.ok()) return g.status();
      engine::AnalyzeOptions o = ctx.analyze;
      o.batch = batch;
      return engine::Analyze(*g, ctx.hw, o);
    };
    return engine::SweepBatch(at, spec->batches, sweep);
  }
  if (const std::optional<engine::ParallelAxis> axis =
          engine::ParallelAxisOf(spec->axis)) {
    const engine::ShardAtWidth at = engine::ShardAtEachWidth(
        ctx.graph, ctx.hw, ctx.analyze, ctx.analysis, *axis);
    return engine::SweepParallel(at, spec->axis, spec->widths);
  }
  if (spec->axis == engine::SweepSpec::Axis::kConcurrency) {
    return absl::InvalidArgumentError("--sweep concurrency=LIST needs --serve");
  }
  std::vector<engine::Hardware> devices;
  for (const std::string& name : spec->hardware) {
    absl::StatusOr<engine::Hardware> hw = ctx.catalog->Find(name);
    if (!hw.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("--sweep: {}", MessageOf(hw.status())));
    }
    devices.push_back(*hw);
  }
  engine::AnalyzeOnHardware on =
      [&ctx](const engine::Hardware& hw) -> absl::StatusOr<engine::Analysis> {
    return engine::Analyze(ctx.graph, hw, ctx.analyze);
  };
  return engine::SweepHardware(ctx.analysis, ctx.analyze, devices, on, sweep);
}

namespace {

// --sweep concurrency=LIST (with --serve), or nothing.
std::optional<std::vector<int64_t>> ConcurrencySweep(const RunContext& ctx) {
  absl::StatusOr<engine::SweepSpec> spec =
      engine::ParseSweepSpec(ctx.options->sweep);
  if (!spec.ok() || spec->axis != engine::SweepSpec::Axis::kConcurrency) {
    return std::nullopt;
  }
  return spec->concurrency;
}

}  // namespace

absl::StatusOr<std::string> SweepText(const RunContext& ctx) {
  if (std::optional<std::vector<int64_t>> c = ConcurrencySweep(ctx)) {
    return ServeSweepText(ctx, *c);
  }
  absl::StatusOr<engine::SweepResult> r = RunSweep(ctx, ctx.options->sweep);
  if (!r.ok()) return r.status();
  return engine::FormatSweep(*r, ctx.table_width);
}

absl::Status AddSweepJson(const RunContext& ctx,
                          nlohmann::ordered_json* report) {
  if (std::optional<std::vector<int64_t>> c = ConcurrencySweep(ctx)) {
    return AddServeSweepJson(ctx, *c, report);
  }
  absl::StatusOr<engine::SweepResult> r = RunSweep(ctx, ctx.options->sweep);
  if (!r.ok()) return r.status();
  (*report)["sweep"] = engine::SweepJson(*r);
  return absl::OkStatus();
}

}  // namespace ridgeline::tools::analyze
