#include "importers/profile/trace_fields.h"

#include <cmath>

#include "fmt/format.h"

namespace ridgeline::importers::profile_internal {
namespace {

const nlohmann::json* Find(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(std::string(key));
  return it == object.end() ? nullptr : &*it;
}

absl::Status FieldError(const EventRef& ref, std::string_view key,
                        std::string_view parent, std::string_view problem,
                        std::string_view what) {
  std::string field =
      parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
  return absl::InvalidArgumentError(
      fmt::format("{}: field \"{}\" {} (expected {})", Describe(ref), field,
                  problem, what));
}

}  // namespace

std::string Describe(const EventRef& ref) {
  std::string where =
      ref.array.empty()
          ? fmt::format("{}: event {}", ref.origin, ref.index)
          : fmt::format("{}: {}[{}]", ref.origin, ref.array, ref.index);
  if (ref.event != nullptr) {
    if (std::optional<std::string> name = OptionalString(*ref.event, "name")) {
      where += fmt::format(" (\"{}\")", *name);
    }
  }
  return where;
}

std::optional<std::string> OptionalString(const nlohmann::json& object,
                                          std::string_view key) {
  const nlohmann::json* value = Find(object, key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

absl::StatusOr<std::string> RequireString(const EventRef& ref,
                                          const nlohmann::json& object,
                                          std::string_view key,
                                          std::string_view what,
                                          std::string_view parent) {
  const nlohmann::json* value = Find(object, key);
  if (value == nullptr) return FieldError(ref, key, parent, "is missing", what);
  if (!value->is_string())
    return FieldError(ref, key, parent, "is not a string", what);
  return value->get<std::string>();
}

absl::StatusOr<double> RequireNumber(const EventRef& ref,
                                     const nlohmann::json& object,
                                     std::string_view key,
                                     std::string_view what,
                                     std::string_view parent) {
  const nlohmann::json* value = Find(object, key);
  if (value == nullptr) return FieldError(ref, key, parent, "is missing", what);
  if (!value->is_number())
    return FieldError(ref, key, parent, "is not a number", what);
  double number = value->get<double>();
  if (!std::isfinite(number)) {
    return FieldError(ref, key, parent, "is not finite", what);
  }
  return number;
}

absl::StatusOr<double> RequireNonNegative(const EventRef& ref,
                                          const nlohmann::json& object,
                                          std::string_view key,
                                          std::string_view what,
                                          std::string_view parent) {
  absl::StatusOr<double> number = RequireNumber(ref, object, key, what, parent);
  if (!number.ok()) return number.status();
  if (*number < 0) {
    return FieldError(ref, key, parent,
                      fmt::format("is negative ({})", *number), what);
  }
  return number;
}

absl::StatusOr<const nlohmann::json*> RequireObject(
    const EventRef& ref, const nlohmann::json& object, std::string_view key,
    std::string_view what, std::string_view parent) {
  const nlohmann::json* value = Find(object, key);
  if (value == nullptr) return FieldError(ref, key, parent, "is missing", what);
  if (!value->is_object()) {
    return FieldError(ref, key, parent, "is not a JSON object", what);
  }
  return value;
}

}  // namespace ridgeline::importers::profile_internal
