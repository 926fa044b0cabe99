#include "engine/json_fields.h"

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "fmt/format.h"

namespace ridgeline::engine {

absl::Status FieldError(std::string_view origin, std::string_view field,
                        std::string_view problem) {
  return absl::InvalidArgumentError(
      fmt::format("{}: field '{}': {}", origin, field, problem));
}

absl::StatusOr<nlohmann::json> ParseJsonObject(std::string_view text,
                                               std::string_view origin,
                                               std::string_view what) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    return absl::InvalidArgumentError(
        fmt::format("{}: not valid JSON (at byte {})", origin, e.byte));
  }
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {} must be a JSON object", origin, what));
  }
  return j;
}

absl::StatusOr<std::string> ReadDataFile(const std::string& path,
                                         std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(fmt::format("{}: cannot open {}", path, what));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(fmt::format("{}: read error", path));
  return text.str();
}

absl::StatusOr<int64_t> WholeNumberField(double x, int64_t min, int64_t max,
                                         std::string_view origin,
                                         std::string_view field,
                                         std::string_view what) {
  if (!(x >= static_cast<double>(min) && x <= static_cast<double>(max)) ||
      x != std::floor(x)) {
    return FieldError(
        origin, field,
        fmt::format("must be a whole number of {} >= {}{}", what, min,
                    x > static_cast<double>(max)
                        ? fmt::format(" and <= {}", max)
                        : ""));
  }
  return static_cast<int64_t>(x);
}

std::string JsonForError(const nlohmann::json& v) {
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

absl::StatusOr<double> JsonNumber(const nlohmann::json& v,
                                  std::string_view origin,
                                  std::string_view field) {
  if (!v.is_number()) {
    return FieldError(
        origin, field,
        fmt::format("must be a number (got {})", JsonForError(v)));
  }
  return v.get<double>();
}

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace ridgeline::engine
