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
#include <vector>

#include "engine/hardware.h"
#include "engine/kernel_fit.h"
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

}  // namespace

int main(int argc, char** argv) {
  namespace engine = ridgeline::engine;
  using ridgeline::MessageOf;
  if (argc != 2 || std::string_view(argv[1]) == "--help") {
    fmt::print(std::cerr, "usage: fit_kernels KERNELS.tsv\n");
    return argc == 2 ? 0 : 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) return Fail(fmt::format("{}: cannot open", argv[1]));
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::vector<engine::KernelSample>> samples =
      engine::ParseKernelSamples(text.str(), argv[1]);
  if (!samples.ok()) return Fail(MessageOf(samples.status()));
  absl::StatusOr<std::vector<engine::Hardware>> catalog =
      ridgeline::zoo::HardwareCatalog();
  if (!catalog.ok()) return Fail(MessageOf(catalog.status()));

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
    for (const auto& [precision, vfit] : fit->by_precision) {
      fmt::print("{} {} matrix kernels ({} rows, on the constants above)\n",
                 hw->name, precision, vfit.rows.size());
      PrintFit(vfit);
      const engine::MatrixPrecisionConstants& c =
          m.matrix_by_precision.at(precision);
      j["matrix_by_precision"][precision] = {
          {"matrix_efficiency", std::round(*c.matrix_efficiency * 1000) / 1000},
          {"kernel_fixed_s", std::round(*c.kernel_fixed_s * 1e8) / 1e8}};
    }
    fmt::print("  \"kernel_model\": {}\n\n", j.dump());
  }
  return 0;
}
