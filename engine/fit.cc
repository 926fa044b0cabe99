#include "engine/fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "engine/timing.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

constexpr int kRefineRounds = 20;

double Lookup(const absl::flat_hash_map<std::string, double>& map,
              const std::string& key, double fallback) {
  auto it = map.find(key);
  return it == map.end() ? fallback : it->second;
}

struct Scales {
  double a = 0;  // 1 / e_c
  double b = 0;  // 1 / e_m
};

double Predict(const FitSample& s, const Scales& k) {
  return std::max(k.a * s.compute_s, k.b * s.memory_s);
}

double Sse(const std::vector<FitSample>& samples, const Scales& k) {
  double sse = 0;
  for (const FitSample& s : samples) {
    double e = s.measured_s - Predict(s, k);
    sse += e * e;
  }
  return sse;
}

// One fitted scale: the least-squares y ~ scale * x over the samples bound
// by that term, clamped to [1, max_scale]; the fallback when no sample is.
struct Scale {
  double value = 0;
  bool fitted = false;
  bool clamped = false;
};

Scale FitScale(double sum_yx, double sum_xx, double max_scale,
               double fallback) {
  if (sum_xx <= 0) return {fallback, false, false};
  double scale = sum_yx / sum_xx;
  double bounded = std::clamp(scale, 1.0, max_scale);
  return {bounded, true, bounded != scale};
}

struct Candidate {
  Scale a;
  Scale b;
  double sse = std::numeric_limits<double>::infinity();
  Scales scales() const { return {a.value, b.value}; }
};

struct Bounds {
  double max_scale = 1000;  // 1 / min_efficiency
  double fallback_a = 2;    // 1 / the fallback compute efficiency
  double fallback_b = 1;    // 1 / the fallback memory efficiency
};

bool ComputeBound(const FitSample& s, const Scales& k) {
  return s.compute_s > 0 && k.a * s.compute_s >= k.b * s.memory_s;
}

// Refits a and b on the classification that `k` induces.
Candidate Refit(const std::vector<FitSample>& samples, const Scales& k,
                const Bounds& bounds) {
  double yc = 0, cc = 0, ym = 0, mm = 0;
  for (const FitSample& s : samples) {
    if (ComputeBound(s, k)) {
      yc += s.measured_s * s.compute_s;
      cc += s.compute_s * s.compute_s;
    } else {
      ym += s.measured_s * s.memory_s;
      mm += s.memory_s * s.memory_s;
    }
  }
  Candidate c;
  c.a = FitScale(yc, cc, bounds.max_scale, bounds.fallback_a);
  c.b = FitScale(ym, mm, bounds.max_scale, bounds.fallback_b);
  c.sse = Sse(samples, c.scales());
  return c;
}

}  // namespace

