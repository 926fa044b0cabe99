// Fits a device's kernel-model constants (engine/hardware.h KernelModel) to
// measured per-kernel device times, and reports how well the fit predicts
// each measurement, in sample and leave-one-out.
//
//   auto samples = engine::ParseKernelSamples(tsv_text, "kernels.tsv");
//   engine::KernelFitResult r = engine::FitKernelModel(rows_for_h100, h100);
#ifndef RIDGELINE_ENGINE_KERNEL_FIT_H_
#define RIDGELINE_ENGINE_KERNEL_FIT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/hardware.h"
#include "engine/timing.h"

namespace ridgeline::engine {

struct KernelSample {
  std::string id;
  std::string hw;         // device name as written (key or alias)
  std::string precision;  // peak key, e.g. "bf16"
  KernelWork work;
  double measured_s = 0;
};

// Reads the tab-separated kernel table (bench/accuracy/kernels.tsv): '#'
// comment lines, a header line, then rows id, hw, kind (gemm|attention),
// precision, m, n, k, flops, bytes, measured_s, source. Errors name the
// origin and line.
absl::StatusOr<std::vector<KernelSample>> ParseKernelSamples(
    std::string_view text, std::string_view origin);

struct KernelFitRow {
  std::string id;
  double measured_s = 0;
  double predicted_s = 0;      // with the constants fitted to every row
  double loo_predicted_s = 0;  // fitted without this row
};

struct KernelFitResult {
  KernelModel model;  // fitted constants (compute_units from the device)
  std::vector<KernelFitRow> rows;
  double median_abs_error = 0;  // |predicted / measured - 1|
  double max_abs_error = 0;
  double loo_median_abs_error = 0;
  double loo_max_abs_error = 0;
};

// Predicted device time of `sample` on `hardware` with `model` (no launch
// cost: measured kernel times are device times).
double PredictKernel(const KernelSample& sample, const Hardware& hardware,
                     const KernelModel& model);

// Least squares on log(predicted / measured) over the GEMM/GEMV rows, for
// matrix_efficiency, memory_efficiency, kernel_fixed_s and matrix_overlap,
// by coordinate descent from a grid of starts. Attention rows (a different
// kernel: flash/XQA decode) are not fitted: they are predicted with the
// fitted constants and the hardware file's attention_efficiency, out of
// sample. Needs at least 3 samples.
//
// With `variant` (a peak precision such as "fp8"), every sample must be a
// GEMM at that precision, and the fit moves only that precision's
// matrix_by_precision entry (matrix_efficiency, kernel_fixed_s), holding the
// device's other constants (hardware.kernel_model, the base fit) fixed.
absl::StatusOr<KernelFitResult> FitKernelModel(
    const std::vector<KernelSample>& samples, const Hardware& hardware,
    const std::string& variant = "");

// A device's whole fit: the device's constants from its bf16/fp16 rows
// (attention rows predicted out of sample), then, on those constants, one
// matrix_by_precision entry per other precision of its GEMM rows ("fp8").
struct DeviceKernelFit {
  KernelModel model;  // the device's constants with matrix_by_precision
  KernelFitResult base;
  std::map<std::string, KernelFitResult> by_precision;
};
absl::StatusOr<DeviceKernelFit> FitDeviceKernels(
    const std::vector<KernelSample>& samples, const Hardware& hardware);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_KERNEL_FIT_H_
