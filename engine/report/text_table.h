// A small table of strings rendered as aligned text, Markdown or CSV. Every
// renderer escapes control characters in cells (report/text.h): cells hold
// untrusted model text.
#ifndef RIDGELINE_ENGINE_REPORT_TEXT_TABLE_H_
#define RIDGELINE_ENGINE_REPORT_TEXT_TABLE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ridgeline::engine::report {

// The widest table line when the output is not a terminal (the CLI passes
// the terminal's width when it is one).
inline constexpr size_t kMaxTableWidth = 160;

struct TextTable {
  std::vector<std::string> headers;
  std::vector<bool> right_align;  // per column; missing entries = left
  std::vector<std::vector<std::string>> rows;
  // RenderText: the widest line, in columns (0: no limit). Left-aligned
  // columns wider than needed shrink (never below 12 or their header), and
  // their cells are elided in the middle.
  size_t max_width = 0;
};

// Columns padded with spaces, two spaces apart, a dashed line under the
// header. Each line ends with '\n'; trailing spaces are trimmed.
std::string RenderText(const TextTable& table, std::string_view indent = "");

// Labelled lines, {label, value with its unit}: the report's summary,
// roofline and assumptions, the serving report.
using Items = std::vector<std::pair<std::string, std::string>>;

// One line per item: indent, the label padded to the widest label (at least
// `min_width`), two spaces, the value; control characters escaped.
std::string RenderItems(const Items& items, std::string_view indent,
                        size_t min_width = 0);

// A GitHub-flavoured Markdown table ('|' in cells escaped).
std::string RenderMarkdown(const TextTable& table);

// CSV with RFC 4180 quoting and "\n" line ends: fields with "," or "\""
// are quoted (line breaks are escaped to "\\n" like every control).
std::string RenderCsv(const TextTable& table);
std::string CsvField(std::string_view field);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_TEXT_TABLE_H_
