// Generic sections of the HTML report that other analyses (fusion,
// quantization, whole-model comparison, serving) fill without the report
// knowing their types. Plain data; every time is in seconds and every size
// in bytes; text is plain (the report escapes it).
//
//   report::BeforeAfterChart chart{.title = "Fusion (epilogue)",
//                                  .before_label = "unfused",
//                                  .after_label = "fused"};
//   chart.bars.push_back({.label = "conv1+bn1+relu", .before_s = 3.1e-5,
//                         .after_s = 1.2e-5});
//   html_input.before_after.push_back(chart);
#ifndef RIDGELINE_ENGINE_REPORT_HTML_SECTIONS_H_
#define RIDGELINE_ENGINE_REPORT_HTML_SECTIONS_H_

#include <string>
#include <vector>

namespace ridgeline::engine::report {

// One item measured before and after a change (a fusion group, a layer
// re-priced by quantization, or a whole-model total).
struct BeforeAfterBar {
  std::string label;
  double before_s = 0;  // latency before, seconds
  double after_s = 0;   // latency after, seconds
};

// A chart of before/after bars, drawn in the given order, each with its
// saving.
struct BeforeAfterChart {
  std::string title;                    // section heading
  std::string before_label = "before";  // legend of the "before" bars
  std::string after_label = "after";    // legend of the "after" bars
  std::vector<BeforeAfterBar> bars;
  std::string note;  // optional text under the chart
};

// A table of pre-formatted cells, e.g. the whole-model comparison (one row
// per configuration) or the what-if table. Every row should have
// columns.size() cells.
struct ComparisonTable {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::string note;
};

// The unit of a chart's values: seconds (FormatSeconds) or bytes
// (FormatSi(v, "B"), decimal prefixes).
enum class ChartUnit { kSeconds, kBytes };

struct StackSegment {
  std::string label;  // e.g. "Conv" or "memory-bound"
  double value = 0;   // in the chart's ChartUnit (seconds by default)
  std::string color;  // CSS colour
};

struct StackedBar {
  std::string label;  // e.g. the device name
  std::vector<StackSegment> segments;
};

// Horizontal stacked bars on one scale, e.g. the serving memory stack
// (weights, KV cache, activations, reserve) beside the device's capacity.
struct StackedBarChart {
  std::string title;
  ChartUnit unit = ChartUnit::kSeconds;
  std::vector<StackedBar> bars;
  std::string note;
};

// A line through points on linear axes, a time on y, e.g. the time per
// output token against the context length.
struct LinePoint {
  double x = 0;    // in the unit x_label states
  double y_s = 0;  // seconds
};
struct LineChart {
  std::string title;
  std::string x_label;  // axis title with its unit, e.g. "Context (tokens)"
  std::string y_label;  // axis title, e.g. "Time per output token (s)"
  std::vector<LinePoint> points;  // drawn in this order
  std::string note;
};

// A block of key/value lines, e.g. fusion settings.
struct KeyValue {
  std::string key;
  std::string value;
};
struct KeyValueSection {
  std::string title;
  std::vector<KeyValue> rows;
  std::string note;
};

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_HTML_SECTIONS_H_
