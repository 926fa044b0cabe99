// analyze --measured PROFILE.json [--fit --fit-out FILE.json]: predicted vs
// measured per layer (importers/profile, engine/measured.h), and the
// per-op-type efficiencies fitted to the profile written as a device file
// (engine/fit.h) that --hw-file reads back.
#include <fstream>
#include <string>

#include "engine/fit.h"
#include "engine/measured.h"
#include "engine/measured_report.h"
#include "fmt/format.h"
#include "fmt/ostream.h"
#include "graph/fmt_absl.h"
#include "importers/profile/profile_reader.h"
#include "tools/analyze/modes.h"

namespace ridgeline::tools::analyze {
namespace {

absl::StatusOr<engine::Comparison> Compare(const RunContext& ctx) {
  absl::StatusOr<graph::MeasuredProfile> profile = importers::ReadProfile(
      ctx.options->measured_path, {.skip_runs = ctx.options->skip_runs});
  if (!profile.ok()) return profile.status();
  absl::StatusOr<engine::Comparison> c =
      engine::CompareWithProfile(ctx.graph, ctx.analysis, *profile, {});
  if (!c.ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: {}", ctx.options->measured_path, MessageOf(c.status())));
  }
  for (const std::string& w : c->warnings) {
    Warn(ctx, fmt::format("{}: {}", ctx.options->measured_path, w));
  }
  return c;
}

// --fit: fits, writes --fit-out, returns the fit table.
absl::StatusOr<std::string> Fit(const RunContext& ctx,
                                const engine::Comparison& c) {
  absl::StatusOr<engine::FitResult> fit =
      engine::FitEfficiencies(ctx.analysis, c, {});
  if (!fit.ok()) return fit.status();
  engine::Hardware hw = ctx.hw;
  engine::ApplyFit(*fit, ctx.options->measured_path, &hw);
  const std::string& path = ctx.options->fit_out;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    return absl::InvalidArgumentError(
        fmt::format("{}: cannot open for writing", path));
  }
  file << engine::HardwareToJson(hw);
  file.close();
  if (!file) {
    return absl::InvalidArgumentError(fmt::format("{}: write failed", path));
  }
  return fmt::format(
      "{}\nfitted device '{}' written to {} (use --hw-file {})\n",
      engine::FormatFit(*fit, ctx.table_width), hw.key, path, path);
}

}  // namespace

absl::StatusOr<std::string> MeasuredText(const RunContext& ctx) {
  absl::StatusOr<engine::Comparison> c = Compare(ctx);
  if (!c.ok()) return c.status();
  std::string text = engine::FormatComparison(
      ctx.analysis, *c,
      {.top = ctx.options->report.top, .max_width = ctx.table_width});
  if (ctx.options->fit) {
    absl::StatusOr<std::string> fit = Fit(ctx, *c);
    if (!fit.ok()) return fit.status();
    text += "\n" + *fit;
  }
  return text;
}

absl::Status AddMeasuredJson(const RunContext& ctx,
                             nlohmann::ordered_json* report) {
  absl::StatusOr<engine::Comparison> c = Compare(ctx);
  if (!c.ok()) return c.status();
  // Merged into each layer's object (engine/report/json.h, JsonExtras).
  nlohmann::ordered_json& layers = (*report)["layers"];
  layers = nlohmann::ordered_json::array();
  for (size_t i = 0; i < ctx.analysis.layers.size(); ++i) {
    layers.push_back(engine::MeasuredLayerJson(*c, static_cast<int>(i)));
  }
  (*report)["measured"] = engine::MeasuredSummaryJson(*c);
  if (ctx.options->fit) {
    absl::StatusOr<std::string> fit = Fit(ctx, *c);
    if (!fit.ok()) return fit.status();
    (*report)["fit"] = {{"hardware_file", ctx.options->fit_out}};
  }
  return absl::OkStatus();
}

}  // namespace ridgeline::tools::analyze
