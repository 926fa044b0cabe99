// Reads a measured per-node profile written by a runtime, detecting the
// format: ONNX Runtime's profile (onnxruntime_trace.h) or a PyTorch profiler
// Chrome trace (pytorch_trace.h).
//
//   absl::StatusOr<graph::MeasuredProfile> p =
//       importers::ReadProfile("onnxruntime_profile_2024.json");
//   if (!p.ok()) { ... p.status() names the file and the field ... }
#ifndef RIDGELINE_IMPORTERS_PROFILE_PROFILE_READER_H_
#define RIDGELINE_IMPORTERS_PROFILE_PROFILE_READER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "graph/measured_profile.h"
#include "importers/profile/profile_options.h"

namespace ridgeline::importers {

// Reads and parses the profile at `path`. Errors (NotFound, InvalidArgument)
// name the file and, for malformed events, the event and the field.
absl::StatusOr<graph::MeasuredProfile> ReadProfile(
    const std::string& path, const ProfileOptions& options = {});

// Parses profile JSON held in memory; `origin` names it in messages.
absl::StatusOr<graph::MeasuredProfile> ParseProfileJson(
    std::string_view json, std::string_view origin,
    const ProfileOptions& options = {});

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_PROFILE_PROFILE_READER_H_
