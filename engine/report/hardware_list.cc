#include "engine/report/hardware_list.h"

#include <string>

#include "engine/precision.h"
#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "fmt/format.h"
#include "fmt/ostream.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine::report {
namespace {

TextTable BuildTable(const std::vector<Hardware>& devices) {
  TextTable t;
  t.headers = {"key", "name", "aliases"};
  for (const Precision& p : kPrecisions) {
    t.headers.push_back(
        fmt::format("{} {}", p.name, p.integer ? "TOP/s" : "TFLOP/s"));
  }
  for (const char* h :
       {"bandwidth GB/s", "memory GiB", "TDP W", "dispatch tax us"}) {
    t.headers.push_back(h);
  }
  t.right_align.assign(t.headers.size(), true);
  t.right_align[0] = t.right_align[1] = t.right_align[2] = false;
  for (const Hardware& hw : devices) {
    std::string aliases;
    for (const std::string& a : hw.aliases) {
      aliases += (aliases.empty() ? "" : ",") + a;
    }
    std::vector<std::string> row = {hw.key, hw.name, aliases};
    for (const Precision& p : kPrecisions) {
      auto it = hw.peak_flops_per_s.find(std::string(p.name));
      row.push_back(it == hw.peak_flops_per_s.end()
                        ? "-"
                        : fmt::format("{:g}", it->second / 1e12));
    }
    row.push_back(fmt::format("{:g}", hw.memory_bandwidth_bytes_per_s / 1e9));
    row.push_back(fmt::format("{:g}", hw.memory_capacity_bytes / (1 << 30)));
    row.push_back(hw.tdp_w > 0 ? fmt::format("{:g}", hw.tdp_w) : "-");
    row.push_back(fmt::format("{:g}", hw.dispatch_tax_s * 1e6));
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

void WriteHardwareList(const std::vector<Hardware>& devices, Format format,
                       std::ostream& out) {
  switch (format) {
    case Format::kJson: {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const Hardware& hw : devices) {
        list.push_back(nlohmann::ordered_json::parse(HardwareToJson(hw)));
      }
      fmt::print(out, "{}\n", list.dump(2));
      return;
    }
    case Format::kCsv:
      fmt::print(out, "{}", RenderCsv(BuildTable(devices)));
      return;
    case Format::kMarkdown:
      fmt::print(out, "{}", RenderMarkdown(BuildTable(devices)));
      return;
    case Format::kTable:
      fmt::print(out,
                 "Hardware zoo: dense peaks (no sparsity), memory bandwidth, "
                 "capacity, TDP and dispatch tax; sources in each entry "
                 "(--format json)\n\n{}",
                 RenderText(BuildTable(devices)));
      return;
  }
}

}  // namespace ridgeline::engine::report
