#include "engine/kernel_fit.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "absl/algorithm/container.h"
#include "engine/rank_stats.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab - start));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return out;
}

bool ToDouble(std::string_view s, double* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() &&
         std::isfinite(*out) && *out >= 0;
}

double Loss(const std::vector<KernelSample>& samples, const Hardware& hw,
            const KernelModel& m, int skip) {
  double loss = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (static_cast<int>(i) == skip) continue;
    if (samples[i].work.kind != KernelClass::kMatrix) continue;  // held out
    const double r =
        std::log(PredictKernel(samples[i], hw, m) / samples[i].measured_s);
    loss += r * r;
  }
  return loss;
}

struct Param {
  double* value;
  double lo, hi;
};

// The constants a fit moves: the device's four, or, for `variant` (a
// precision of matrix_by_precision), that precision's matrix efficiency and
// fixed cost with the device's memory efficiency and overlap held.
std::vector<Param> FreeParams(KernelModel& m, const std::string& variant) {
  if (variant.empty()) {
    std::vector<Param> params;
    for (const KernelModel::FittedConstant& c :
         KernelModel::FittedConstants()) {
      // A constant the hardware file holds stays at its value.
      if (!absl::c_linear_search(m.held, c.name)) {
        params.push_back({&(m.*c.member), c.lo, c.hi});
      }
    }
    return params;
  }
  MatrixPrecisionConstants& c = m.matrix_by_precision[variant];
  if (!c.matrix_efficiency) c.matrix_efficiency = m.matrix_efficiency;
  if (absl::c_linear_search(m.held, "kernel_fixed_s")) {
    // A held fixed cost holds for every precision's kernels.
    c.kernel_fixed_s = m.kernel_fixed_s;
    return {{&*c.matrix_efficiency, 0.2, 1.0}};
  }
  if (!c.kernel_fixed_s) c.kernel_fixed_s = m.kernel_fixed_s;
  return {{&*c.matrix_efficiency, 0.2, 1.0}, {&*c.kernel_fixed_s, 0.0, 30e-6}};
}

// Coordinate descent from `start`: a 41-point grid per parameter around the
// current value, the window shrinking every round.
KernelModel Descend(const std::vector<KernelSample>& samples,
                    const Hardware& hw, KernelModel m, int skip,
                    const std::string& variant) {
  std::vector<Param> params = FreeParams(m, variant);
  for (Param& p : params) *p.value = std::clamp(*p.value, p.lo, p.hi);
  double window = 1.0;
  for (int round = 0; round < 24; ++round) {
    for (Param& p : params) {
      const double span = (p.hi - p.lo) * window;
      const double center = *p.value;
      double best = *p.value, best_loss = Loss(samples, hw, m, skip);
      for (int g = 0; g <= 40; ++g) {
        const double v =
            std::clamp(center - span / 2 + span * g / 40.0, p.lo, p.hi);
        *p.value = v;
        const double l = Loss(samples, hw, m, skip);
        if (l < best_loss) {
          best_loss = l;
          best = v;
        }
      }
      *p.value = best;
    }
    window *= 0.6;
  }
  return m;
}

// The best descent over a 3 x 3 grid of starts in (memory efficiency, fixed
// cost), the two constants that trade off against each other.
KernelModel Fit(const std::vector<KernelSample>& samples, const Hardware& hw,
                int skip, const std::string& variant) {
  KernelModel best = hw.kernel_model;
  double best_loss = -1;
  for (double e : {0.7, 0.8, 0.9}) {
    for (double fixed : {2e-6, 5e-6, 8e-6}) {
      KernelModel start = hw.kernel_model;
      if (variant.empty()) {
        if (!absl::c_linear_search(start.held, "memory_efficiency")) {
          start.memory_efficiency = e;
        }
        if (!absl::c_linear_search(start.held, "kernel_fixed_s")) {
          start.kernel_fixed_s = fixed;
        }
      } else {
        // Starts in (matrix efficiency, fixed cost) of the precision; its
        // wave_quantization, if the file gives one, is held.
        MatrixPrecisionConstants& c = start.matrix_by_precision[variant];
        c.matrix_efficiency = e - 0.2;
        if (!absl::c_linear_search(start.held, "kernel_fixed_s")) {
          c.kernel_fixed_s = 2 * fixed;
        }
      }
      const KernelModel m = Descend(samples, hw, start, skip, variant);
      const double l = Loss(samples, hw, m, skip);
      if (best_loss < 0 || l < best_loss) {
        best_loss = l;
        best = m;
      }
    }
  }
  best.fitted = true;
  return best;
}

}  // namespace

