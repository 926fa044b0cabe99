// analyze --fuse / --weights / --activations / --kv-cache / --what-if: the
// fusion and quantization what-ifs (engine/fusion.h, engine/quantize.h,
// engine/what_if.h). The report's own layers stay as stored and unfused.
// With --tp the what-ifs are sharded like the report.
#include <algorithm>
#include <optional>
#include <string>

#include "engine/fusion.h"
#include "engine/fusion_report.h"
#include "engine/quantize.h"
#include "engine/quantize_report.h"
#include "engine/report/units.h"
#include "engine/what_if.h"
#include "fmt/format.h"
#include "tools/analyze/modes.h"

namespace ridgeline::tools::analyze {
namespace {

struct WhatIfResults {
  std::optional<engine::QuantizeResult> quantize;
  std::optional<engine::FusionResult> fusion;
  std::optional<std::vector<engine::WhatIfRow>> what_if;
};

engine::QuantizeOptions QuantizeOptionsOf(const Options& o) {
  engine::QuantizeOptions q;
  q.weights = o.weights;
  q.activations = o.activations;
  q.kv_cache = o.kv_cache;
  q.int4_group_size = o.int4_group;
  return q;
}

absl::StatusOr<WhatIfResults> Run(const RunContext& ctx) {
  const Options& o = *ctx.options;
  WhatIfResults r;
  const engine::QuantizeOptions q = QuantizeOptionsOf(o);
  if (q.any()) {
    absl::StatusOr<engine::QuantizeResult> result =
        engine::AnalyzeQuantized(ctx.graph, ctx.hw, ctx.analyze, q, o.parallel);
    if (!result.ok()) return result.status();
    r.quantize = *std::move(result);
  }
  if (!o.fuse.empty()) {
    absl::StatusOr<engine::FusionKinds> kinds =
        engine::ParseFusionKinds(o.fuse);
    if (!kinds.ok()) return kinds.status();
    if (kinds->any()) {
      // With quantization, fuse the quantized model (its pricer). With --tp
      // the analysis is sharded: no group spans its collectives.
      const engine::Analysis& unfused =
          r.quantize ? r.quantize->after : ctx.analysis;
      absl::StatusOr<engine::FusionPlan> plan = engine::PlanFusion(
          ctx.graph, *kinds, engine::CollectiveTensors(ctx.graph, unfused));
      if (!plan.ok()) return plan.status();
      absl::StatusOr<engine::FusionResult> fused =
          r.quantize
              ? engine::ApplyFusion(unfused, *plan, ctx.graph,
                                    r.quantize->pricer.get())
              : engine::ApplyFusion(unfused, *plan, ctx.graph, ctx.analyze);
      if (!fused.ok()) return fused.status();
      r.fusion = *std::move(fused);
    }
  }
  if (o.what_if) {
    engine::WhatIfOptions w;
    w.parallel = o.parallel;
    absl::StatusOr<std::vector<engine::WhatIfRow>> rows =
        engine::RunWhatIf(ctx.graph, ctx.hw, ctx.analyze, w);
    if (!rows.ok()) return rows.status();
    r.what_if = *std::move(rows);
  }
  return r;
}

}  // namespace

absl::StatusOr<std::string> WhatIfText(const RunContext& ctx) {
  absl::StatusOr<WhatIfResults> r = Run(ctx);
  if (!r.ok()) return r.status();
  const int top = ctx.options->report.top;
  std::string text;
  if (r->quantize) {
    text += engine::RenderQuantizeText(
        *r->quantize, {.top = top, .max_width = ctx.table_width});
  }
  if (r->fusion) {
    if (!text.empty()) text += "\n";
    text += engine::RenderFusionText(
        *r->fusion, {.top = top, .max_width = ctx.table_width});
  }
  if (r->what_if) {
    if (!text.empty()) text += "\n";
    text += engine::RenderWhatIfText(*r->what_if, ctx.table_width);
  }
  return text;
}

absl::Status AddWhatIfJson(const RunContext& ctx,
                           nlohmann::ordered_json* report) {
  absl::StatusOr<WhatIfResults> r = Run(ctx);
  if (!r.ok()) return r.status();
  if (r->quantize) {
    (*report)["quantize"] = engine::QuantizeJson(*r->quantize);
  }
  if (r->fusion) engine::AddFusionJson(*r->fusion, report);
  if (r->what_if) {
    (*report)["what_if"] = engine::WhatIfJson(*r->what_if);
  }
  return absl::OkStatus();
}

absl::Status AddWhatIfHtml(const RunContext& ctx,
                           engine::report::HtmlReportInput* page) {
  const Options& o = *ctx.options;
  if (o.fuse.empty() && !QuantizeOptionsOf(o).any() && !o.what_if) {
    return absl::OkStatus();
  }
  absl::StatusOr<WhatIfResults> r = Run(ctx);
  if (!r.ok()) return r.status();
  constexpr size_t kBars = 20;  // largest savings shown
  if (r->fusion) {
    engine::report::BeforeAfterChart chart;
    chart.title =
        fmt::format("Fusion ({})", engine::FusionKindsName(r->fusion->kinds));
    chart.before_label = "unfused";
    chart.after_label = "fused";
    chart.bars.push_back(
        {"whole model", r->fusion->latency_unfused_s, r->fusion->latency_s});
    std::vector<engine::GroupResult> groups = r->fusion->groups;
    std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
      return a.saved_s > b.saved_s;
    });
    for (size_t i = 0; i < groups.size() && i < kBars; ++i) {
      chart.bars.push_back(
          {groups[i].name, groups[i].latency_unfused_s, groups[i].latency_s});
    }
    page->before_after.push_back(std::move(chart));
  }
  if (r->quantize) {
    engine::report::BeforeAfterChart chart;
    chart.title = fmt::format(
        "Quantization ({})", engine::QuantizeOptionsName(r->quantize->options));
    chart.before_label = "as stored";
    chart.after_label = "quantized";
    chart.bars.push_back(
        {"whole model", r->quantize->latency_before_s, r->quantize->latency_s});
    std::vector<engine::QuantizedLayer> layers = r->quantize->layers;
    std::sort(layers.begin(), layers.end(), [](const auto& a, const auto& b) {
      return a.saved_s > b.saved_s;
    });
    for (size_t i = 0; i < layers.size() && i < kBars; ++i) {
      chart.bars.push_back(
          {layers[i].name, layers[i].latency_before_s, layers[i].latency_s});
    }
    page->before_after.push_back(std::move(chart));
  }
  if (r->what_if) {
    engine::report::TextTable table = engine::WhatIfTable(*r->what_if);
    engine::report::ComparisonTable t;
    t.title = "What-if";
    t.columns = std::move(table.headers);
    t.rows = std::move(table.rows);
    page->comparisons.push_back(std::move(t));
  }
  return absl::OkStatus();
}

}  // namespace ridgeline::tools::analyze
