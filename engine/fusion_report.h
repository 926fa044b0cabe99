// Renderers for the fusion what-if (--fuse): a text table of the groups and a
// summary, and the JSON fragment `"groups":[...]` plus a `"fusion"` summary.
// The analysis' own `layers` stay unfused; these are added beside them.
#ifndef RIDGELINE_ENGINE_FUSION_REPORT_H_
#define RIDGELINE_ENGINE_FUSION_REPORT_H_

#include <string>

#include "engine/fusion.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine {

struct FusionTableOptions {
  // Groups listed, largest saving first; the rest are summed in an "other"
  // row. 0 lists all.
  int top = 25;
};

// The groups table (group, kind, members, FLOPs, bytes unfused -> fused,
// latency unfused -> fused, saved, bound) and the summary: latency unfused vs
// fused (dispatch tax included in both), kernels, bytes, and the groups and
// layers that flip from memory-bound to compute-bound.
std::string RenderFusionText(const FusionResult& result,
                             const FusionTableOptions& options = {});

// [{"name","kind","members":[...],"ops":[...],"flops","bytes",
//   "bytes_read","bytes_written","bytes_unfused","latency_s",
//   "latency_unfused_s","saved_s","bound","bound_unfused","roof_bound",
//   "roof_bound_unfused"}]  (roof_*: compute or memory, tax left out)
// Units: FLOPs (convention in "fusion"."flops_per_mac"), bytes, seconds.
nlohmann::json FusionGroupsJson(const FusionResult& result);

// {"kinds","flops_per_mac","groups","kernels_unfused","kernels",
//  "bytes_unfused","bytes","latency_unfused_s","latency_s","saved_s",
//  "speedup","flips":[{"group","layer","from","to"}],"skipped_groups":[...]}
// "flips" lists the groups (layer "") and the member layers that go from
// memory-bound to compute-bound.
nlohmann::json FusionSummaryJson(const FusionResult& result);

// Adds "groups" (FusionGroupsJson) and "fusion" (FusionSummaryJson) to an
// analyze JSON report, leaving its "layers" untouched.
void AddFusionJson(const FusionResult& result, nlohmann::json* report);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_FUSION_REPORT_H_
