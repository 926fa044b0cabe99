// Text and JSON output of a predicted-vs-measured Comparison, for the analyze
// CLI's --measured flag.
//
//   fmt::print("{}", FormatComparison(analysis, comparison, {}));
//   layer_json.update(MeasuredLayerJson(comparison, layer_index));
//   root["measured"] = MeasuredSummaryJson(comparison);
//
// Conventions (stated in every output): times are seconds per run (mean over
// the runs used); ratio = measured / predicted (> 1: slower than predicted);
// % of roof = roofline time without efficiencies or taxes / measured.
#ifndef RIDGELINE_ENGINE_MEASURED_REPORT_H_
#define RIDGELINE_ENGINE_MEASURED_REPORT_H_

#include <string>

#include "engine/analysis.h"
#include "engine/measured.h"
#include "engine/report/text_table.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine {

struct ComparisonFormatOptions {
  int top = 25;             // layer rows (by measured time), rest summed
  int unmatched_rows = 10;  // unmatched measured nodes listed
  // The widest table line; long names are elided in the middle.
  size_t max_width = report::kMaxTableWidth;
};

// The text: summary lines, then tables (report::TextTable) of the layers,
// the ratio per op type, the optimization targets and the unmatched nodes,
// and the warnings.
std::string FormatComparison(const Analysis& analysis,
                             const Comparison& comparison,
                             const ComparisonFormatOptions& options);

// Fields for the JSON object of layer `layer` (an Analysis::layers index):
// {"match": "name"|"renamed"|"order", "measured_s": x, "ratio":
// measured/predicted, "roof_fraction": roof / measured} (and "fused_layers"
// first when the unit fuses several) for the layer that anchors a unit; for
// the other layers of a fused unit {"measured_s": null, "measured_with":
// "<anchor layer name>", "ratio": null}; nulls for unmatched layers. Keys in
// alphabetical order.
nlohmann::ordered_json MeasuredLayerJson(const Comparison& comparison,
                                         int layer);

// The summary object: profile, totals, matched/unmatched counts and times,
// Spearman correlation, ratios per op type and optimization targets (keys
// in alphabetical order).
nlohmann::ordered_json MeasuredSummaryJson(const Comparison& comparison);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_MEASURED_REPORT_H_
