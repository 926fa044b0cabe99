// analyze --format html|svg: the self-contained HTML report or the roofline
// plot alone (engine/report/html.h, svg.h). Every device of --hw a,b draws a
// roof; the tables use the first. The page adds the what-if bars and, with
// --serve, the time per output token by context and the memory stack.
#include <string>
#include <vector>

#include "engine/fusion_report.h"
#include "engine/parallel/sharding.h"
#include "engine/report/html.h"
#include "engine/report/svg.h"
#include "engine/report/units.h"
#include "engine/whole_model.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "tools/analyze/modes.h"

namespace ridgeline::tools::analyze {
namespace {

// The model analysed on the other --hw devices.
absl::StatusOr<std::vector<engine::Analysis>> OtherDevices(
    const RunContext& ctx) {
  std::vector<engine::Analysis> others;
  const std::vector<std::string>& names = ctx.options->hw;
  for (size_t i = 1; i < names.size(); ++i) {
    absl::StatusOr<engine::Hardware> hw = ctx.catalog->Find(names[i]);
    if (!hw.ok()) return hw.status();
    absl::StatusOr<engine::Analysis> a = engine::AnalyzeSharded(
        ctx.graph, *hw, ctx.analyze, ctx.options->parallel);
    if (!a.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {}", ctx.model_name, MessageOf(a.status())));
    }
    a->model = ctx.model_name;
    others.push_back(*std::move(a));
  }
  return others;
}

// The whole-model comparison as a table: layer-level and each estimate.
absl::StatusOr<engine::report::ComparisonTable> WholeModelTable(
    const RunContext& ctx) {
  engine::report::ComparisonTable t;
  t.title = "Whole-model estimate vs layer-level";
  t.columns = {"method",
               "latency",
               "throughput /s",
               "bound",
               "intensity "
               "(FLOP/B)",
               "MFU"};
  const engine::Summary& s = ctx.analysis.summary;
  t.rows.push_back({"layer-level", engine::report::FormatSeconds(s.latency_s),
                    fmt::format("{:.4g}", s.throughput_per_s), "", "", ""});
  std::vector<engine::WholeModelOptions> methods(1);  // lumped
  if (ctx.options->mlsysim) methods.push_back(EstimateOptions(ctx));
  for (const engine::WholeModelOptions& m : methods) {
    absl::StatusOr<engine::WholeModelResult> r =
        engine::WholeModel(ctx.analysis, m);
    if (!r.ok()) return r.status();
    t.rows.push_back({std::string(engine::WholeModelMethodName(r->method)),
                      engine::report::FormatSeconds(r->latency_s),
                      fmt::format("{:.4g}", r->throughput_per_s),
                      std::string(engine::BoundName(r->bound)),
                      fmt::format("{:.3g}", r->intensity),
                      fmt::format("{:.1f}%", 100 * r->mfu)});
  }
  t.note =
      "A sum of per-layer maxima is never below the max of the sums: the "
      "layer-level latency is at least the lumped one.";
  return t;
}

}  // namespace

absl::StatusOr<std::string> RenderPicture(const RunContext& ctx) {
  absl::StatusOr<std::vector<engine::Analysis>> others = OtherDevices(ctx);
  if (!others.ok()) return others.status();
  std::vector<const engine::Analysis*> all = {&ctx.analysis};
  for (const engine::Analysis& a : *others) all.push_back(&a);

  if (ctx.options->picture == Options::Picture::kSvg) {
    return engine::report::RenderRooflineSvg(all, {});
  }
  engine::report::HtmlReportInput in;
  in.primary = &ctx.analysis;
  in.other_hardware.assign(all.begin() + 1, all.end());
  in.generator = "ridgeline analyze";
  if (ctx.options->whole_model) {
    absl::StatusOr<engine::report::ComparisonTable> t = WholeModelTable(ctx);
    if (!t.ok()) return t.status();
    in.comparisons.push_back(*std::move(t));
  }
  if (absl::Status s = AddWhatIfHtml(ctx, &in); !s.ok()) return s;
  if (ctx.options->serve) {
    if (absl::Status s = AddServeHtml(ctx, &in); !s.ok()) return s;
  }
  return engine::report::RenderHtmlReport(in);
}

}  // namespace ridgeline::tools::analyze
