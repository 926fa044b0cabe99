// Field access for Chrome-trace events with errors that name the file, the
// event and the field (internal to importers/profile).
#ifndef RIDGELINE_IMPORTERS_PROFILE_TRACE_FIELDS_H_
#define RIDGELINE_IMPORTERS_PROFILE_TRACE_FIELDS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace ridgeline::importers::profile_internal {

// Where an event sits, for error messages: "FILE: event 12 (\"conv1\")".
struct EventRef {
  std::string_view origin;  // file name
  std::string_view array;   // "" for a top-level array, else e.g. "traceEvents"
  size_t index = 0;
  const nlohmann::json* event = nullptr;
};

std::string Describe(const EventRef& ref);

// The string field `key` of the event, or nullopt if absent or not a string.
std::optional<std::string> OptionalString(const nlohmann::json& object,
                                          std::string_view key);

// Required fields: an InvalidArgument error names the file, the event, the
// field and what was expected when the field is missing or of another type.
// `what` describes the expected value, e.g. "a duration in microseconds";
// `parent` names the object holding the field when it is nested ("args"), so
// that the message says "args.op_name".
absl::StatusOr<std::string> RequireString(const EventRef& ref,
                                          const nlohmann::json& object,
                                          std::string_view key,
                                          std::string_view what,
                                          std::string_view parent = "");
// A finite number >= 0.
absl::StatusOr<double> RequireNonNegative(const EventRef& ref,
                                          const nlohmann::json& object,
                                          std::string_view key,
                                          std::string_view what,
                                          std::string_view parent = "");
// A finite number (any sign).
absl::StatusOr<double> RequireNumber(const EventRef& ref,
                                     const nlohmann::json& object,
                                     std::string_view key,
                                     std::string_view what,
                                     std::string_view parent = "");
absl::StatusOr<const nlohmann::json*> RequireObject(
    const EventRef& ref, const nlohmann::json& object, std::string_view key,
    std::string_view what, std::string_view parent = "");

// Microseconds (the Chrome trace unit of "ts" and "dur") to seconds.
inline constexpr double kSecondsPerMicrosecond = 1e-6;

}  // namespace ridgeline::importers::profile_internal

#endif  // RIDGELINE_IMPORTERS_PROFILE_TRACE_FIELDS_H_
