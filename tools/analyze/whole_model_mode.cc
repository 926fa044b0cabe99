// analyze --whole-model / --mlsysim: the lumped (one roofline per model)
// estimate beside the layer-level result (engine/whole_model.h,
// engine/WHOLE_MODEL.md).
#include <vector>

#include "engine/whole_model.h"
#include "tools/analyze/modes.h"
#include "zoo/catalog.h"

namespace ridgeline::tools::analyze {

// The estimate options: ridgeline's lumped roofline, or with --mlsysim
// mlsysim's formula (the zoo entry's class, layer count and tokens; for a
// file: a CNN whose layer count is its MAC layers).
engine::WholeModelOptions EstimateOptions(const RunContext& ctx) {
  if (!ctx.options->mlsysim) return {};
  if (ctx.zoo_entry) {
    absl::flat_hash_map<std::string, int64_t> user;
    for (const auto& [name, value] : ctx.options->dims) user[name] = value;
    return zoo::MlsysimOptions(
        *ctx.zoo_entry,
        zoo::EntryDims(*ctx.zoo_entry, user, ctx.options->batch));
  }
  engine::WholeModelOptions o;
  o.method = engine::WholeModelMethod::kMlsysim;
  return o;
}

absl::StatusOr<std::string> WholeModelText(const RunContext& ctx) {
  std::vector<engine::WholeModelResult> estimates;
  absl::StatusOr<engine::WholeModelResult> lumped =
      engine::WholeModel(ctx.analysis, {});
  if (!lumped.ok()) return lumped.status();
  estimates.push_back(*lumped);
  if (ctx.options->mlsysim) {
    absl::StatusOr<engine::WholeModelResult> m =
        engine::WholeModel(ctx.analysis, EstimateOptions(ctx));
    if (!m.ok()) return m.status();
    estimates.push_back(*m);
  }
  return engine::FormatWholeModelComparison(ctx.analysis, estimates,
                                            ctx.table_width);
}

// "whole_model": the --mlsysim estimate when asked, else the lumped one.
absl::Status AddWholeModelJson(const RunContext& ctx,
                               nlohmann::ordered_json* report) {
  absl::StatusOr<engine::WholeModelResult> r =
      engine::WholeModel(ctx.analysis, EstimateOptions(ctx));
  if (!r.ok()) return r.status();
  (*report)["whole_model"] = engine::WholeModelJson(*r);
  return absl::OkStatus();
}

}  // namespace ridgeline::tools::analyze
