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
  // Per column: never elided, although left-aligned (shapes, bounds:
  // values, not names). Missing entries = false.
  std::vector<bool> keep;
  // RenderText: the widest line, in columns (0: no limit). The elidable
  // columns (left-aligned and not `keep`: names, ops, fusion members)
  // shrink, widest first, down to kMinElidedColumn (or their header, when
  // wider) and their cells are elided in the middle. Numbers are never cut:
  // when the other columns alone are wider than max_width, the lines stay
  // wider and one note under the table says so (OverflowNote).
  size_t max_width = 0;
};

// The narrowest an elided column gets (or its header, when wider).
inline constexpr size_t kMinElidedColumn = 12;

// The line RenderText prints under a table that cannot fit `max_width`
// columns even with every elidable column at its narrowest.
std::string OverflowNote(size_t max_width);

// Columns padded with spaces, two spaces apart, a dashed line under the
// header (then OverflowNote when the table cannot fit max_width). Each line
// ends with '\n'; trailing spaces are trimmed.
std::string RenderText(const TextTable& table, std::string_view indent = "");

// Labelled lines, {label, value with its unit}: the report's summary,
// roofline and assumptions, the serving report.
using Items = std::vector<std::pair<std::string, std::string>>;

// One line per item: indent, the label padded to the widest label (at least
// `min_width`), two spaces, the value; control characters escaped. With
// `max_width` > 0, a value that would make its line wider is wrapped at
// spaces onto continuation lines that start in the value column (at least
// kMinItemValueWidth columns of value per line; a word wider than the room
// stays whole on its own line).
inline constexpr size_t kMinItemValueWidth = 40;
std::string RenderItems(const Items& items, std::string_view indent,
                        size_t min_width = 0, size_t max_width = 0);

// A GitHub-flavoured Markdown table ('|' in cells escaped).
std::string RenderMarkdown(const TextTable& table);

// CSV with RFC 4180 quoting and "\n" line ends: fields with "," or "\""
// are quoted (line breaks are escaped to "\\n" like every control).
std::string RenderCsv(const TextTable& table);
std::string CsvField(std::string_view field);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_TEXT_TABLE_H_
