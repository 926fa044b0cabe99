// Horizontal bar charts as SVG (written with SvgWriter): stacked bars (the
// latency breakdown, the serving memory stack) and before/after pairs
// (fusion, quantization).
#ifndef RIDGELINE_ENGINE_REPORT_BARS_H_
#define RIDGELINE_ENGINE_REPORT_BARS_H_

#include <string>
#include <vector>

#include "engine/report/html_sections.h"

namespace ridgeline::engine::report {

// One horizontal bar per entry of `bars`, its segments stacked left to right
// as <rect class="seg"> with a <title>; bar lengths share one scale, so bars
// of different totals compare. Below them a legend of the segment labels
// (with value and share of the first bar). Values are in `unit`: the data
// attributes are data-value-s / data-total-s (seconds) or data-value-bytes /
// data-total-bytes (bytes).
std::string RenderStackedBarsSvg(const std::vector<StackedBar>& bars,
                                 double width,
                                 ChartUnit unit = ChartUnit::kSeconds);

// Each bar of `chart` as a pair (before above after) on one time scale, with
// both times and the saving written next to them.
std::string RenderBeforeAfterSvg(const BeforeAfterChart& chart, double width);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_BARS_H_