absl::StatusOr<std::vector<KernelSample>> ParseKernelSamples(
    std::string_view text, std::string_view origin) {
  std::vector<KernelSample> out;
  bool header = false;
  int line_no = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    if (!header) {
      header = true;
      continue;
    }
    auto error = [&](std::string_view problem) {
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: {}", origin, line_no, problem));
    };
    const std::vector<std::string_view> f = SplitTabs(line);
    if (f.size() != 11) return error("expected 11 tab-separated fields");
    KernelSample s;
    s.id = std::string(f[0]);
    s.hw = std::string(f[1]);
    s.precision = std::string(f[3]);
    if (!ToDouble(f[9], &s.measured_s) || s.measured_s <= 0) {
      return error("measured_s must be a positive number");
    }
    const double elem = s.precision == "fp32"                           ? 4
                        : s.precision == "fp8" || s.precision == "int8" ? 1
                                                                        : 2;
    if (f[2] == "gemm") {
      double m = 0, n = 0, k = 0;
      if (!ToDouble(f[4], &m) || !ToDouble(f[5], &n) || !ToDouble(f[6], &k) ||
          m < 1 || n < 1 || k < 1) {
        return error("gemm rows need m, n, k >= 1");
      }
      s.work.kind = KernelClass::kMatrix;
      s.work.gemm = {1, m, n, k};
      s.work.matrix_flops = 2 * m * n * k;
      s.work.bytes = (m * k + k * n + m * n) * elem;
      s.work.weight_bytes = k * n * elem;
    } else if (f[2] == "attention") {
      s.work.kind = KernelClass::kAttention;
      if (!ToDouble(f[7], &s.work.matrix_flops) ||
          !ToDouble(f[8], &s.work.bytes) || s.work.bytes <= 0) {
        return error("attention rows need flops and bytes");
      }
    } else {
      return error(fmt::format("unknown kind '{}' (gemm|attention)", f[2]));
    }
    out.push_back(std::move(s));
  }
  if (!header) {
    return absl::InvalidArgumentError(fmt::format("{}: no header", origin));
  }
  return out;
}

double PredictKernel(const KernelSample& sample, const Hardware& hardware,
                     const KernelModel& model) {
  Pricing p;
  p.runtime.size_aware = true;
  p.runtime.cuda_graphs = true;  // device time only: no launch, no gap
  p.model = model.ForPrecision(sample.precision);
  p.peak_flops_per_s = hardware.PeakFlops(sample.precision).value_or(0);
  p.vector_flops_per_s =
      hardware.PeakFlops("fp32").value_or(p.peak_flops_per_s);
  p.memory_bandwidth_bytes_per_s = hardware.memory_bandwidth_bytes_per_s;
  return TimeKernel(sample.work, p).latency_s;
}

absl::StatusOr<KernelFitResult> FitKernelModel(
    const std::vector<KernelSample>& samples, const Hardware& hardware,
    const std::string& variant) {
  if (samples.size() < 3) {
    return absl::InvalidArgumentError(
        fmt::format("fitting {} needs at least 3 kernel measurements (got {})",
                    hardware.name, samples.size()));
  }
  for (const KernelSample& s : samples) {
    if (!hardware.PeakFlops(s.precision).ok()) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: {} lists no {} peak", s.id, hardware.name, s.precision));
    }
    if (!variant.empty() &&
        (s.precision != variant || s.work.kind != KernelClass::kMatrix)) {
      return absl::InvalidArgumentError(
          fmt::format("{}: fitting {} matrix constants takes {} GEMM rows only",
                      s.id, variant, variant));
    }
  }
  KernelFitResult r;
  r.model = Fit(samples, hardware, -1, variant);
  std::vector<double> errors, loo_errors;
  for (size_t i = 0; i < samples.size(); ++i) {
    KernelFitRow row;
    row.id = samples[i].id;
    row.measured_s = samples[i].measured_s;
    row.predicted_s = PredictKernel(samples[i], hardware, r.model);
    // Rows outside the fit (attention) are out of sample already.
    row.loo_predicted_s = samples[i].work.kind == KernelClass::kMatrix
                              ? PredictKernel(samples[i], hardware,
                                              Fit(samples, hardware,
                                                  static_cast<int>(i), variant))
                              : row.predicted_s;
    errors.push_back(std::abs(row.predicted_s / row.measured_s - 1));
    loo_errors.push_back(std::abs(row.loo_predicted_s / row.measured_s - 1));
    r.rows.push_back(row);
  }
  r.median_abs_error = Quantile(errors, 0.5).value_or(0);
  r.max_abs_error = *std::max_element(errors.begin(), errors.end());
  r.loo_median_abs_error = Quantile(loo_errors, 0.5).value_or(0);
  r.loo_max_abs_error = *std::max_element(loo_errors.begin(), loo_errors.end());
  return r;
}

absl::StatusOr<DeviceKernelFit> FitDeviceKernels(
    const std::vector<KernelSample>& samples, const Hardware& hardware) {
  std::vector<KernelSample> base;
  std::map<std::string, std::vector<KernelSample>> variants;
  for (const KernelSample& s : samples) {
    const bool half = s.precision == "bf16" || s.precision == "fp16";
    if (half || s.work.kind != KernelClass::kMatrix) {
      base.push_back(s);
    } else {
      variants[s.precision].push_back(s);
    }
  }
  DeviceKernelFit out;
  absl::StatusOr<KernelFitResult> fit = FitKernelModel(base, hardware);
  if (!fit.ok()) return fit.status();
  out.base = *std::move(fit);
  out.model = out.base.model;
  // Each precision is fitted on the base constants, holding what the file
  // gives it beyond the two fitted ones (its wave_quantization).
  out.model.matrix_by_precision.clear();
  for (const auto& [precision, rows] : variants) {
    auto held = hardware.kernel_model.matrix_by_precision.find(precision);
    if (held != hardware.kernel_model.matrix_by_precision.end() &&
        held->second.wave_quantization) {
      out.model.matrix_by_precision[precision].wave_quantization =
          held->second.wave_quantization;
    }
  }
  Hardware on_base = hardware;
  on_base.kernel_model = out.model;
  for (const auto& [precision, rows] : variants) {
    absl::StatusOr<KernelFitResult> v =
        FitKernelModel(rows, on_base, precision);
    if (!v.ok()) return v.status();
    out.model.matrix_by_precision[precision] =
        v->model.matrix_by_precision.at(precision);
    out.by_precision[precision] = *std::move(v);
  }
  return out;
}

}  // namespace ridgeline::engine
