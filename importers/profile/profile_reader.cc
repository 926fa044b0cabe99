#include "importers/profile/profile_reader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "importers/profile/onnxruntime_trace.h"
#include "importers/profile/pytorch_trace.h"
#include "nlohmann/json.hpp"

namespace ridgeline::importers {

absl::StatusOr<graph::MeasuredProfile> ParseProfileJson(
    std::string_view json, std::string_view origin,
    const ProfileOptions& options) {
  // nlohmann reports the position of a syntax error only through its
  // exception; it is caught here and never leaves this function.
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(
        fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  if (LooksLikeOnnxRuntimeTrace(root)) {
    return ParseOnnxRuntimeTrace(root, origin, options);
  }
  if (LooksLikePyTorchTrace(root)) {
    return ParsePyTorchTrace(root, origin, options);
  }
  return absl::InvalidArgumentError(fmt::format(
      "{}: not a recognized profile: expected an ONNX Runtime profile (a JSON "
      "array of events with \"cat\": \"Node\") or a PyTorch profiler trace "
      "(an object with \"traceEvents\", or an array of \"aten::\" events); "
      "found a JSON {}{}",
      origin, root.type_name(),
      root.is_array() || root.is_object()
          ? fmt::format(" with {} entries", root.size())
          : ""));
}

absl::StatusOr<graph::MeasuredProfile> ReadProfile(
    const std::string& path, const ProfileOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return absl::NotFoundError(fmt::format("{}: no such file", path));
  }
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        fmt::format("{}: is a directory, not a profile", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::PermissionDeniedError(
        fmt::format("{}: cannot be opened for reading", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: is empty, not a profile", path));
  }
  return ParseProfileJson(text.str(), path, options);
}

}  // namespace ridgeline::importers
