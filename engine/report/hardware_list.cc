#include "engine/report/hardware_list.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/fusion_kinds.h"
#include "engine/precision.h"
#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "fmt/format.h"
#include "fmt/ostream.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine::report {
namespace {

// A map's entries in key order.
template <typename Map>
nlohmann::ordered_json SortedObject(const Map& map) {
  std::vector<std::pair<std::string, double>> items(map.begin(), map.end());
  std::sort(items.begin(), items.end());
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [k, v] : items) out[k] = v;
  return out;
}

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
  t.keep = {true};  // the key is what --hw takes
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

std::string LaunchModel(const Runtime& r) {
  if (!r.size_aware) {
    return fmt::format("{:g} us tax per node", r.per_node_tax_s * 1e6);
  }
  if (r.cuda_graphs) {
    return fmt::format("CUDA graphs, {:g} us gap", r.kernel_gap_s * 1e6);
  }
  return fmt::format("max(kernel, {:g} us launch)", r.kernel_launch_s * 1e6);
}

TextTable BuildRuntimeTable(const std::vector<Runtime>& runtimes) {
  TextTable t;
  t.headers = {"key",          "device",     "fusion", "KV append",
               "launch model", "efficiency", "summary"};
  t.right_align.assign(t.headers.size(), false);
  t.keep = {true};  // the key is what --runtime takes
  for (const Runtime& r : runtimes) {
    t.rows.push_back(
        {r.key, r.device,
         FusionKindsName(r.fusion) +
             (r.fuse_sibling_gemms ? " + sibling GEMMs" : "") +
             (r.attention_prologue_fused ? " + QKV prologue" : ""),
         r.kv_append_in_place ? "in place" : "copy", LaunchModel(r),
         r.size_aware ? "size-aware"
                      : fmt::format("flat {:g}/{:g}", r.flat_compute_efficiency,
                                    r.flat_memory_efficiency),
         r.summary});
  }
  return t;
}

}  // namespace

