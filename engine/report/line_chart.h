// A line chart as SVG (written with SvgWriter): points on linear axes, a
// time on y (from 0), e.g. the time per output token against the context
// length of `analyze --serve`.
//
//   report::LineChart chart{.title = "Time per output token",
//                           .x_label = "Context (tokens in the KV cache)",
//                           .y_label = "Time per output token (s)"};
//   chart.points.push_back({.x = 512, .y_s = 6.9e-3});
//   std::string svg = report::RenderLineChartSvg(chart, 960);
//
// Each point is a <circle class="pt"> with data-x and data-y-s and a <title>
// shown on hover; the line through them is one <polyline class="line">.
// Tick labels: x as plain numbers, y with FormatSeconds ("5.00 ms").
#ifndef RIDGELINE_ENGINE_REPORT_LINE_CHART_H_
#define RIDGELINE_ENGINE_REPORT_LINE_CHART_H_

#include <string>
#include <vector>

#include "engine/report/html_sections.h"

namespace ridgeline::engine::report {

// The tick values of a linear axis over [lo, hi]: multiples of the step 1,
// 2 or 5 x 10^k that gives at most `max_ticks` ticks inside [lo, hi] (at
// least one step when lo == hi). RenderLineChartSvg's axes.
std::vector<double> LinearTicks(double lo, double hi, int max_ticks);

std::string RenderLineChartSvg(const LineChart& chart, double width);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_LINE_CHART_H_
