#include "engine/report/report.h"

#include "fmt/format.h"

namespace ridgeline::engine::report {

absl::StatusOr<Format> ParseFormat(std::string_view name) {
  if (name == "table") return Format::kTable;
  if (name == "json") return Format::kJson;
  if (name == "csv") return Format::kCsv;
  if (name == "md" || name == "markdown") return Format::kMarkdown;
  return absl::InvalidArgumentError(fmt::format(
      "unknown format '{}' (expected one of {})", name, kFormatNames));
}

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kTable:
      return "table";
    case Format::kJson:
      return "json";
    case Format::kCsv:
      return "csv";
    case Format::kMarkdown:
      return "md";
  }
  return "table";
}

void WriteReport(const Analysis& analysis, Format format,
                 const ReportOptions& options, std::ostream& out) {
  switch (format) {
    case Format::kTable:
      WriteTable(analysis, options, out);
      return;
    case Format::kJson:
      WriteJson(analysis, out);
      return;
    case Format::kCsv:
      WriteCsv(analysis, out);
      return;
    case Format::kMarkdown:
      WriteMarkdown(analysis, options, out);
      return;
  }
}

}  // namespace ridgeline::engine::report
