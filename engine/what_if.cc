#include "engine/what_if.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/report/units.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"

namespace ridgeline::engine {
namespace {

QuantizeOptions Quant(std::string weights, std::string activations,
                      std::string kv, const WhatIfOptions& options) {
  QuantizeOptions q;
  q.weights = std::move(weights);
  q.activations = std::move(activations);
  q.kv_cache = std::move(kv);
  q.int4_group_size = options.int4_group_size;
  q.scale_bytes = options.scale_bytes;
  return q;
}

std::string ScenarioName(const FusionKinds& fuse, const QuantizeOptions& q) {
  std::vector<std::string> parts;
  if (fuse.any())
    parts.push_back(fmt::format("fuse {}", FusionKindsName(fuse)));
  if (q.any()) parts.push_back(QuantizeOptionsName(q));
  if (parts.empty()) return "as stored";
  return fmt::format("{}", fmt::join(parts, " + "));
}

// Prices one quantization option, unfused and (when `plan` is given) fused.
struct Priced {
  bool ok = false;
  std::string note;
  double latency_s = 0;
  double fused_latency_s = 0;
};

Priced Price(const graph::Graph& graph, const Hardware& hardware,
             const AnalyzeOptions& base, const Analysis& as_stored,
             const QuantizeOptions& q, const FusionPlan* plan,
             const ParallelOptions& parallel) {
  Priced p;
  if (!q.any()) {
    p.ok = true;
    p.latency_s = as_stored.summary.latency_s;
    if (plan != nullptr) {
      absl::StatusOr<FusionResult> f =
          ApplyFusion(as_stored, *plan, graph, base);
      if (!f.ok()) {
        p.ok = false;
        p.note = std::string(MessageOf(f.status()));
        return p;
      }
      p.fused_latency_s = f->latency_s;
    }
    return p;
  }
  absl::StatusOr<QuantizeResult> r =
      AnalyzeQuantized(graph, hardware, base, q, parallel);
  if (!r.ok()) {
    p.note = std::string(MessageOf(r.status()));
    return p;
  }
  p.ok = true;
  p.latency_s = r->latency_s;
  if (plan != nullptr) {
    absl::StatusOr<FusionResult> f =
        ApplyFusion(r->after, *plan, graph, r->pricer.get());
    if (!f.ok()) {
      p.ok = false;
      p.note = std::string(MessageOf(f.status()));
      return p;
    }
    p.fused_latency_s = f->latency_s;
  }
  return p;
}

}  // namespace

absl::StatusOr<std::vector<WhatIfRow>> RunWhatIf(const graph::Graph& graph,
                                                 const Hardware& hardware,
                                                 const AnalyzeOptions& base,
                                                 const WhatIfOptions& options) {
  absl::StatusOr<Analysis> as_stored =
      AnalyzeSharded(graph, hardware, base, options.parallel);
  if (!as_stored.ok()) return as_stored.status();
  const double reference = as_stored->summary.latency_s;
  std::vector<WhatIfRow> rows;
  auto add = [&](WhatIfRow row) {
    row.scenario = ScenarioName(row.fuse, row.quantize);
    if (row.available && row.latency_s > 0) {
      row.speedup = reference / row.latency_s;
    }
    rows.push_back(std::move(row));
  };
  add({.latency_s = reference});

  // Fusion levels.
  const FusionKinds levels[] = {{.epilogue = true},
                                {.elementwise = true},
                                {.attention = true},
                                FusionKinds::All()};
  std::optional<FusionPlan> all_plan;
  // Sharded (--tp): no group spans a collective; the quantized analyses
  // below are sharded alike, so the plan serves them too.
  const std::vector<int> barriers = CollectiveTensors(graph, *as_stored);
  for (const FusionKinds& kinds : levels) {
    WhatIfRow row;
    row.fuse = kinds;
    absl::StatusOr<FusionPlan> plan = PlanFusion(graph, kinds, barriers);
    absl::StatusOr<FusionResult> fused =
        plan.ok() ? ApplyFusion(*as_stored, *plan, graph, base)
                  : absl::StatusOr<FusionResult>(plan.status());
    if (fused.ok()) {
      row.latency_s = fused->latency_s;
    } else {
      row.available = false;
      row.note = std::string(MessageOf(fused.status()));
    }
    if (plan.ok() && kinds.epilogue && kinds.elementwise && kinds.attention) {
      all_plan = *std::move(plan);
    }
    add(std::move(row));
  }

  // Quantization options, one at a time.
  const bool has_kv = [&] {
    for (bool kv : FindKvCacheTensors(graph)) {
      if (kv) return true;
    }
    return false;
  }();
  std::string quantized_why;
  const bool quantized = IsQuantizedModel(graph, &quantized_why);
  std::vector<QuantizeOptions> weight_options = {
      Quant("int8", "", "", options), Quant("int4", "", "", options),
      Quant("fp8", "", "", options), Quant("int8", "int8", "", options),
      Quant("fp8", "fp8", "", options)};
  std::vector<std::string> kv_options = {""};
  if (has_kv) kv_options = {"", "int8", "fp8"};
  std::vector<QuantizeOptions> singles = weight_options;
  for (size_t i = 1; i < kv_options.size(); ++i) {
    singles.push_back(Quant("", "", kv_options[i], options));
  }
  for (const QuantizeOptions& q : singles) {
    WhatIfRow row;
    row.quantize = q;
    if (quantized && !q.weights.empty()) {
      row.available = false;
      row.note = fmt::format("model already quantized ({})", quantized_why);
      add(std::move(row));
      continue;
    }
    Priced p =
        Price(graph, hardware, base, *as_stored, q, nullptr, options.parallel);
    row.available = p.ok;
    row.note = p.note;
    row.latency_s = p.latency_s;
    add(std::move(row));
  }

  // Best combination.
  std::vector<QuantizeOptions> combos;
  std::vector<QuantizeOptions> weight_choices = {Quant("", "", "", options)};
  if (!quantized) {
    weight_choices.insert(weight_choices.end(), weight_options.begin(),
                          weight_options.end());
  }
  for (const QuantizeOptions& w : weight_choices) {
    for (const std::string& kv : kv_options) {
      QuantizeOptions q = w;
      q.kv_cache = kv;
      combos.push_back(q);
    }
  }
  WhatIfRow best;
  best.best = true;
  best.available = false;
  for (const QuantizeOptions& q : combos) {
    Priced p = Price(graph, hardware, base, *as_stored, q,
                     all_plan ? &*all_plan : nullptr, options.parallel);
    if (!p.ok) continue;
    auto consider = [&](double latency, FusionKinds fuse) {
      if (!best.available || latency < best.latency_s) {
        best.available = true;
        best.latency_s = latency;
        best.fuse = fuse;
        best.quantize = q;
      }
    };
    consider(p.latency_s, FusionKinds{});
    if (all_plan) consider(p.fused_latency_s, FusionKinds::All());
  }
  if (!best.available) best.note = "no combination could be priced";
  add(best);
  rows.back().scenario = fmt::format("best: {}", rows.back().scenario);
  return rows;
}

report::TextTable WhatIfTable(const std::vector<WhatIfRow>& rows,
                              size_t max_width) {
  report::TextTable table;
  table.headers = {"scenario", "latency", "speed-up", "note"};
  table.right_align = {false, true, true, false};
  table.max_width = max_width;
  for (const WhatIfRow& row : rows) {
    table.rows.push_back(
        {row.scenario,
         row.available ? report::FormatSeconds(row.latency_s) : "-",
         row.available ? report::FormatSpeedup(row.speedup) : "-", row.note});
  }
  return table;
}

std::string RenderWhatIfText(const std::vector<WhatIfRow>& rows,
                             size_t max_width) {
  return report::RenderText(WhatIfTable(rows, max_width)) +
         "latency: whole model per inference, dispatch tax included; speed-up "
         "vs as stored\n";
}

nlohmann::ordered_json WhatIfJson(const std::vector<WhatIfRow>& rows) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  auto or_stored = [](const std::string& s) {
    return s.empty() ? std::string("as stored") : s;
  };
  for (const WhatIfRow& row : rows) {  // keys in alphabetical order
    out.push_back({{"activations", or_stored(row.quantize.activations)},
                   {"available", row.available},
                   {"best", row.best},
                   {"fuse", FusionKindsName(row.fuse)},
                   {"kv_cache", or_stored(row.quantize.kv_cache)},
                   {"latency_s", row.latency_s},
                   {"note", row.note},
                   {"scenario", row.scenario},
                   {"speedup", row.speedup},
                   {"weights", or_stored(row.quantize.weights)}});
  }
  return out;
}

}  // namespace ridgeline::engine
