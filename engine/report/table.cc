// The default human-readable report (--format table).
#include <algorithm>
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

void WriteItems(std::string_view title, const Items& items, size_t max_width,
                std::ostream& out) {
  fmt::print(out, "\n{}\n{}", title,
             RenderItems(items, "  ", /*min_width=*/0, max_width));
}

}  // namespace

void WriteTable(const Analysis& analysis, const ReportOptions& options,
                std::ostream& out) {
  const Summary& s = analysis.summary;
  fmt::print(out, "{} on {} ({}), batch {}, peak {} {}\n\n",
             EscapeControl(analysis.model),
             EscapeControl(analysis.hardware.name),
             EscapeControl(analysis.hardware.key), analysis.batch,
             analysis.assumptions.peak_precision,
             FormatSi(analysis.assumptions.peak_flops_per_s, "FLOP/s"));
  if (options.all_layers) {
    fmt::print(out, "All {} layers in topological order\n",
               analysis.layers.size());
  } else {
    fmt::print(out,
               "Layers by latency (top {} of {} timed; {} zero-latency views "
               "grouped; --all-layers lists every layer)\n",
               std::min<int64_t>(options.top, s.layers), s.layers,
               s.view_layers);
  }
  TextTable layers = BuildLayerTable(analysis, options);
  layers.max_width = options.width;
  fmt::print(out, "{}", RenderText(layers));
  WriteItems("Summary", SummaryItems(analysis), options.width, out);
  WriteItems("Roofline", RooflineItems(analysis), options.width, out);
  WriteItems("Assumptions", AssumptionItems(analysis), options.width, out);
  const std::vector<std::string> warnings = WarningLines(analysis);
  if (!warnings.empty()) {
    fmt::print(out, "\nWarnings\n");
    for (const std::string& w : warnings) {
      fmt::print(out, "  {}\n", EscapeControl(w));
    }
  }
}

}  // namespace ridgeline::engine::report