void WriteCatalogList(Format format, const nlohmann::ordered_json& json,
                      TextTable table, std::string_view title, size_t max_width,
                      std::ostream& out) {
  switch (format) {
    case Format::kJson:
      fmt::print(
          out, "{}\n",
          json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
      return;
    case Format::kCsv:
      fmt::print(out, "{}", RenderCsv(table));
      return;
    case Format::kMarkdown:
      fmt::print(out, "{}", RenderMarkdown(table));
      return;
    case Format::kTable:
      table.max_width = max_width;
      fmt::print(out, "{}\n\n{}", title, RenderText(table));
      return;
  }
}

nlohmann::ordered_json HardwareJson(const Hardware& hw) {
  nlohmann::ordered_json j;
  j["key"] = hw.key;
  j["name"] = hw.name;
  j["aliases"] = hw.aliases;
  nlohmann::ordered_json peaks = nlohmann::ordered_json::object();
  for (const Precision& p : kPrecisions) {
    auto it = hw.peak_flops_per_s.find(std::string(p.name));
    if (it != hw.peak_flops_per_s.end())
      peaks[std::string(p.name)] = it->second;
  }
  j["peak_flops_per_s"] = peaks;
  j["memory_bandwidth_bytes_per_s"] = hw.memory_bandwidth_bytes_per_s;
  j["memory_capacity_bytes"] = hw.memory_capacity_bytes;
  if (hw.tdp_w > 0) j["tdp_w"] = hw.tdp_w;
  j["dispatch_tax_s"] = hw.dispatch_tax_s;
  if (hw.l2_cache_bytes > 0) j["l2_cache_bytes"] = hw.l2_cache_bytes;
  if (hw.l2_partitions != 1) j["l2_partitions"] = hw.l2_partitions;
  j["source"] = hw.source;
  if (!hw.compute_efficiency_by_op.empty()) {
    j["compute_efficiency_by_op"] = SortedObject(hw.compute_efficiency_by_op);
  }
  if (!hw.memory_efficiency_by_op.empty()) {
    j["memory_efficiency_by_op"] = SortedObject(hw.memory_efficiency_by_op);
  }
  if (hw.kernel_model.fitted) {
    const KernelModel& k = hw.kernel_model;
    nlohmann::ordered_json m;
    m["compute_units"] = k.compute_units;
    m["matrix_efficiency"] = k.matrix_efficiency;
    m["memory_efficiency"] = k.memory_efficiency;
    m["kernel_fixed_s"] = k.kernel_fixed_s;
    m["memory_kernel_fixed_s"] = k.memory_kernel_fixed_s;
    m["matrix_overlap"] = k.matrix_overlap;
    m["wave_quantization"] = k.wave_quantization;
    m["matrix_k_overhead"] = k.matrix_k_overhead;
    m["sustained_matrix_fraction"] = k.sustained_matrix_fraction;
    if (!k.matrix_by_precision.empty()) {
      std::map<std::string, MatrixPrecisionConstants> sorted(
          k.matrix_by_precision.begin(), k.matrix_by_precision.end());
      nlohmann::ordered_json by;
      for (const auto& [precision, c] : sorted) {
        nlohmann::ordered_json e = nlohmann::ordered_json::object();
        if (c.matrix_efficiency) e["matrix_efficiency"] = *c.matrix_efficiency;
        if (c.kernel_fixed_s) e["kernel_fixed_s"] = *c.kernel_fixed_s;
        if (c.wave_quantization) e["wave_quantization"] = *c.wave_quantization;
        by[precision] = e;
      }
      m["matrix_by_precision"] = by;
    }
    m["attention_efficiency"] = k.attention_efficiency;
    if (k.attention_kv_overhead > 0) {
      m["attention_kv_overhead"] = k.attention_kv_overhead;
    }
    if (k.attention_exp_per_s > 0) {
      m["attention_exp_per_s"] = k.attention_exp_per_s;
      m["attention_exp_overlap"] = k.attention_exp_overlap;
    }
    if (k.attention_memory_efficiency) {
      m["attention_memory_efficiency"] = *k.attention_memory_efficiency;
    }
    if (k.attention_kernel_fixed_s) {
      m["attention_kernel_fixed_s"] = *k.attention_kernel_fixed_s;
    }
    if (k.attention_block_s) m["attention_block_s"] = *k.attention_block_s;
    if (k.vector_flops_per_s > 0)
      m["vector_flops_per_s"] = k.vector_flops_per_s;
    if (!k.held.empty()) m["held"] = k.held;
    m["source"] = k.source;
    j["kernel_model"] = m;
  }
  if (hw.interconnect.present() || hw.interconnect.has_network()) {
    const Interconnect& ic = hw.interconnect;
    nlohmann::ordered_json m;
    m["intra_node"] = ic.intra_node;
    m["intra_node_bandwidth_bytes_per_s"] = ic.intra_node_bandwidth_bytes_per_s;
    m["gpus_per_node"] = ic.gpus_per_node;
    m["intra_node_latency_s"] = ic.intra_node_latency_s;
    m["inter_node"] = ic.inter_node;
    m["inter_node_bandwidth_bytes_per_s"] = ic.inter_node_bandwidth_bytes_per_s;
    m["inter_node_latency_s"] = ic.inter_node_latency_s;
    m["collective_launch_s"] = ic.collective_launch_s;
    m["source"] = ic.source;
    if (!ic.measured_collectives.empty()) {
      nlohmann::ordered_json tables = nlohmann::ordered_json::array();
      for (const MeasuredCollective& t : ic.measured_collectives) {
        nlohmann::ordered_json table;
        table["op"] = t.op;
        table["gpus"] = t.gpus;
        table["bytes"] = t.bytes;
        table["seconds"] = t.seconds;
        tables.push_back(std::move(table));
      }
      m["measured_collectives"] = {{"source", ic.measured_collectives_source},
                                   {"tables", tables}};
    }
    j["interconnect"] = m;
  }
  return j;
}

nlohmann::ordered_json RuntimeJson(const Runtime& r) {
  nlohmann::ordered_json j;
  j["key"] = r.key;
  j["name"] = r.name;
  j["aliases"] = r.aliases;
  j["device"] = r.device;
  j["summary"] = r.summary;
  j["fusion"] = FusionKindsName(r.fusion);
  j["fuse_sibling_gemms"] = r.fuse_sibling_gemms;
  j["kv_append_in_place"] = r.kv_append_in_place;
  j["attention_prologue_fused"] = r.attention_prologue_fused;
  j["host_shape_ops"] = r.host_shape_ops;
  j["efficiency_model"] = r.size_aware ? "size-aware" : "flat";
  j["launch_model"] = LaunchModel(r);
  if (r.prefill_chunk_tokens > 0) {
    j["prefill_chunk_tokens"] = r.prefill_chunk_tokens;
  }
  j["prefill_logits"] = r.prefill_last_position_logits ? "last" : "all";
  if (r.per_request_s > 0) j["per_request_s"] = r.per_request_s;
  if (r.kv_cache_free_memory_fraction > 0) {
    j["kv_cache_free_memory_fraction"] = r.kv_cache_free_memory_fraction;
  }
  if (r.custom_all_reduce) {
    j["custom_all_reduce"] = {
        {"one_shot_max_bytes", r.custom_all_reduce->one_shot_max_bytes},
        {"two_shot_max_bytes", r.custom_all_reduce->two_shot_max_bytes},
        {"latency_s", r.custom_all_reduce->latency_s}};
  }
  nlohmann::ordered_json sources = nlohmann::ordered_json::object();
  for (const auto& [field, citation] : r.sources) sources[field] = citation;
  j["sources"] = sources;
  return j;
}

void WriteRuntimeList(const std::vector<Runtime>& runtimes, Format format,
                      std::ostream& out, size_t max_width) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Runtime& r : runtimes) list.push_back(RuntimeJson(r));
  WriteCatalogList(
      format, list, BuildRuntimeTable(runtimes),
      "Runtime profiles (zoo/runtimes/*.json; sources with --format "
      "json)",
      max_width, out);
}

void WriteHardwareList(const std::vector<Hardware>& devices, Format format,
                       std::ostream& out, size_t max_width) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Hardware& hw : devices) {
    list.push_back(HardwareJson(hw));
  }
  WriteCatalogList(format, list, BuildTable(devices),
                   "Hardware zoo: dense peaks (no sparsity), memory bandwidth, "
                   "capacity, TDP and dispatch tax; sources in each entry "
                   "(--format json)",
                   max_width, out);
}

}  // namespace ridgeline::engine::report
