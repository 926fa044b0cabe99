// The table report as Markdown (--format md).
#include <ostream>

#include "engine/report/layer_rows.h"
#include "engine/report/report.h"
#include "engine/report/sections.h"
#include "engine/report/text.h"
#include "engine/report/units.h"
#include "fmt/format.h"
#include "fmt/ostream.h"

namespace ridgeline::engine::report {
namespace {

void WriteItems(std::string_view title, const Items& items, std::ostream& out) {
  fmt::print(out, "\n## {}\n\n", title);
  for (const auto& [label, value] : items) {
    fmt::print(out, "- **{}**: {}\n", EscapeControl(label),
               EscapeControl(value));
  }
}

}  // namespace

void WriteMarkdown(const Analysis& analysis, const ReportOptions& options,
                   std::ostream& out) {
  fmt::print(out, "# {} on {}\n\n", EscapeControl(analysis.model),
             EscapeControl(analysis.hardware.name));
  fmt::print(out, "Batch {}, peak {} {}.\n\n", analysis.batch,
             analysis.assumptions.peak_precision,
             FormatSi(analysis.assumptions.peak_flops_per_s, "FLOP/s"));
  fmt::print(
      out, "## Layers{}\n\n",
      options.all_layers ? " (all, topological order)" : " (by latency)");
  fmt::print(out, "{}", RenderMarkdown(BuildLayerTable(analysis, options)));
  WriteItems("Summary", SummaryItems(analysis), out);
  WriteItems("Roofline", RooflineItems(analysis), out);
  WriteItems("Assumptions", AssumptionItems(analysis), out);
  const std::vector<std::string> warnings = WarningLines(analysis);
  if (!warnings.empty()) {
    fmt::print(out, "\n## Warnings\n\n");
    for (const std::string& w : warnings) {
      fmt::print(out, "- {}\n", EscapeControl(w));
    }
  }
}

}  // namespace ridgeline::engine::report
