#include "engine/report/text_table.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/report/text.h"
#include "fmt/format.h"

namespace ridgeline::engine::report {
namespace {

bool RightAligned(const TextTable& t, size_t column) {
  return column < t.right_align.size() && t.right_align[column];
}

// Names, ops, members: left-aligned columns not marked `keep`.
bool Elidable(const TextTable& t, size_t column) {
  return !RightAligned(t, column) &&
         !(column < t.keep.size() && t.keep[column]);
}

// The width of a line of columns `widths` wide, two spaces apart.
size_t LineWidth(const std::vector<size_t>& widths, size_t indent) {
  size_t sum = indent + (widths.empty() ? 0 : 2 * (widths.size() - 1));
  for (size_t w : widths) sum += w;
  return sum;
}

std::string TrimRight(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string Pad(const std::string& cell, size_t width, bool right) {
  const size_t have = DisplayWidth(cell);
  if (have >= width) return cell;
  const std::string fill(width - have, ' ');
  return right ? fill + cell : cell + fill;
}

std::string JoinLine(const std::vector<std::string>& cells,
                     const std::vector<size_t>& widths, const TextTable& t,
                     std::string_view indent) {
  std::string line(indent);
  for (size_t c = 0; c < widths.size(); ++c) {
    const std::string cell = c < cells.size() ? cells[c] : "";
    if (c > 0) line += "  ";
    line += Pad(ElideMiddle(cell, widths[c]), widths[c], RightAligned(t, c));
  }
  return TrimRight(std::move(line)) + "\n";
}

std::vector<std::string> Escaped(const std::vector<std::string>& cells) {
  std::vector<std::string> out;
  out.reserve(cells.size());
  for (const std::string& cell : cells) out.push_back(EscapeControl(cell));
  return out;
}

// Shrinks the widest elidable columns until a line fits t.max_width or
// every one is at its floor.
void FitWidths(const TextTable& t, const std::vector<std::string>& headers,
               size_t indent, std::vector<size_t>* widths) {
  auto total = [&] { return LineWidth(*widths, indent); };
  auto floor = [&](size_t c) {
    return std::max(kMinElidedColumn, DisplayWidth(headers[c]));
  };
  while (total() > t.max_width) {
    const size_t none = widths->size();
    size_t widest = none;
    size_t second = 0;
    for (size_t c = 0; c < widths->size(); ++c) {
      if (!Elidable(t, c) || (*widths)[c] <= floor(c)) continue;
      if (widest == none || (*widths)[c] > (*widths)[widest]) {
        if (widest != none) second = std::max(second, (*widths)[widest]);
        widest = c;
      } else {
        second = std::max(second, (*widths)[c]);
      }
    }
    if (widest == none) return;  // nothing left to shrink
    const size_t w = (*widths)[widest];
    const size_t excess = total() - t.max_width;
    size_t target =
        std::max({floor(widest), second, w > excess ? w - excess : size_t{0}});
    if (target >= w) target = w - 1;
    (*widths)[widest] = target;
  }
}

}  // namespace

std::string OverflowNote(size_t max_width) {
  return fmt::format("(wider than {} columns: numbers are never cut)",
                     max_width);
}

std::string RenderText(const TextTable& table, std::string_view indent) {
  const std::vector<std::string> headers = Escaped(table.headers);
  std::vector<std::vector<std::string>> rows;
  rows.reserve(table.rows.size());
  for (const auto& row : table.rows) rows.push_back(Escaped(row));
  std::vector<size_t> widths(headers.size(), 0);
  for (size_t c = 0; c < headers.size(); ++c) {
    widths[c] = DisplayWidth(headers[c]);
  }
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], DisplayWidth(row[c]));
    }
  }
  if (table.max_width > 0) {
    FitWidths(table, headers, DisplayWidth(indent), &widths);
  }
  std::string out = JoinLine(headers, widths, table, indent);
  std::vector<std::string> dashes;
  for (size_t w : widths) dashes.push_back(std::string(w, '-'));
  out += JoinLine(dashes, widths, table, indent);
  for (const auto& row : rows) out += JoinLine(row, widths, table, indent);
  if (table.max_width > 0 &&
      LineWidth(widths, DisplayWidth(indent)) > table.max_width) {
    out += fmt::format("{}{}\n", indent, OverflowNote(table.max_width));
  }
  return out;
}

namespace {

// `text` cut at spaces into lines of at most `room` columns (a longer word
// whole on its own line); runs of spaces at a cut are dropped.
std::vector<std::string> WrapAtSpaces(const std::string& text, size_t room) {
  std::vector<std::string> lines;
  std::string line;
  size_t line_width = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    const size_t w = DisplayWidth(word);
    if (!line.empty() && line_width + 1 + w > room) {
      lines.push_back(std::move(line));
      line.clear();
      line_width = 0;
    }
    if (!word.empty()) {
      if (!line.empty()) {
        line += ' ';
        ++line_width;
      }
      line += word;
      line_width += w;
    }
    start = end + 1;
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

}  // namespace

std::string RenderItems(const Items& items, std::string_view indent,
                        size_t min_width, size_t max_width) {
  size_t width = min_width;
  for (const auto& [label, value] : items) {
    width = std::max(width, DisplayWidth(EscapeControl(label)));
  }
  const size_t value_column = DisplayWidth(indent) + width + 2;
  const size_t room =
      max_width > value_column
          ? std::max(kMinItemValueWidth, max_width - value_column)
          : kMinItemValueWidth;
  std::string out;
  for (const auto& [label, value] : items) {
    const std::string shown = EscapeControl(value);
    const std::vector<std::string> lines =
        max_width > 0 && value_column + DisplayWidth(shown) > max_width
            ? WrapAtSpaces(shown, room)
            : std::vector<std::string>{shown};
    for (size_t i = 0; i < lines.size(); ++i) {
      out += TrimRight(
          i == 0
              ? fmt::format("{}{}  {}", indent,
                            Pad(EscapeControl(label), width, false), lines[i])
              : fmt::format("{}{}", std::string(value_column, ' '), lines[i]));
      out += '\n';
    }
  }
  return out;
}

std::string RenderMarkdown(const TextTable& table) {
  auto escape = [](const std::string& s) {
    std::string out;
    for (char ch : EscapeControl(s)) {
      if (ch == '|') out += '\\';
      out += ch;
    }
    return out;
  };
  std::string out = "|";
  for (const auto& h : table.headers) out += fmt::format(" {} |", escape(h));
  out += "\n|";
  for (size_t c = 0; c < table.headers.size(); ++c) {
    out += RightAligned(table, c) ? "---:|" : "---|";
  }
  out += "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (size_t c = 0; c < table.headers.size(); ++c) {
      out += fmt::format(" {} |", c < row.size() ? escape(row[c]) : "");
    }
    out += "\n";
  }
  return out;
}

std::string CsvField(std::string_view raw) {
  const std::string field = EscapeControl(raw);
  if (field.find_first_of(",\"") == std::string::npos) return field;
  std::string out = "\"";
  for (char ch : field) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string RenderCsv(const TextTable& table) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += ',';
      out += CsvField(cells[c]);
    }
    out += "\n";
  };
  line(table.headers);
  for (const auto& row : table.rows) line(row);
  return out;
}

}  // namespace ridgeline::engine::report
