#include "importers/profile/run_accumulator.h"

#include <algorithm>

#include "fmt/format.h"
#include "importers/profile/trace_fields.h"

namespace ridgeline::importers::profile_internal {

std::optional<int64_t> RunContaining(const std::vector<Interval>& sorted_runs,
                                     double ts_us) {
  // The last run that begins at or before ts_us.
  auto it = std::upper_bound(
      sorted_runs.begin(), sorted_runs.end(), ts_us,
      [](double ts, const Interval& run) { return ts < run.begin_us; });
  if (it == sorted_runs.begin()) return std::nullopt;
  --it;
  if (!it->Contains(ts_us)) return std::nullopt;
  return static_cast<int64_t>(it - sorted_runs.begin());
}

void RunAccumulator::Add(const std::string& name, const std::string& op_type,
                         const std::string& provider, int64_t run,
                         double dur_us) {
  auto [it, inserted] = index_.try_emplace(name, entries_.size());
  if (inserted) {
    Entry entry;
    entry.node.name = name;
    entry.node.op_type = op_type;
    entry.node.provider = provider;
    entries_.push_back(std::move(entry));
  }
  Entry& entry = entries_[it->second];
  size_t r = static_cast<size_t>(run);
  if (entry.dur_us_by_run.size() <= r) {
    entry.dur_us_by_run.resize(r + 1, 0.0);
    entry.events_by_run.resize(r + 1, 0);
  }
  entry.dur_us_by_run[r] += dur_us;
  entry.events_by_run[r] += 1;
  runs_seen_ = std::max(runs_seen_, run + 1);
}

absl::Status RunAccumulator::Finish(int64_t runs_in_trace,
                                    const ProfileOptions& options,
                                    std::string_view origin,
                                    graph::MeasuredProfile* profile) const {
  if (options.skip_runs < 0) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: runs to skip must be >= 0 (got {})", origin, options.skip_runs));
  }
  if (options.skip_runs >= runs_in_trace) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: the trace holds {} run(s); skipping {} leaves none to measure",
        origin, runs_in_trace, options.skip_runs));
  }
  profile->runs_in_trace = runs_in_trace;
  profile->runs_used = runs_in_trace - options.skip_runs;
  profile->nodes.clear();
  for (const Entry& entry : entries_) {
    double dur_us = 0;
    int64_t events = 0;
    for (size_t r = static_cast<size_t>(options.skip_runs);
         r < entry.dur_us_by_run.size(); ++r) {
      dur_us += entry.dur_us_by_run[r];
      events += entry.events_by_run[r];
    }
    // A node seen only in skipped runs is kept with 0 s, so that its name is
    // still known to the matcher.
    graph::MeasuredNode node = entry.node;
    node.seconds = dur_us * kSecondsPerMicrosecond /
                   static_cast<double>(profile->runs_used);
    node.count = events;
    profile->nodes.push_back(std::move(node));
  }
  return absl::OkStatus();
}

}  // namespace ridgeline::importers::profile_internal
