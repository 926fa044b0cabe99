// Generic sections of the HTML report that other analyses (fusion,
// quantization, whole-model comparison) fill without the report knowing
// their types. Plain data; every time is in seconds; text is plain (the
// report escapes it).
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
