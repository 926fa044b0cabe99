// fit_kernels: fits each device's kernel-model constants to the per-kernel
// measurements of a table (bench/accuracy/kernels.tsv) and prints, per row,
// measured vs predicted device time in sample and leave-one-out, then the
// "kernel_model" object to put in the device's hardware file.
//
//   fit_kernels bench/accuracy/kernels.tsv
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "engine/hardware.h"
#include "engine/kernel_fit.h"
#include "engine/rank_stats.h"
#include "engine/report/text_table.h"
#include "fmt/format.h"
#include "fmt/ostream.h"
#include "graph/fmt_absl.h"
#include "nlohmann/json.hpp"
#include "zoo/hardware_catalog.h"

namespace {

int Fail(std::string_view message) {
  fmt::print(std::cerr, "fit_kernels: error: {}\n", message);
  return 2;
}

void PrintFit(const ridgeline::engine::KernelFitResult& fit) {
  namespace engine = ridgeline::engine;
  engine::report::TextTable table;
  table.headers = {"kernel", "measured", "fit", "error", "LOO pred", "LOO err"};
  table.right_align = {false, true, true, true, true, true};
  auto us = [](double s) { return fmt::format("{:.2f} us", s * 1e6); };
  auto error = [](double predicted, double measured) {
    return fmt::format("{:+.1f}%", 100 * (predicted / measured - 1));
  };
  for (const engine::KernelFitRow& r : fit.rows) {
    table.rows.push_back({r.id, us(r.measured_s), us(r.predicted_s),
                          error(r.predicted_s, r.measured_s),
                          us(r.loo_predicted_s),
                          error(r.loo_predicted_s, r.measured_s)});
  }
  fmt::print("{}", engine::report::RenderText(table, "  "));
  fmt::print(
      "  |error| median {:.1f}%, max {:.1f}%; leave-one-out median {:.1f}%, "
      "max {:.1f}%\n",
      100 * fit.median_abs_error, 100 * fit.max_abs_error,
      100 * fit.loo_median_abs_error, 100 * fit.loo_max_abs_error);
}

// --check: the committed constants (the catalog's) against every row of a
// table, by device, precision and m range; nothing is fitted. `each_row`
// (--check-rows) lists every row's prediction first.
int Check(const std::vector<ridgeline::engine::KernelSample>& samples,
          const std::vector<ridgeline::engine::Hardware>& catalog,
          bool each_row) {
  namespace engine = ridgeline::engine;
  struct Key {
    std::string hw, precision;
    int bucket;
    bool operator<(const Key& o) const {
      return std::tie(hw, precision, bucket) <
             std::tie(o.hw, o.precision, o.bucket);
    }
  };
  static constexpr double kEdges[] = {1, 16, 128, 512, 2048};
  static constexpr const char* kNames[] = {
      "m = 1",      "m 2-16",   "m 17-128", "m 129-512",
      "m 513-2048", "m > 2048", "attention"};
  std::map<Key, std::vector<double>> errors;
  std::map<std::pair<std::string, std::string>, std::vector<double>> all;
  engine::report::TextTable rows;
  rows.headers = {"id",       "device",    "precision", "m x n x k",
                  "measured", "predicted", "error"};
  rows.right_align = {false, false, false, true, true, true, true};
  for (const engine::KernelSample& s : samples) {
    absl::StatusOr<engine::Hardware> hw = engine::FindHardware(catalog, s.hw);
    if (!hw.ok()) return Fail(ridgeline::MessageOf(hw.status()));
    if (!hw->PeakFlops(s.precision).ok()) {
      return Fail(
          fmt::format("{}: {} lists no {} peak", s.id, hw->name, s.precision));
    }
    const double predicted = engine::PredictKernel(s, *hw, hw->kernel_model);
    const double e = predicted / s.measured_s - 1;
    if (each_row) {
      const engine::GemmShape& g = s.work.gemm;
      rows.rows.push_back(
          {s.id, hw->key, s.precision,
           s.work.kind == engine::KernelClass::kMatrix
               ? fmt::format("{:g} x {:g} x {:g}", g.m, g.n, g.k)
               : "-",
           fmt::format("{:.2f} us", 1e6 * s.measured_s),
           fmt::format("{:.2f} us", 1e6 * predicted),
           fmt::format("{:+.1f}%", 100 * e)});
    }
    int bucket = 0;
    while (bucket < 5 && s.work.gemm.m > kEdges[bucket]) ++bucket;
    if (s.work.kind != engine::KernelClass::kMatrix) bucket = 6;
    errors[{hw->key, s.precision, bucket}].push_back(e);
    all[{hw->key, s.precision}].push_back(e);
  }
  engine::report::TextTable table;
  table.headers = {"device",         "precision",  "rows",      "median error",
                   "median |error|", "within 10%", "within 20%"};
  table.right_align = {false, false, true, true, true, true, true};
  auto add = [&](std::string device, std::string precision,
                 const std::vector<double>& e) {
    std::vector<double> magnitude;
    int within10 = 0, within20 = 0;
    for (double x : e) {
      magnitude.push_back(std::abs(x));
      within10 += std::abs(x) <= 0.10;
      within20 += std::abs(x) <= 0.20;
    }
    const double n = static_cast<double>(e.size());
    table.rows.push_back(
        {std::move(device), std::move(precision), fmt::format("{}", e.size()),
         fmt::format("{:+.1f}%", 100 * engine::Quantile(e, 0.5).value_or(0)),
         fmt::format("{:.1f}%",
                     100 * engine::Quantile(magnitude, 0.5).value_or(0)),
         fmt::format("{:.0f}%", 100 * within10 / n),
         fmt::format("{:.0f}%", 100 * within20 / n)});
  };
  for (const auto& [device, e] : all) {
    add(device.first, device.second, e);
    for (const auto& [key, be] : errors) {
      if (key.hw == device.first && key.precision == device.second) {
        add("", fmt::format("  {}", kNames[key.bucket]), be);
      }
    }
  }
  if (each_row) {
    fmt::print("Each row (predicted with the committed constants):\n{}\n",
               engine::report::RenderText(rows, "  "));
  }
  fmt::print(
      "Committed kernel constants against every row (predicted / measured - "
      "1; nothing fitted):\n{}",
      engine::report::RenderText(table, "  "));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  namespace engine = ridgeline::engine;
  using ridgeline::MessageOf;
  const bool check_rows =
      argc == 3 && std::string_view(argv[1]) == "--check-rows";
  const bool check =
      check_rows || (argc == 3 && std::string_view(argv[1]) == "--check");
  if ((argc != 2 && !check) || std::string_view(argv[1]) == "--help") {
    fmt::print(std::cerr,
               "usage: fit_kernels KERNELS.tsv        fit and print the "
               "constants\n"
               "       fit_kernels --check TABLE.tsv  the committed constants "
               "against every row\n"
               "       fit_kernels --check-rows TABLE.tsv  the same, each "
               "row's prediction listed first\n");
    return argc == 2 ? 0 : 1;
  }
  const char* path = argv[argc - 1];
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(fmt::format("{}: cannot open", path));
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::vector<engine::KernelSample>> samples =
      engine::ParseKernelSamples(text.str(), path);
  if (!samples.ok()) return Fail(MessageOf(samples.status()));
  absl::StatusOr<std::vector<engine::Hardware>> catalog =
      ridgeline::zoo::HardwareCatalog();
  if (!catalog.ok()) return Fail(MessageOf(catalog.status()));
  if (check) return Check(*samples, *catalog, check_rows);

  std::map<std::string, std::vector<engine::KernelSample>> by_device;
  for (const engine::KernelSample& s : *samples) by_device[s.hw].push_back(s);
  for (const auto& [name, rows] : by_device) {
    absl::StatusOr<engine::Hardware> hw = engine::FindHardware(*catalog, name);
    if (!hw.ok()) return Fail(MessageOf(hw.status()));
    absl::StatusOr<engine::DeviceKernelFit> fit =
        engine::FitDeviceKernels(rows, *hw);
    if (!fit.ok()) return Fail(MessageOf(fit.status()));
    fmt::print("{} ({} rows)\n", hw->name, fit->base.rows.size());
    PrintFit(fit->base);
    const engine::KernelModel& m = fit->model;
    nlohmann::ordered_json j;
    j["compute_units"] = m.compute_units;
    j["matrix_efficiency"] = std::round(m.matrix_efficiency * 1000) / 1000;
    j["memory_efficiency"] = std::round(m.memory_efficiency * 1000) / 1000;
    j["kernel_fixed_s"] = std::round(m.kernel_fixed_s * 1e8) / 1e8;
    j["matrix_overlap"] = std::round(m.matrix_overlap * 1000) / 1000;
    j["wave_quantization"] = m.wave_quantization;
    if (m.matrix_k_overhead > 0) j["matrix_k_overhead"] = m.matrix_k_overhead;
    if (!m.held.empty()) j["held"] = m.held;
    for (const auto& [precision, vfit] : fit->by_precision) {
      fmt::print("{} {} matrix kernels ({} rows, on the constants above)\n",
                 hw->name, precision, vfit.rows.size());
      PrintFit(vfit);
      const engine::MatrixPrecisionConstants& c =
          m.matrix_by_precision.at(precision);
      j["matrix_by_precision"][precision] = {
          {"matrix_efficiency", std::round(*c.matrix_efficiency * 1000) / 1000},
          {"kernel_fixed_s", std::round(*c.kernel_fixed_s * 1e8) / 1e8}};
      if (c.wave_quantization) {
        j["matrix_by_precision"][precision]["wave_quantization"] =
            *c.wave_quantization;
      }
    }
    fmt::print("  \"kernel_model\": {}\n\n", j.dump());
  }
  return 0;
}
