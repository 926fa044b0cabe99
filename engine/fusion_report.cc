#include "engine/fusion_report.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "engine/report/text.h"
#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

std::string BoundChange(Bound from, Bound to) {
  if (from == to) return std::string(BoundName(to));
  return fmt::format("{}->{}", BoundName(from), BoundName(to));
}

std::string MemberOps(const GroupResult& g) {
  return fmt::format("{}", fmt::join(g.member_ops, "+"));
}

}  // namespace

std::string RenderFusionText(const FusionResult& result,
                             const FusionTableOptions& options) {
  std::string out;
  out += fmt::format(
      "Fusion what-if (--fuse {}): {} groups; FLOPs at {} FLOPs per MAC\n",
      FusionKindsName(result.kinds), result.groups.size(),
      result.flops_per_mac);
  if (result.gpus > 1) {
    std::string layout;
    for (const auto& [what, n] : {std::pair{"tensor parallel", result.tp},
                                  {"pipeline", result.pp},
                                  {"expert parallel", result.ep}}) {
      if (n > 1)
        layout += fmt::format("{}{} {}", layout.empty() ? "" : ", ", what, n);
    }
    const std::string whose =
        result.tp > 1 || result.ep > 1
            ? std::string("groups, FLOPs, bytes and kernels are one GPU's") +
                  (result.ep > 1 ? " (the busiest one's: its requests, its "
                                   "routed rows)"
                                 : "")
            : std::string("every node runs whole on its stage's GPU");
    out += fmt::format(
        "one inference sharded over {} GPUs ({}): {}; the latencies include "
        "the collectives ({}), which fusion leaves as they are, and no group "
        "spans one\n",
        result.gpus, layout, whose, report::FormatSeconds(result.collective_s));
  }
  std::vector<size_t> order(result.groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return result.groups[a].saved_s > result.groups[b].saved_s;
  });
  const size_t shown =
      options.top > 0 ? std::min(order.size(), static_cast<size_t>(options.top))
                      : order.size();
  if (!order.empty()) {
    report::TextTable table;
    table.headers = {"group",   "kind",  "members", "FLOPs", "bytes",   "fused",
                     "latency", "fused", "saved",   "bound", "roofline"};
    table.right_align = {false, false, false, true,  true, true,
                         true,  true,  true,  false, false};
    table.keep.assign(table.headers.size(), false);
    table.keep[9] = table.keep[10] = true;  // bound changes: values
    table.max_width = options.max_width;
    for (size_t i = 0; i < shown; ++i) {
      const GroupResult& g = result.groups[order[i]];
      table.rows.push_back({g.name, std::string(FusionKindName(g.kind)),
                            MemberOps(g), report::FormatSi(g.flops, "FLOP"),
                            report::FormatSi(g.bytes_unfused, "B"),
                            report::FormatSi(g.bytes, "B"),
                            report::FormatSeconds(g.latency_unfused_s),
                            report::FormatSeconds(g.latency_s),
                            report::FormatSeconds(g.saved_s),
                            BoundChange(g.bound_unfused, g.bound),
                            BoundChange(g.roof_bound_unfused, g.roof_bound)});
    }
    if (shown < order.size()) {
      double flops = 0, bytes_unfused = 0, bytes = 0, before = 0, after = 0,
             saved = 0;
      for (size_t i = shown; i < order.size(); ++i) {
        const GroupResult& g = result.groups[order[i]];
        flops += g.flops;
        bytes_unfused += g.bytes_unfused;
        bytes += g.bytes;
        before += g.latency_unfused_s;
        after += g.latency_s;
        saved += g.saved_s;
      }
      table.rows.push_back(
          {fmt::format("other ({} groups)", order.size() - shown), "", "",
           report::FormatSi(flops, "FLOP"),
           report::FormatSi(bytes_unfused, "B"), report::FormatSi(bytes, "B"),
           report::FormatSeconds(before), report::FormatSeconds(after),
           report::FormatSeconds(saved), "", ""});
    }
    out += report::RenderText(table);
  }
  out += fmt::format(
      "\nlatency  unfused {}  fused {}  saved {}  speed-up {} (dispatch tax "
      "included in both)\n",
      report::FormatSeconds(result.latency_unfused_s),
      report::FormatSeconds(result.latency_s),
      report::FormatSeconds(result.saved_s),
      report::FormatSpeedup(result.speedup));
  out += fmt::format("kernels  unfused {}  fused {}\n", result.kernels_unfused,
                     result.kernels);
  out += fmt::format("bytes    unfused {}  fused {}\n",
                     report::FormatSi(result.bytes_unfused, "B"),
                     report::FormatSi(result.bytes, "B"));
  if (result.runtime_fused_groups > 0) {
    out += fmt::format(
        "already fused by the runtime profile: {} groups (no change)\n",
        result.runtime_fused_groups);
  }
  if (!result.skipped_groups.empty()) {
    out += fmt::format(
        "not priced: {} groups with a layer the analysis skipped (left "
        "unfused)\n",
        result.skipped_groups.size());
  }
  if (result.group_flips.empty()) {
    out +=
        "bound flips memory -> compute: none (roofline terms, per-layer tax "
        "left out)\n";
  } else {
    out += fmt::format(
        "bound flips memory -> compute (roofline terms, per-layer tax left "
        "out): {} groups, {} layers\n",
        result.group_flips.size(), result.layer_flips.size());
    const size_t max_listed = options.top > 0 ? options.top : SIZE_MAX;
    for (size_t i = 0; i < result.group_flips.size() && i < max_listed; ++i) {
      const BoundFlip& f = result.group_flips[i];
      std::vector<std::string> layers;
      for (const BoundFlip& lf : result.layer_flips) {
        if (lf.group == f.group) layers.push_back(lf.layer);
      }
      for (std::string& layer : layers) layer = report::EscapeControl(layer);
      out +=
          fmt::format("  {} ({} -> {}){}{}\n", report::EscapeControl(f.group),
                      BoundName(f.from), BoundName(f.to),
                      layers.empty() ? "" : ": ", fmt::join(layers, ", "));
    }
    if (result.group_flips.size() > max_listed) {
      out += fmt::format("  ... {} more\n",
                         result.group_flips.size() - max_listed);
    }
  }
  return out;
}

