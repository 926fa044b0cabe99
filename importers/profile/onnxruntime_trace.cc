#include "importers/profile/onnxruntime_trace.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "importers/profile/run_accumulator.h"
#include "importers/profile/trace_fields.h"

namespace ridgeline::importers {
namespace {

using profile_internal::EventRef;
using profile_internal::Interval;

constexpr std::string_view kNodeCategory = "Node";
constexpr std::string_view kSessionCategory = "Session";
constexpr std::string_view kModelRunEvent = "model_run";
constexpr std::string_view kDurWhat = "a duration in microseconds";
constexpr std::string_view kTsWhat = "a start time in microseconds";

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

// args.node_index: a string of digits in ORT's profiles (or a number).
std::optional<std::string> NodeIndex(const nlohmann::json& args) {
  auto it = args.find("node_index");
  if (it == args.end()) return std::nullopt;
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  if (!it->is_string()) return std::nullopt;
  std::string s = it->get<std::string>();
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return s;
}

struct KernelEvent {
  std::string name;
  std::string op_type;
  std::string provider;
  double ts_us = 0;
  double dur_us = 0;
};

}  // namespace

bool LooksLikeOnnxRuntimeTrace(const nlohmann::json& root) {
  if (!root.is_array()) return false;
  for (const nlohmann::json& event : root) {
    std::optional<std::string> cat =
        profile_internal::OptionalString(event, "cat");
    if (cat && (*cat == kNodeCategory || *cat == kSessionCategory)) return true;
  }
  return false;
}

absl::StatusOr<graph::MeasuredProfile> ParseOnnxRuntimeTrace(
    const nlohmann::json& root, std::string_view origin,
    const ProfileOptions& options) {
  if (!root.is_array()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: an ONNX Runtime profile is a JSON array of trace events; this "
        "file holds a JSON {}",
        origin, root.type_name()));
  }
  std::vector<KernelEvent> kernels;
  std::vector<Interval> runs;
  int64_t other_node_events = 0;
  int64_t unnamed = 0;
  for (size_t i = 0; i < root.size(); ++i) {
    const nlohmann::json& event = root[i];
    EventRef ref{origin, "", i, &event};
    if (!event.is_object()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: is a JSON {}, not a trace event object",
                      profile_internal::Describe(ref), event.type_name()));
    }
    std::optional<std::string> cat =
        profile_internal::OptionalString(event, "cat");
    if (!cat) continue;  // not an event ridgeline reads
    if (*cat == kSessionCategory) {
      if (profile_internal::OptionalString(event, "name") != kModelRunEvent) {
        continue;
      }
      absl::StatusOr<double> ts =
          profile_internal::RequireNumber(ref, event, "ts", kTsWhat);
      if (!ts.ok()) return ts.status();
      absl::StatusOr<double> dur =
          profile_internal::RequireNonNegative(ref, event, "dur", kDurWhat);
      if (!dur.ok()) return dur.status();
      runs.push_back({*ts, *ts + *dur});
      continue;
    }
    if (*cat != kNodeCategory) continue;
    absl::StatusOr<std::string> name = profile_internal::RequireString(
        ref, event, "name", "the node name followed by \"_kernel_time\"");
    if (!name.ok()) return name.status();
    if (!EndsWith(*name, kOrtKernelTimeSuffix)) {
      ++other_node_events;
      continue;
    }
    KernelEvent kernel;
    kernel.name = name->substr(0, name->size() - kOrtKernelTimeSuffix.size());
    absl::StatusOr<double> dur =
        profile_internal::RequireNonNegative(ref, event, "dur", kDurWhat);
    if (!dur.ok()) return dur.status();
    kernel.dur_us = *dur;
    absl::StatusOr<double> ts =
        profile_internal::RequireNumber(ref, event, "ts", kTsWhat);
    if (!ts.ok()) return ts.status();
    kernel.ts_us = *ts;
    absl::StatusOr<const nlohmann::json*> args =
        profile_internal::RequireObject(ref, event, "args",
                                        "an object with op_name and provider");
    if (!args.ok()) return args.status();
    absl::StatusOr<std::string> op_type = profile_internal::RequireString(
        ref, **args, "op_name", "the node's op type, e.g. \"Conv\"", "args");
    if (!op_type.ok()) return op_type.status();
    kernel.op_type = *op_type;
    kernel.provider =
        profile_internal::OptionalString(**args, "provider").value_or("");
    if (kernel.name.empty()) {
      // An unnamed node: name it "<op>_<node index>", the name ridgeline's
      // importer gives unnamed nodes (their position in the graph).
      std::optional<std::string> index = NodeIndex(**args);
      kernel.name = index ? fmt::format("{}_{}", kernel.op_type, *index)
                          : fmt::format("{}_unnamed", kernel.op_type);
      ++unnamed;
    }
    kernels.push_back(std::move(kernel));
  }
  if (kernels.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: no ONNX Runtime node events (cat \"Node\" with a name ending in "
        "\"{}\"); is this a profile written with enable_profiling?",
        origin, kOrtKernelTimeSuffix));
  }

  graph::MeasuredProfile profile;
  profile.path = std::string(origin);
  if (unnamed > 0) {
    profile.warnings.push_back(
        fmt::format("{}: {} kernel event(s) of unnamed nodes were named "
                    "\"<op>_<args.node_index>\"",
                    origin, unnamed));
  }
  profile.source_format = graph::kOnnxRuntimeProfileFormat;
  profile_internal::RunAccumulator acc;
  int64_t runs_in_trace = 0;
  if (!runs.empty()) {
    std::sort(runs.begin(), runs.end(),
              [](const Interval& a, const Interval& b) {
                return a.begin_us < b.begin_us;
              });
    int64_t outside = 0;
    for (const KernelEvent& k : kernels) {
      std::optional<int64_t> run =
          profile_internal::RunContaining(runs, k.ts_us);
      if (!run) {
        ++outside;
        continue;
      }
      acc.Add(k.name, k.op_type, k.provider, *run, k.dur_us);
    }
    if (outside > 0) {
      profile.warnings.push_back(fmt::format(
          "{}: {} node event(s) lie outside every \"model_run\" event and "
          "were ignored",
          origin, outside));
    }
    runs_in_trace = static_cast<int64_t>(runs.size());
  } else {
    absl::flat_hash_map<std::string, int64_t> seen;
    for (const KernelEvent& k : kernels) {
      int64_t run = seen[k.name]++;
      acc.Add(k.name, k.op_type, k.provider, run, k.dur_us);
    }
    runs_in_trace = acc.RunsSeen();
    profile.warnings.push_back(fmt::format(
        "{}: no \"model_run\" events; assuming {} run(s), the most times any "
        "node appears",
        origin, runs_in_trace));
  }
  if (other_node_events > 0 && runs.empty()) {
    // Fence markers are expected in older versions; only worth a note when
    // the trace is otherwise unusual.
    profile.warnings.push_back(fmt::format(
        "{}: {} \"Node\" event(s) without the \"{}\" suffix were ignored",
        origin, other_node_events, kOrtKernelTimeSuffix));
  }
  absl::Status finished = acc.Finish(runs_in_trace, options, origin, &profile);
  if (!finished.ok()) return finished;
  if (!runs.empty()) {
    double total_us = 0;
    for (size_t r = static_cast<size_t>(options.skip_runs); r < runs.size();
         ++r) {
      total_us += runs[r].end_us - runs[r].begin_us;
    }
    profile.run_seconds = total_us * profile_internal::kSecondsPerMicrosecond /
                          static_cast<double>(profile.runs_used);
  }
  return profile;
}

}  // namespace ridgeline::importers