RoofFit FitRoof(const std::vector<FitSample>& all_samples,
                double min_efficiency, double fallback_compute_efficiency,
                double fallback_memory_efficiency) {
  RoofFit fit;
  // A sample with neither FLOPs nor bytes says nothing about either roof.
  std::vector<FitSample> samples;
  for (const FitSample& s : all_samples) {
    if (s.compute_s > 0 || s.memory_s > 0) samples.push_back(s);
  }
  if (samples.empty()) return fit;
  const double min_eff = std::clamp(min_efficiency, 1e-12, 1.0);
  Bounds bounds;
  bounds.max_scale = 1 / min_eff;
  bounds.fallback_a = 1 / std::clamp(fallback_compute_efficiency, min_eff, 1.0);
  bounds.fallback_b = 1 / std::clamp(fallback_memory_efficiency, min_eff, 1.0);
  // Sort by c / m: memory-bound layers first.
  std::vector<size_t> order(samples.size());
  std::iota(order.begin(), order.end(), 0);
  auto intensity = [&](size_t i) {
    const FitSample& s = samples[i];
    if (s.memory_s <= 0) return std::numeric_limits<double>::infinity();
    return s.compute_s / s.memory_s;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return intensity(x) < intensity(y);
  });
  const size_t n = samples.size();
  // Prefix sums over the memory-bound part, suffix sums over the compute part.
  std::vector<double> ym(n + 1, 0), mm(n + 1, 0), yc(n + 1, 0), cc(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const FitSample& s = samples[order[i]];
    ym[i + 1] = ym[i] + s.measured_s * s.memory_s;
    mm[i + 1] = mm[i] + s.memory_s * s.memory_s;
  }
  for (size_t i = n; i-- > 0;) {
    const FitSample& s = samples[order[i]];
    yc[i] = yc[i + 1] + s.measured_s * s.compute_s;
    cc[i] = cc[i + 1] + s.compute_s * s.compute_s;
  }
  // A sample without FLOPs cannot be compute-bound (they sort first), one
  // without bytes cannot be memory-bound (they sort last).
  size_t no_flops = 0, no_bytes = 0;
  for (const FitSample& s : samples) {
    no_flops += s.compute_s <= 0 ? 1 : 0;
    no_bytes += s.memory_s <= 0 ? 1 : 0;
  }
  auto split = [&](size_t k) {  // the first k memory-bound
    Candidate c;
    c.a = FitScale(yc[k], cc[k], bounds.max_scale, bounds.fallback_a);
    c.b = FitScale(ym[k], mm[k], bounds.max_scale, bounds.fallback_b);
    c.sse = Sse(samples, c.scales());
    return c;
  };
  // On ties (e.g. one sample, which either term fits exactly) the split the
  // engine's own efficiencies give wins: it is tried first.
  size_t engine_split = no_flops;
  while (engine_split + no_bytes < n &&
         !ComputeBound(samples[order[engine_split]],
                       {bounds.fallback_a, bounds.fallback_b})) {
    ++engine_split;
  }
  Candidate best = split(engine_split);
  for (size_t k = no_flops; k + no_bytes <= n; ++k) {
    Candidate c = split(k);
    if (c.sse < best.sse) best = c;
  }
  // Reclassify and refit: the first round is taken on a tie too, so that
  // the scales reported are the ones fitted on the samples they bound.
  for (int round = 0; round < kRefineRounds; ++round) {
    Candidate next = Refit(samples, best.scales(), bounds);
    if (round == 0 ? !(next.sse <= best.sse) : !(next.sse < best.sse)) break;
    best = next;
  }
  // Report the classification of the chosen scales, and an efficiency only
  // when it was fitted on samples that it bounds.
  for (const FitSample& s : samples) {
    (ComputeBound(s, best.scales()) ? fit.compute_bound : fit.memory_bound) +=
        1;
  }
  if (best.a.fitted && fit.compute_bound > 0) {
    fit.compute_efficiency = 1 / best.a.value;
    fit.compute_clamped = best.a.clamped;
  }
  if (best.b.fitted && fit.memory_bound > 0) {
    fit.memory_efficiency = 1 / best.b.value;
    fit.memory_clamped = best.b.clamped;
  }
  fit.sse_s2 = best.sse;
  return fit;
}

absl::StatusOr<FitResult> FitEfficiencies(const Analysis& analysis,
                                          const Comparison& comparison,
                                          const FitOptions& options) {
  const Assumptions& a = analysis.assumptions;
  if (!(a.peak_flops_per_s > 0) || !(a.memory_bandwidth_bytes_per_s > 0)) {
    return absl::FailedPreconditionError(fmt::format(
        "fitting efficiencies needs the analysis' peak ({} FLOP/s) and "
        "bandwidth ({} B/s) to be positive",
        a.peak_flops_per_s, a.memory_bandwidth_bytes_per_s));
  }
  struct Group {
    std::vector<FitSample> samples;
    std::vector<const LayerResult*> layers;
    std::vector<double> measured;
    int64_t skipped = 0;
    double measured_s = 0;
  };
  std::vector<std::string> op_order;
  absl::flat_hash_map<std::string, Group> groups;
  int64_t fused = 0, overhead = 0;
  for (const MeasuredUnit& unit : comparison.units) {
    auto [it, inserted] = groups.try_emplace(unit.op_type);
    if (inserted) op_order.push_back(unit.op_type);
    Group& g = it->second;
    if (unit.layers.size() != 1) {
      ++g.skipped;
      ++fused;
      continue;
    }
    const LayerResult& layer =
        analysis.layers[static_cast<size_t>(unit.layers[0])];
    FitSample s;
    const KernelTime roof =
        BareRoofline(layer.flops, layer.bytes, a.peak_flops_per_s,
                     a.memory_bandwidth_bytes_per_s);
    s.compute_s = roof.t_compute_s;
    s.memory_s = roof.t_memory_s;
    s.measured_s = unit.measured_s - layer.t_overhead_s;
    if (layer.skipped || layer.cost.view || layer.cost.unknown ||
        (s.compute_s <= 0 && s.memory_s <= 0)) {
      ++g.skipped;
      continue;
    }
    if (s.measured_s <= 0) {
      ++g.skipped;
      ++overhead;
      continue;
    }
    g.samples.push_back(s);
    g.layers.push_back(&layer);
    g.measured.push_back(unit.measured_s);
  }

  FitResult result;
  for (const std::string& op : op_order) {
    Group& g = groups[op];
    OpTypeFit f;
    f.op_type = op;
    f.layers_used = static_cast<int64_t>(g.samples.size());
    f.layers_skipped = g.skipped;
    if (f.layers_used == 0 || f.layers_used < options.min_layers) {
      if (f.layers_used > 0) {
        result.notes.push_back(fmt::format(
            "{}: {} usable layer(s), fewer than the {} required; not fitted",
            op, f.layers_used, options.min_layers));
      }
      continue;
    }
    f.fit = FitRoof(g.samples, options.min_efficiency,
                    Lookup(analysis.hardware.compute_efficiency_by_op, op,
                           a.compute_efficiency),
                    Lookup(analysis.hardware.memory_efficiency_by_op, op,
                           a.memory_efficiency));
    double sq_before = 0, sq_after = 0;
    for (size_t i = 0; i < g.samples.size(); ++i) {
      const FitSample& s = g.samples[i];
      const LayerResult& layer = *g.layers[i];
      // Where the fit leaves an efficiency unset, the one the analysis used
      // for this layer stays (recovered from its own times).
      double ac = f.fit.compute_efficiency
                      ? 1 / *f.fit.compute_efficiency
                      : (s.compute_s > 0 ? layer.t_compute_s / s.compute_s : 0);
      double bm = f.fit.memory_efficiency
                      ? 1 / *f.fit.memory_efficiency
                      : (s.memory_s > 0 ? layer.t_memory_s / s.memory_s : 0);
      double after =
          std::max(ac * s.compute_s, bm * s.memory_s) + layer.t_overhead_s;
      f.measured_s += g.measured[i];
      f.predicted_before_s += layer.latency_s;
      f.predicted_after_s += after;
      sq_before +=
          (g.measured[i] - layer.latency_s) * (g.measured[i] - layer.latency_s);
      sq_after += (g.measured[i] - after) * (g.measured[i] - after);
    }
    double n = static_cast<double>(g.samples.size());
    f.rms_before_s = std::sqrt(sq_before / n);
    f.rms_after_s = std::sqrt(sq_after / n);
    result.op_types.push_back(std::move(f));
  }
  std::stable_sort(result.op_types.begin(), result.op_types.end(),
                   [](const OpTypeFit& x, const OpTypeFit& y) {
                     return x.measured_s > y.measured_s;
                   });
  if (fused > 0) {
    result.notes.push_back(fmt::format(
        "{} fused unit(s) left out (one measured time for several layers); "
        "profile with graph optimization disabled to fit every op type",
        fused));
  }
  if (overhead > 0) {
    result.notes.push_back(fmt::format(
        "{} layer(s) left out: measured time not above the per-layer tax of "
        "{} s",
        overhead, a.per_layer_tax_s));
  }
  return result;
}

