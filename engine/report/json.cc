#include "engine/report/json.h"

#include <algorithm>
#include <ostream>

#include "engine/precision.h"
#include "engine/report/report.h"
#include "engine/report/sections.h"
#include "fmt/format.h"
#include "fmt/ostream.h"
#include "graph/dtype.h"

namespace ridgeline::engine::report {
namespace {

using Json = nlohmann::ordered_json;

Json TensorsJson(const std::vector<TensorInfo>& tensors) {
  Json list = Json::array();
  for (const TensorInfo& t : tensors) {
    Json j;
    j["name"] = t.name;
    j["shape"] = t.shape_known ? Json(t.dims) : Json(nullptr);
    j["dtype"] = std::string(graph::DTypeName(t.dtype));
    list.push_back(std::move(j));
  }
  return list;
}

Json UnresolvedJson(const std::vector<graph::Unresolved>& list) {
  Json out = Json::array();
  for (const graph::Unresolved& u : list) {
    out.push_back(
        {{"tensor", u.tensor}, {"node", u.node}, {"reason", u.reason}});
  }
  return out;
}

Json SortedMap(const absl::flat_hash_map<std::string, double>& map) {
  std::vector<std::pair<std::string, double>> items(map.begin(), map.end());
  std::sort(items.begin(), items.end());
  Json out = Json::object();
  for (const auto& [k, v] : items) out[k] = v;
  return out;
}

}  // namespace

nlohmann::ordered_json AnalysisToJson(const Analysis& a) {
  const Hardware& hw = a.hardware;
  const Assumptions& as = a.assumptions;
  const Summary& s = a.summary;
  Json root;
  root["schema_version"] = kJsonSchemaVersion;
  root["model"] = a.model;

  Json h;
  h["key"] = hw.key;
  h["name"] = hw.name;
  h["aliases"] = hw.aliases;
  Json peaks = Json::object();  // widest precision first
  for (const Precision& p : kPrecisions) {
    auto it = hw.peak_flops_per_s.find(std::string(p.name));
    if (it != hw.peak_flops_per_s.end())
      peaks[std::string(p.name)] = it->second;
  }
  h["peak_flops_per_s"] = std::move(peaks);
  h["memory_bandwidth_bytes_per_s"] = hw.memory_bandwidth_bytes_per_s;
  h["memory_capacity_bytes"] = hw.memory_capacity_bytes;
  h["tdp_w"] = hw.tdp_w > 0 ? Json(hw.tdp_w) : Json(nullptr);
  h["dispatch_tax_s"] = hw.dispatch_tax_s;
  h["source"] = hw.source;
  h["compute_efficiency_by_op"] = SortedMap(hw.compute_efficiency_by_op);
  h["memory_efficiency_by_op"] = SortedMap(hw.memory_efficiency_by_op);
  root["hardware"] = std::move(h);

  Json j;
  j["flops_per_mac"] = as.flops_per_mac;
  j["compute_efficiency"] = as.compute_efficiency;
  j["memory_efficiency"] = as.memory_efficiency;
  j["per_layer_tax_s"] = as.per_layer_tax_s;
  j["dispatch_tax_s"] = as.dispatch_tax_s;
  j["precision"] = as.precision;
  j["peak_precision"] = as.peak_precision;
  j["peak_reason"] = as.peak_reason;
  j["peak_flops_per_s"] = as.peak_flops_per_s;
  j["memory_bandwidth_bytes_per_s"] = as.memory_bandwidth_bytes_per_s;
  j["ridge_point_flop_per_byte"] = RidgePoint(a);
  j["effective_ridge_point_flop_per_byte"] = EffectiveRidgePoint(a);
  j["batch"] = a.batch;
  j["runtime"] = as.runtime;
  j["runtime_name"] = as.runtime_name;
  j["kernel_model"] = as.kernel_model;
  root["assumptions"] = std::move(j);

  Json layers = Json::array();
  for (const LayerResult& l : a.layers) {
    Json x;
    x["name"] = l.name;
    x["op"] = l.op_type;
    x["domain"] = l.domain;
    x["inputs"] = TensorsJson(l.inputs);
    x["outputs"] = TensorsJson(l.outputs);
    x["macs"] = l.cost.macs;
    x["flops"] = l.flops;
    x["bytes_read"] = l.cost.bytes_read;
    x["bytes_written"] = l.cost.bytes_written;
    x["bytes"] = l.bytes;
    x["intensity"] = l.intensity;
    x["t_compute_s"] = l.t_compute_s;
    x["t_memory_s"] = l.t_memory_s;
    x["t_overhead_s"] = l.t_overhead_s;
    x["latency_s"] = l.latency_s;
    x["bound"] = l.skipped ? "skipped" : std::string(BoundName(l.bound));
    x["regime"] = std::string(RegimeName(l.regime));
    x["overhead_share"] = l.latency_s > 0 ? l.t_overhead_s / l.latency_s : 0.0;
    x["overhead_dominated"] = l.overhead_dominated;
    x["host"] = l.host;
    x["kernel"] = l.kernel >= 0 ? Json(l.kernel) : Json(nullptr);
    x["note"] = l.cost.note;
    layers.push_back(std::move(x));
  }
  root["layers"] = std::move(layers);

  Json kernels = Json::array();
  for (const KernelResult& k : a.kernels) {
    Json x;
    x["name"] = k.name;
    x["fusion"] = k.fusion;
    x["class"] = std::string(KernelClassName(k.work.kind));
    x["layers"] = k.layers;
    x["flops"] = k.work.Flops();
    x["bytes"] = k.work.bytes;
    x["t_compute_s"] = k.time.t_compute_s;
    x["t_memory_s"] = k.time.t_memory_s;
    x["t_overhead_s"] = k.time.t_overhead_s;
    x["latency_s"] = k.time.latency_s;
    x["regime"] = std::string(RegimeName(k.time.regime));
    x["bound"] = std::string(BoundName(k.bound));
    x["tile_wave_efficiency"] = k.time.tile_wave_efficiency;
    kernels.push_back(std::move(x));
  }
  root["kernels"] = std::move(kernels);

  Json y;
  y["layers"] = s.layers;
  y["macs"] = s.macs;
  y["flops"] = s.flops;
  y["bytes"] = s.bytes;
  y["params"] = s.params;
  y["weight_bytes"] = s.weight_bytes;
  y["latency_s"] = s.latency_s;
  y["throughput_per_s"] = s.throughput_per_s;
  y["mfu"] = s.mfu;
  y["bound"] = std::string(BoundName(s.bound));
  y["unknown_ops"] = s.unknown_ops;
  y["unresolved"] = UnresolvedJson(s.unresolved);
  y["view_layers"] = s.view_layers;
  y["skipped_layers"] = UnresolvedJson(s.skipped_layers);
  y["peak_activation_bytes"] = s.peak_activation_bytes;
  y["fits_in_memory"] = s.fits_in_memory;
  y["compute_bound_layers"] = s.compute_bound_layers;
  y["memory_bound_layers"] = s.memory_bound_layers;
  y["overhead_bound_layers"] = s.overhead_bound_layers;
  y["compute_bound_time_s"] = s.compute_bound_time_s;
  y["memory_bound_time_s"] = s.memory_bound_time_s;
  y["overhead_bound_time_s"] = s.overhead_bound_time_s;
  y["overhead_dominated_layers"] = s.overhead_bound_layers;
  y["overhead_s"] = s.overhead_s;
  y["per_inference_s"] = s.per_inference_s;
  y["host_layers"] = s.host_layers;
  y["kernels"] = s.kernels;
  root["summary"] = std::move(y);
  // Everything the text report lists under "Warnings"; the CLI puts its
  // own stderr warnings first.
  root["warnings"] = WarningLines(a);
  return root;
}

void WriteJson(const Analysis& analysis, std::ostream& out) {
  fmt::print(out, "{}\n",
             AnalysisToJson(analysis).dump(
                 2, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace ridgeline::engine::report
