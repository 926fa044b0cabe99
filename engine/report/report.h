// Report writers: one Analysis rendered as a text table, JSON, CSV or
// Markdown. Each format lives in its own file (table.cc, json.cc, csv.cc,
// markdown.cc); later formats (html, svg) join the same way.
//
//   report::ReportOptions opts;  // top 25 layers, views grouped
//   report::WriteReport(analysis, report::Format::kTable, opts, std::cout);
#ifndef RIDGELINE_ENGINE_REPORT_REPORT_H_
#define RIDGELINE_ENGINE_REPORT_REPORT_H_

#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/analysis.h"

namespace ridgeline::engine::report {

enum class Format { kTable, kJson, kCsv, kMarkdown };

// "table", "json", "csv", "md" (also "markdown").
absl::StatusOr<Format> ParseFormat(std::string_view name);
std::string_view FormatName(Format format);
// "table|json|csv|md": the accepted names, for usage text.
inline constexpr std::string_view kFormatNames = "table|json|csv|md";

struct ReportOptions {
  // Table and Markdown: the K slowest layers, then one "other" row.
  int top = 25;
  // Table and Markdown: every layer in topological order (views and skipped
  // layers included), no "other" row and no view grouping.
  bool all_layers = false;
  // Table: the widest line in columns (the terminal's width, or 160 when the
  // output is not a terminal); long names are elided in the middle.
  size_t width = 160;
};

// Layers sorted by latency (top K + "other" + grouped views + the dispatch
// tax), then summary, roofline, assumptions and warnings. Human units.
void WriteTable(const Analysis& analysis, const ReportOptions& options,
                std::ostream& out);
// The same content as Markdown (a table and bullet lists).
void WriteMarkdown(const Analysis& analysis, const ReportOptions& options,
                   std::ostream& out);
// One row per layer (every layer, views included, topological order), SI
// base units; the columns are listed in JSON_SCHEMA.md.
void WriteCsv(const Analysis& analysis, std::ostream& out);
// The JSON document of JSON_SCHEMA.md (see json.h for the object itself).
void WriteJson(const Analysis& analysis, std::ostream& out);

// Dispatches on `format`.
void WriteReport(const Analysis& analysis, Format format,
                 const ReportOptions& options, std::ostream& out);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_REPORT_H_
