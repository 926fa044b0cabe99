// Options for reading measured profiles.
#ifndef RIDGELINE_IMPORTERS_PROFILE_PROFILE_OPTIONS_H_
#define RIDGELINE_IMPORTERS_PROFILE_PROFILE_OPTIONS_H_

#include <cstdint>

namespace ridgeline::importers {

struct ProfileOptions {
  // Runs at the start of the trace left out of the per-run means (warm-up
  // runs: first-run allocations, cold caches, lazy initialization).
  int64_t skip_runs = 0;
};

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_PROFILE_PROFILE_OPTIONS_H_
