// Helpers shared by the JSON data-file parsers (hardware entries, runtime
// profiles): parse an object, name the file and field in every error.
#ifndef RIDGELINE_ENGINE_JSON_FIELDS_H_
#define RIDGELINE_ENGINE_JSON_FIELDS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine {

// "<origin>: field '<field>': <problem>" as InvalidArgument.
absl::Status FieldError(std::string_view origin, std::string_view field,
                        std::string_view problem);

// Parses `text` as one JSON object; `what` names it in errors ("a hardware
// entry").
absl::StatusOr<nlohmann::json> ParseJsonObject(std::string_view text,
                                               std::string_view origin,
                                               std::string_view what);

// The whole file at `path`; `what` names it in errors ("hardware file").
absl::StatusOr<std::string> ReadDataFile(const std::string& path,
                                         std::string_view what);

// `x` as a whole number in [min, max]; else FieldError "must be a whole
// number of <what> >= <min>" (and "<= <max>" when above it).
absl::StatusOr<int64_t> WholeNumberField(double x, int64_t min, int64_t max,
                                         std::string_view origin,
                                         std::string_view field,
                                         std::string_view what);

// `v` as a number; else FieldError "must be a number (got <v>)" with the
// value as JSON (invalid UTF-8 replaced). Callers check its range.
absl::StatusOr<double> JsonNumber(const nlohmann::json& v,
                                  std::string_view origin,
                                  std::string_view field);

// `v` as JSON text for an error message (invalid UTF-8 replaced).
std::string JsonForError(const nlohmann::json& v);

// ASCII lower case.
std::string LowerAscii(std::string_view s);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_JSON_FIELDS_H_
