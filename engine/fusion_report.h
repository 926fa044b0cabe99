// Renderers for the fusion what-if (--fuse): a text table of the groups and a
// summary, and the JSON fragment `"groups":[...]` plus a `"fusion"` summary.
// The analysis' own `layers` stay unfused; these are added beside them.
#ifndef RIDGELINE_ENGINE_FUSION_REPORT_H_
#define RIDGELINE_ENGINE_FUSION_REPORT_H_

#include <cstddef>
#include <string>

#include "engine/fusion.h"
#include "engine/report/text_table.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine {

struct FusionTableOptions {
  // Groups listed, largest saving first; the rest are summed in an "other"
  // row. 0 lists all.
  int top = 25;
  // The widest table line (the terminal's width, or 160 when the output is
  // not a terminal); long names are elided in the middle.
  size_t max_width = report::kMaxTableWidth;
};

// The groups table (group, kind, members, FLOPs, bytes unfused -> fused,
// latency unfused -> fused, saved, bound) and the summary: latency unfused vs
// fused (dispatch tax included in both), kernels, bytes, and the groups and
// layers that flip from memory-bound to compute-bound.
std::string RenderFusionText(const FusionResult& result,
                             const FusionTableOptions& options = {});

// [{"bound","bound_unfused","bytes","bytes_read","bytes_unfused",
//   "bytes_written","flops","kind","latency_s","latency_unfused_s",
//   "members":[...],"name","ops":[...],"roof_bound","roof_bound_unfused",
//   "saved_s"}]  (roof_*: compute or memory, tax left out; keys in
// alphabetical order). Units: FLOPs (convention in
// "fusion"."flops_per_mac"), bytes, seconds.
nlohmann::ordered_json FusionGroupsJson(const FusionResult& result);

// {"bytes","bytes_unfused","flips":[{"from","group","layer","to"}],
//  "flops_per_mac","groups","kernels","kernels_unfused","kinds","latency_s",
//  "latency_unfused_s","runtime_fused_groups","saved_s","skipped_groups":
//  [...],"speedup"} (keys in alphabetical order). "flips" lists the groups
// (layer "") and the member layers that go from memory-bound to
// compute-bound.
nlohmann::ordered_json FusionSummaryJson(const FusionResult& result);

// Adds "groups" (FusionGroupsJson) and "fusion" (FusionSummaryJson) to an
// analyze JSON report, leaving its "layers" untouched.
void AddFusionJson(const FusionResult& result, nlohmann::ordered_json* report);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_FUSION_REPORT_H_
