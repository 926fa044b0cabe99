#include "importers/profile/pytorch_trace.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "importers/profile/aten_op_map.h"
#include "importers/profile/run_accumulator.h"
#include "importers/profile/trace_fields.h"

namespace ridgeline::importers {
namespace {

using profile_internal::EventRef;
using profile_internal::Interval;

constexpr std::string_view kTraceEventsKey = "traceEvents";
constexpr std::string_view kStepPrefix = "ProfilerStep#";
constexpr std::string_view kOrphanKernelOp = "kernel";
constexpr std::string_view kDurWhat = "a duration in microseconds";
constexpr std::string_view kTsWhat = "a start time in microseconds";

// Event kinds, in the order that breaks ties between events that start at the
// same time with the same duration (the enclosing kind first).
enum class Kind {
  kStep = 0,
  kAnnotation = 1,
  kOperator = 2,
  kLaunch = 3,
  kKernel = 4
};

struct Event {
  Kind kind;
  std::string name;
  std::string thread;  // pid/tid
  double ts_us = 0;
  double dur_us = 0;
  std::optional<int64_t> correlation;
  double end_us() const { return ts_us + dur_us; }
};

// One call of an outermost operator.
struct Instance {
  size_t op_event = 0;
  std::string label;  // innermost enclosing record_function label, or ""
  double kernel_dur_us = 0;
  bool has_kernel = false;
};

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Classifies one event; nullopt for events ridgeline does not read.
std::optional<Kind> Classify(const std::optional<std::string>& cat,
                             const std::string& name, bool legacy) {
  if (legacy) {
    if (StartsWith(name, kStepPrefix)) return Kind::kStep;
    if (name.find("::") != std::string::npos) return Kind::kOperator;
    return Kind::kAnnotation;
  }
  if (!cat) return std::nullopt;
  std::string c = Lower(*cat);
  if (c == "cpu_op" || c == "operator" || c == "user_annotation") {
    if (StartsWith(name, kStepPrefix)) return Kind::kStep;
    return c == "user_annotation" ? Kind::kAnnotation : Kind::kOperator;
  }
  if (c == "kernel") return Kind::kKernel;
  if (c == "cuda_runtime" || c == "cuda_driver" || c == "runtime") {
    return Kind::kLaunch;
  }
  return std::nullopt;
}

std::optional<int64_t> Correlation(const nlohmann::json& event) {
  auto args = event.find("args");
  if (args == event.end() || !args->is_object()) return std::nullopt;
  auto corr = args->find("correlation");
  if (corr == args->end() || !corr->is_number_integer()) return std::nullopt;
  return corr->get<int64_t>();
}

std::string ThreadKey(const nlohmann::json& event) {
  auto pid = event.find("pid");
  auto tid = event.find("tid");
  return fmt::format("{}/{}", pid == event.end() ? "" : pid->dump(),
                     tid == event.end() ? "" : tid->dump());
}

std::string_view OpTypeFor(std::string_view aten_name) {
  std::optional<std::string_view> onnx = OnnxOpForAten(aten_name);
  return onnx ? *onnx : aten_name;
}

}  // namespace

bool LooksLikePyTorchTrace(const nlohmann::json& root) {
  if (root.is_object()) return root.contains(std::string(kTraceEventsKey));
  if (!root.is_array()) return false;
  for (const nlohmann::json& event : root) {
    if (!event.is_object() || event.contains("cat")) continue;
    std::optional<std::string> name =
        profile_internal::OptionalString(event, "name");
    if (name && name->find("::") != std::string::npos) return true;
  }
  return false;
}

absl::StatusOr<graph::MeasuredProfile> ParsePyTorchTrace(
    const nlohmann::json& root, std::string_view origin,
    const ProfileOptions& options) {
  const nlohmann::json* array = &root;
  std::string_view array_name;
  bool legacy = true;
  if (root.is_object()) {
    auto it = root.find(std::string(kTraceEventsKey));
    if (it == root.end()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: a PyTorch trace object needs a \"{}\" array", origin,
                      kTraceEventsKey));
    }
    if (!it->is_array()) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: field \"{}\" is a JSON {}, expected an array of trace events",
          origin, kTraceEventsKey, it->type_name()));
    }
    array = &*it;
    array_name = kTraceEventsKey;
    legacy = false;
  } else if (!root.is_array()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: a PyTorch trace is a JSON object with \"{}\" or an array of "
        "events; this file holds a JSON {}",
        origin, kTraceEventsKey, root.type_name()));
  }

  // 1. Read the events ridgeline uses.
  std::vector<Event> events;
  for (size_t i = 0; i < array->size(); ++i) {
    const nlohmann::json& raw = (*array)[i];
    EventRef ref{origin, array_name, i, &raw};
    if (!raw.is_object()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: is a JSON {}, not a trace event object",
                      profile_internal::Describe(ref), raw.type_name()));
    }
    // Only complete events ("ph": "X") carry durations; metadata ("M"),
    // flow ("s"/"f") and instant ("i") events are skipped.
    if (profile_internal::OptionalString(raw, "ph") != "X") continue;
    std::optional<std::string> cat =
        profile_internal::OptionalString(raw, "cat");
    absl::StatusOr<std::string> name = profile_internal::RequireString(
        ref, raw, "name", "the operator or kernel name");
    if (!name.ok()) return name.status();
    std::optional<Kind> kind = Classify(cat, *name, legacy);
    if (!kind) continue;
    Event event;
    event.kind = *kind;
    event.name = *name;
    event.thread = ThreadKey(raw);
    absl::StatusOr<double> ts =
        profile_internal::RequireNumber(ref, raw, "ts", kTsWhat);
    if (!ts.ok()) return ts.status();
    absl::StatusOr<double> dur =
        profile_internal::RequireNonNegative(ref, raw, "dur", kDurWhat);
    if (!dur.ok()) return dur.status();
    event.ts_us = *ts;
    event.dur_us = *dur;
    event.correlation = Correlation(raw);
    events.push_back(std::move(event));
  }

  graph::MeasuredProfile profile;
  profile.path = std::string(origin);
  profile.source_format = graph::kPyTorchProfileFormat;

  // 2. Runs.
  std::vector<Interval> steps;
  for (const Event& e : events) {
    if (e.kind == Kind::kStep) steps.push_back({e.ts_us, e.end_us()});
  }
  std::sort(steps.begin(), steps.end(),
            [](const Interval& a, const Interval& b) {
              return a.begin_us < b.begin_us;
            });
  int64_t outside_steps = 0;
  auto run_of = [&](double ts_us) -> std::optional<int64_t> {
    if (steps.empty()) return 0;
    std::optional<int64_t> run = profile_internal::RunContaining(steps, ts_us);
    if (!run) ++outside_steps;
    return run;
  };

  // 3. Per thread, nest operators, labels and launches (events on one thread
  // nest properly), find the outermost operators and their labels.
  absl::flat_hash_map<std::string, std::vector<size_t>> by_thread;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].kind != Kind::kKernel)
      by_thread[events[i].thread].push_back(i);
  }
  std::vector<Instance> instances;
  absl::flat_hash_map<int64_t, size_t> instance_of_correlation;
  for (auto& [thread, order] : by_thread) {
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const Event& x = events[a];
      const Event& y = events[b];
      if (x.ts_us != y.ts_us) return x.ts_us < y.ts_us;
      if (x.dur_us != y.dur_us) return x.dur_us > y.dur_us;
      return static_cast<int>(x.kind) < static_cast<int>(y.kind);
    });
    struct Open {
      size_t event;
      std::optional<size_t> instance;  // for outermost operators
    };
    std::vector<Open> stack;
    for (size_t i : order) {
      const Event& e = events[i];
      // Events starting at the same time as the open one nest in it (the
      // sort put the longer first); otherwise close what ended before e.
      while (!stack.empty()) {
        const Event& top = events[stack.back().event];
        if (top.end_us() > e.ts_us || top.ts_us == e.ts_us) break;
        stack.pop_back();
      }
      std::optional<size_t> outer_op;  // outermost open operator's instance
      std::string label;
      for (const Open& open : stack) {
        const Event& o = events[open.event];
        if (o.kind == Kind::kOperator && !outer_op) outer_op = open.instance;
        if (o.kind == Kind::kAnnotation) label = o.name;  // innermost wins
      }
      std::optional<size_t> instance;
      // The bottom-most open operator is always an outermost one (with an
      // instance), so "no outer_op" means e itself is outermost.
      if (e.kind == Kind::kOperator && !outer_op) {
        instance = instances.size();
        instances.push_back({i, label, 0, false});
      }
      if (e.kind == Kind::kLaunch && e.correlation && outer_op) {
        instance_of_correlation[*e.correlation] = *outer_op;
      }
      stack.push_back({i, instance});
    }
  }

  // 4. Charge GPU kernels to the operators that launched them.
  bool gpu = false;
  profile_internal::RunAccumulator acc;
  int64_t orphan_kernels = 0;
  for (const Event& e : events) {
    if (e.kind != Kind::kKernel) continue;
    gpu = true;
    std::optional<size_t> instance;
    if (e.correlation) {
      auto it = instance_of_correlation.find(*e.correlation);
      if (it != instance_of_correlation.end()) instance = it->second;
    }
    if (instance) {
      instances[*instance].kernel_dur_us += e.dur_us;
      instances[*instance].has_kernel = true;
      continue;
    }
    ++orphan_kernels;
    std::optional<int64_t> run = run_of(e.ts_us);
    if (run) {
      acc.Add(e.name, std::string(kOrphanKernelOp), "gpu", *run, e.dur_us);
    }
  }
  if (orphan_kernels > 0) {
    profile.warnings.push_back(fmt::format(
        "{}: {} GPU kernel(s) have no launching operator in the trace; each "
        "is listed under its kernel name",
        origin, orphan_kernels));
  }

  // 5. Name the instances and accumulate them per run, in time order.
  std::sort(instances.begin(), instances.end(),
            [&](const Instance& a, const Instance& b) {
              return events[a.op_event].ts_us < events[b.op_event].ts_us;
            });
  // A labelled node takes the op type of its longest operator.
  absl::flat_hash_map<std::string, std::pair<double, std::string>> label_op;
  for (const Instance& inst : instances) {
    if (inst.label.empty()) continue;
    const Event& op = events[inst.op_event];
    double dur = gpu ? inst.kernel_dur_us : op.dur_us;
    auto [it, inserted] =
        label_op.try_emplace(inst.label, dur, std::string(OpTypeFor(op.name)));
    if (!inserted && dur > it->second.first) {
      it->second = {dur, std::string(OpTypeFor(op.name))};
    }
  }
  absl::flat_hash_map<std::string, int64_t> ordinal;  // "run/aten" -> next k
  for (const Instance& inst : instances) {
    if (gpu && !inst.has_kernel) continue;  // CPU-only work in a GPU trace
    const Event& op = events[inst.op_event];
    std::optional<int64_t> run = run_of(op.ts_us);
    if (!run) continue;
    double dur = gpu ? inst.kernel_dur_us : op.dur_us;
    std::string provider = gpu ? "gpu" : "cpu";
    if (!inst.label.empty()) {
      acc.Add(inst.label, label_op[inst.label].second, provider, *run, dur);
      continue;
    }
    int64_t k = ordinal[fmt::format("{}/{}", *run, op.name)]++;
    acc.Add(fmt::format("{}#{}", op.name, k), std::string(OpTypeFor(op.name)),
            provider, *run, dur);
  }
  if (outside_steps > 0) {
    profile.warnings.push_back(fmt::format(
        "{}: {} operator or kernel event(s) lie outside every \"{}N\" step "
        "and were ignored",
        origin, outside_steps, kStepPrefix));
  }
  if (acc.RunsSeen() == 0) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: no PyTorch operator events (\"aten::...\" operators or GPU "
        "kernels{}); is this a torch.profiler trace?",
        origin, steps.empty() ? "" : " inside ProfilerStep#N steps"));
  }

  int64_t runs_in_trace =
      steps.empty() ? 1 : static_cast<int64_t>(steps.size());
  absl::Status finished = acc.Finish(runs_in_trace, options, origin, &profile);
  if (!finished.ok()) return finished;
  if (!steps.empty()) {
    double total_us = 0;
    for (size_t r = static_cast<size_t>(options.skip_runs); r < steps.size();
         ++r) {
      total_us += steps[r].end_us - steps[r].begin_us;
    }
    profile.run_seconds = total_us * profile_internal::kSecondsPerMicrosecond /
                          static_cast<double>(profile.runs_used);
  }
  return profile;
}

}  // namespace ridgeline::importers