// Keys in alphabetical order, as the report has always listed them.
nlohmann::ordered_json FusionGroupsJson(const FusionResult& result) {
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const GroupResult& g : result.groups) {
    groups.push_back({
        {"bound", std::string(BoundName(g.bound))},
        {"bound_unfused", std::string(BoundName(g.bound_unfused))},
        {"bytes", g.bytes},
        {"bytes_read", g.bytes_read},
        {"bytes_unfused", g.bytes_unfused},
        {"bytes_written", g.bytes_written},
        {"flops", g.flops},
        {"kind", std::string(FusionKindName(g.kind))},
        {"latency_s", g.latency_s},
        {"latency_unfused_s", g.latency_unfused_s},
        {"members", g.members},
        {"name", g.name},
        {"ops", g.member_ops},
        {"roof_bound", std::string(BoundName(g.roof_bound))},
        {"roof_bound_unfused", std::string(BoundName(g.roof_bound_unfused))},
        {"saved_s", g.saved_s},
    });
  }
  return groups;
}

nlohmann::ordered_json FusionSummaryJson(const FusionResult& result) {
  nlohmann::ordered_json flips = nlohmann::ordered_json::array();
  for (const BoundFlip& f : result.group_flips) {
    flips.push_back({{"from", std::string(BoundName(f.from))},
                     {"group", f.group},
                     {"layer", ""},
                     {"to", std::string(BoundName(f.to))}});
  }
  for (const BoundFlip& f : result.layer_flips) {
    flips.push_back({{"from", std::string(BoundName(f.from))},
                     {"group", f.group},
                     {"layer", f.layer},
                     {"to", std::string(BoundName(f.to))}});
  }
  nlohmann::ordered_json j = {
      {"bytes", result.bytes},
      {"bytes_unfused", result.bytes_unfused},
      {"flips", flips},
      {"flops_per_mac", result.flops_per_mac},
      {"groups", result.groups.size()},
      {"kernels", result.kernels},
      {"kernels_unfused", result.kernels_unfused},
      {"kinds", FusionKindsName(result.kinds)},
      {"latency_s", result.latency_s},
      {"latency_unfused_s", result.latency_unfused_s},
      {"runtime_fused_groups", result.runtime_fused_groups},
      {"saved_s", result.saved_s},
      {"skipped_groups", result.skipped_groups},
      {"speedup", result.speedup},
  };
  // Sharded (--tp/--pp/--ep): the per-GPU convention and the collectives'
  // time.
  if (result.gpus > 1) {
    j["gpus"] = result.gpus;
    j["tp"] = result.tp;
    j["pp"] = result.pp;
    j["ep"] = result.ep;
    j["collective_s"] = result.collective_s;
  }
  return j;
}

void AddFusionJson(const FusionResult& result, nlohmann::ordered_json* report) {
  (*report)["groups"] = FusionGroupsJson(result);
  (*report)["fusion"] = FusionSummaryJson(result);
}

}  // namespace ridgeline::engine
