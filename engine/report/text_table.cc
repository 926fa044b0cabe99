#include "engine/report/text_table.h"

#include <algorithm>

#include "fmt/format.h"

namespace ridgeline::engine::report {
namespace {

bool RightAligned(const TextTable& t, size_t column) {
  return column < t.right_align.size() && t.right_align[column];
}

std::string TrimRight(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string JoinLine(const std::vector<std::string>& cells,
                     const std::vector<size_t>& widths, const TextTable& t,
                     std::string_view indent) {
  std::string line(indent);
  for (size_t c = 0; c < widths.size(); ++c) {
    const std::string cell = c < cells.size() ? cells[c] : "";
    if (c > 0) line += "  ";
    line += RightAligned(t, c) ? fmt::format("{:>{}}", cell, widths[c])
                               : fmt::format("{:<{}}", cell, widths[c]);
  }
  return TrimRight(std::move(line)) + "\n";
}

}  // namespace

std::string RenderText(const TextTable& table, std::string_view indent) {
  std::vector<size_t> widths(table.headers.size(), 0);
  for (size_t c = 0; c < table.headers.size(); ++c) {
    widths[c] = table.headers[c].size();
  }
  for (const auto& row : table.rows) {
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  std::string out = JoinLine(table.headers, widths, table, indent);
  std::vector<std::string> dashes;
  for (size_t w : widths) dashes.push_back(std::string(w, '-'));
  out += JoinLine(dashes, widths, table, indent);
  for (const auto& row : table.rows)
    out += JoinLine(row, widths, table, indent);
  return out;
}

std::string RenderMarkdown(const TextTable& table) {
  auto escape = [](const std::string& s) {
    std::string out;
    for (char ch : s) {
      if (ch == '|') out += '\\';
      out += ch == '\n' ? ' ' : ch;
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

std::string CsvField(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(field);
  }
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
