// The self-contained HTML report: summary and assumptions, the roofline plot
// (inline SVG), the latency breakdown by op type and by bound, the top
// layers, the per-layer table (sortable by clicking a column header, with a
// filter box; views collapsed into one row, skipped layers into another)
// and optional extra sections
// (whole-model comparison, serving's time per output token and memory stack,
// fusion and quantization before/after bars). Inline
// CSS, JS and SVG only: no network, no external fonts. The page layout lives
// in engine/report/report_template.html, embedded at build time.
//
//   report::HtmlReportInput in;
//   in.primary = &analysis;
//   in.other_hardware = {&on_a100};          // optional, same model
//   std::string html = report::RenderHtmlReport(in);
//
// Test hook: loading the page with a URL fragment such as
// "#selftest=sort:latency_s;sort:name;filter:conv" performs those steps on
// load (a sort clicks the column's header, exactly like a user) and writes a
// JSON result into <pre id="selftest-result">: {"points": <circles in the
// roofline>, "points_by_device": {...}, "rows": <layer rows>, "order":
// [<names of the visible layer rows, top to bottom>], "steps": [...]}.
// Column keys: idx name op shape flops bytes intensity t_compute_s
// t_memory_s latency_s share bound, and latency_s@<device key> per other
// device.
#ifndef RIDGELINE_ENGINE_REPORT_HTML_H_
#define RIDGELINE_ENGINE_REPORT_HTML_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/analysis.h"
#include "engine/report/html_sections.h"

namespace ridgeline::engine::report {

struct HtmlReportInput {
  // The analysis the page is about (required; a page saying so without it).
  const Analysis* primary = nullptr;
  // The same model analysed on other devices (--hw a100,h100): more roofs, a
  // device comparison table, a latency column per device.
  std::vector<const Analysis*> other_hardware;
  // Page title; "" = "<model> on <device>".
  std::string title;
  // Shown in the footer, e.g. the command line that produced the report.
  std::string generator;
  // Number of rows in the "top layers" table.
  int top_layers = 10;
  // Extra sections, rendered in this order after the top layers.
  std::vector<ComparisonTable> comparisons;    // e.g. whole-model comparison
  std::vector<LineChart> line_charts;          // e.g. TPOT vs context
  std::vector<StackedBarChart> stacked_bars;   // e.g. the memory stack
  std::vector<BeforeAfterChart> before_after;  // fusion, quantization
  std::vector<KeyValueSection> sections;       // anything else
};

// The whole page (UTF-8). Every model-provided string is escaped.
std::string RenderHtmlReport(const HtmlReportInput& input);

// Replaces each "{{KEY}}" of `template_text` by values[KEY] in one pass
// (replacement text is never scanned again); unknown keys are left as is.
// Exposed for tests.
std::string FillTemplate(
    std::string_view template_text,
    const std::vector<std::pair<std::string, std::string>>& values);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_HTML_H_
