// Fits per-op-type compute and memory efficiencies from a predicted-vs-
// measured Comparison, for `analyze --measured P --fit`.
//
// Model: the engine's own roofline. For a layer with roof times
//   c = FLOPs / peak   and   m = bytes / bandwidth   (un-derated)
// and per-layer tax t, the engine predicts  max(c / e_c, m / e_m) + t.
// For each op type the fit chooses e_c, e_m in [min_efficiency, 1] that
// minimize the sum over that op type's layers of
//   (measured - t - max(c / e_c, m / e_m))^2,
// i.e. least squares in seconds, so that the big layers, which make the total
// latency, weigh the most. With a = 1 / e_c and b = 1 / e_m the layer is
// compute-bound when c / m >= b / a, so the layers sorted by c / m split
// into a memory-bound prefix and a compute-bound suffix; for each of the
// n + 1 splits a and b have closed-form least-squares values
//   a = sum(y c) / sum(c^2) over the compute-bound layers,
//   b = sum(y m) / sum(m^2) over the memory-bound ones,
// clamped to the allowed range; the split whose (a, b) gives the smallest
// true max-form error wins, then a few reclassify-and-refit rounds polish it.
// For exact data (measured = max(c/e_c, m/e_m) + t) the fit recovers e_c
// and e_m exactly. An efficiency is reported only when at least one layer is
// bound by it under the fit (else the data says nothing about it); while
// fitting, such a term keeps the efficiency the engine would use (the
// hardware's per-op value or the analysis' global one), never dropping the
// roof. Data faster than a roof (tensors served from cache on a CPU) clamps
// that efficiency at 1 and is flagged.
// Layers whose measured time does not exceed the tax (overhead-dominated),
// views, unknown ops, layers the analysis skipped and fused multi-layer
// units are left out.
#ifndef RIDGELINE_ENGINE_FIT_H_
#define RIDGELINE_ENGINE_FIT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/hardware.h"
#include "engine/measured.h"
#include "engine/report/text_table.h"

namespace ridgeline::engine {

// One observation: roof times (no efficiencies, no tax) and the measured time
// minus the tax, seconds.
struct FitSample {
  double compute_s = 0;   // FLOPs / peak
  double memory_s = 0;    // bytes / bandwidth
  double measured_s = 0;  // measured - per-layer tax
};

struct RoofFit {
  std::optional<double> compute_efficiency;  // e_c in [min, 1]
  std::optional<double> memory_efficiency;   // e_m in [min, 1]
  bool compute_clamped = false;  // the unconstrained optimum was outside
  bool memory_clamped = false;
  int64_t compute_bound = 0;  // samples bound by each term under the fit
  int64_t memory_bound = 0;
  double sse_s2 = 0;  // sum of squared errors, seconds^2
};

// The least-squares max-form fit described above, on raw samples. A term
// that bounds no sample keeps its fallback efficiency (the one the engine
// would use for that op type) during the fit and is not reported.
RoofFit FitRoof(const std::vector<FitSample>& samples, double min_efficiency,
                double fallback_compute_efficiency = 0.5,
                double fallback_memory_efficiency = 1.0);

struct FitOptions {
  double min_efficiency = 0.001;
  // Op types with fewer usable layers are not fitted.
  int64_t min_layers = 1;
};

struct OpTypeFit {
  std::string op_type;
  int64_t layers_used = 0;
  int64_t layers_skipped = 0;  // overhead-dominated, fused, unknown, views
  RoofFit fit;
  // Sums over the used layers, seconds per run: measured, predicted by the
  // analysis, and predicted with the fitted efficiencies (taxes included).
  double measured_s = 0;
  double predicted_before_s = 0;
  double predicted_after_s = 0;
  // Root-mean-square error per layer, seconds, before and after.
  double rms_before_s = 0;
  double rms_after_s = 0;
};

struct FitResult {
  std::vector<OpTypeFit> op_types;  // most measured time first
  std::vector<std::string> notes;
};

// Fits every op type of `comparison` (computed from `analysis`).
absl::StatusOr<FitResult> FitEfficiencies(const Analysis& analysis,
                                          const Comparison& comparison,
                                          const FitOptions& options);

// Writes the fitted efficiencies into hw->compute_efficiency_by_op and
// hw->memory_efficiency_by_op (keyed by op type), replacing entries of the
// same op types and keeping the others; appends a note to hw->source.
void ApplyFit(const FitResult& fit, std::string_view profile_path,
              Hardware* hw);

// A fmt table of the fit.
// Its table at most `max_width` columns wide (report::TextTable).
std::string FormatFit(const FitResult& fit,
                      size_t max_width = report::kMaxTableWidth);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_FIT_H_
