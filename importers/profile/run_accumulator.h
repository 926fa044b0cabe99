// Sums per-node event durations by run and turns them into per-run means
// (internal to importers/profile; shared by the trace formats).
#ifndef RIDGELINE_IMPORTERS_PROFILE_RUN_ACCUMULATOR_H_
#define RIDGELINE_IMPORTERS_PROFILE_RUN_ACCUMULATOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/measured_profile.h"
#include "importers/profile/profile_options.h"

namespace ridgeline::importers::profile_internal {

// A time interval of a trace, microseconds.
struct Interval {
  double begin_us = 0;
  double end_us = 0;
  bool Contains(double ts_us) const {
    return ts_us >= begin_us && ts_us <= end_us;
  }
};

// Index of the interval of `sorted_runs` (sorted by begin, not overlapping)
// that contains ts_us, or nullopt.
std::optional<int64_t> RunContaining(const std::vector<Interval>& sorted_runs,
                                     double ts_us);

class RunAccumulator {
 public:
  // Adds one event of node `name` in run `run` (0-based) lasting dur_us. The
  // op type and provider of the first event of a name are kept.
  void Add(const std::string& name, const std::string& op_type,
           const std::string& provider, int64_t run, double dur_us);

  // Highest run index seen plus one (0 if nothing was added).
  int64_t RunsSeen() const { return runs_seen_; }

  // Fills profile->nodes (first-seen order) with the mean per run over runs
  // [options.skip_runs, runs_in_trace), and runs_in_trace / runs_used.
  // `origin` names the file in the error when skip_runs leaves no run.
  absl::Status Finish(int64_t runs_in_trace, const ProfileOptions& options,
                      std::string_view origin,
                      graph::MeasuredProfile* profile) const;

 private:
  struct Entry {
    graph::MeasuredNode node;
    std::vector<double> dur_us_by_run;
    std::vector<int64_t> events_by_run;
  };
  std::vector<Entry> entries_;
  absl::flat_hash_map<std::string, size_t> index_;
  int64_t runs_seen_ = 0;
};

}  // namespace ridgeline::importers::profile_internal

#endif  // RIDGELINE_IMPORTERS_PROFILE_RUN_ACCUMULATOR_H_