void ApplyFit(const FitResult& fit, std::string_view profile_path,
              Hardware* hw) {
  for (const OpTypeFit& f : fit.op_types) {
    if (f.fit.compute_efficiency) {
      hw->compute_efficiency_by_op[f.op_type] = *f.fit.compute_efficiency;
    }
    if (f.fit.memory_efficiency) {
      hw->memory_efficiency_by_op[f.op_type] = *f.fit.memory_efficiency;
    }
  }
  hw->source += fmt::format(
      "{}per-op-type efficiencies fitted by ridgeline (least squares, max-form "
      "roofline) from the measured profile {}",
      hw->source.empty() ? "" : "; ", profile_path);
}

std::string FormatFit(const FitResult& fit, size_t max_width) {
  std::string out = fmt::format(
      "Fitted efficiencies per op type (least squares on the engine's "
      "max(FLOPs/(peak*e_c), bytes/(bandwidth*e_m)) + tax; '-' = not "
      "identified, '*' = clamped to [min, 1])\n");
  auto eff = [](const std::optional<double>& e, bool clamped) {
    return e ? fmt::format("{:.3f}{}", *e, clamped ? "*" : "")
             : std::string("-");
  };
  const auto ms = report::FormatMilliseconds;
  report::TextTable table;
  table.headers = {"op",         "layers",     "skipped",  "e_c",
                   "e_m",        "bound c/m",  "measured", "pred before",
                   "pred after", "rms before", "rms after"};
  table.right_align.assign(table.headers.size(), true);
  table.right_align[0] = false;
  table.max_width = max_width;
  for (const OpTypeFit& f : fit.op_types) {
    table.rows.push_back(
        {f.op_type, fmt::format("{}", f.layers_used),
         fmt::format("{}", f.layers_skipped),
         eff(f.fit.compute_efficiency, f.fit.compute_clamped),
         eff(f.fit.memory_efficiency, f.fit.memory_clamped),
         fmt::format("{}/{}", f.fit.compute_bound, f.fit.memory_bound),
         ms(f.measured_s), ms(f.predicted_before_s), ms(f.predicted_after_s),
         ms(f.rms_before_s), ms(f.rms_after_s)});
  }
  out += report::RenderText(table, "  ");
  for (const std::string& note : fit.notes)
    out += fmt::format("  note: {}\n", note);
  return out;
}

}  // namespace ridgeline::engine
