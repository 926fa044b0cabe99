#include "engine/report/json.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <string_view>

#include "engine/precision.h"
#include "engine/report/json_writer.h"
#include "engine/report/report.h"
#include "engine/report/sections.h"
#include "graph/dtype.h"

namespace ridgeline::engine::report {
namespace {

using Json = nlohmann::ordered_json;

// The members of each object, in order; JsonExtras keys outside them are
// appended.
constexpr std::array<std::string_view, 8> kRootKeys = {
    "schema_version", "model",   "hardware", "assumptions",
    "layers",         "kernels", "summary",  "warnings"};
constexpr std::array<std::string_view, 22> kLayerKeys = {"name",
                                                         "op",
                                                         "domain",
                                                         "inputs",
                                                         "outputs",
                                                         "macs",
                                                         "flops",
                                                         "bytes_read",
                                                         "bytes_written",
                                                         "bytes",
                                                         "intensity",
                                                         "t_compute_s",
                                                         "t_memory_s",
                                                         "t_overhead_s",
                                                         "latency_s",
                                                         "bound",
                                                         "regime",
                                                         "overhead_share",
                                                         "overhead_dominated",
                                                         "host",
                                                         "kernel",
                                                         "note"};

template <size_t N>
bool Listed(const std::array<std::string_view, N>& keys, std::string_view k) {
  return std::find(keys.begin(), keys.end(), k) != keys.end();
}

// Writes one member: `write` makes its value unless `over` (an object or
// null) holds the key, whose value then replaces it in place.
class Members {
 public:
  Members(JsonWriter* w, const Json* over) : w_(w), over_(over) {}

  template <typename F>
  void AddWith(std::string_view key, F&& write) {
    w_->Key(key);
    if (over_ != nullptr) {
      auto it = over_->find(std::string(key));
      if (it != over_->end()) {
        w_->Value(*it);
        return;
      }
    }
    write();
  }
  void Add(std::string_view key, double v) {
    AddWith(key, [&] { w_->Double(v); });
  }
  void AddInt(std::string_view key, int64_t v) {
    AddWith(key, [&] { w_->Int(v); });
  }
  void Add(std::string_view key, std::string_view v) {
    AddWith(key, [&] { w_->String(v); });
  }
  void AddBool(std::string_view key, bool v) {
    AddWith(key, [&] { w_->Bool(v); });
  }

  // The keys of `over` that are not in `keys`, in its order.
  template <size_t N>
  void Rest(const std::array<std::string_view, N>& keys,
            std::string_view skip = {}) {
    if (over_ == nullptr) return;
    for (auto it = over_->begin(); it != over_->end(); ++it) {
      if (Listed(keys, it.key()) || it.key() == skip) continue;
      w_->Key(it.key());
      w_->Value(it.value());
    }
  }

 private:
  JsonWriter* w_;
  const Json* over_;
};

const Json* ObjectOrNull(const Json* j) {
  return j != nullptr && j->is_object() ? j : nullptr;
}

void Tensors(JsonWriter& w, const std::vector<TensorInfo>& tensors) {
  w.BeginArray();
  for (const TensorInfo& t : tensors) {
    w.BeginObject();
    w.Key("name");
    w.String(t.name);
    w.Key("shape");
    if (t.shape_known) {
      w.Ints(t.dims);
    } else {
      w.Null();
    }
    w.Key("dtype");
    w.String(graph::DTypeName(t.dtype));
    w.EndObject();
  }
  w.EndArray();
}

void UnresolvedList(JsonWriter& w, const std::vector<graph::Unresolved>& list) {
  w.BeginArray();
  for (const graph::Unresolved& u : list) {
    w.BeginObject();
    w.Key("tensor");
    w.String(u.tensor);
    w.Key("node");
    w.String(u.node);
    w.Key("reason");
    w.String(u.reason);
    w.EndObject();
  }
  w.EndArray();
}

void SortedMap(JsonWriter& w,
               const absl::flat_hash_map<std::string, double>& map) {
  std::vector<std::pair<std::string, double>> items(map.begin(), map.end());
  std::sort(items.begin(), items.end());
  w.BeginObject();
  for (const auto& [k, v] : items) {
    w.Key(k);
    w.Double(v);
  }
  w.EndObject();
}

void HardwareObject(JsonWriter& w, const Hardware& hw) {
  w.BeginObject();
  w.Key("key");
  w.String(hw.key);
  w.Key("name");
  w.String(hw.name);
  w.Key("aliases");
  w.Strings(hw.aliases);
  w.Key("peak_flops_per_s");
  w.BeginObject();  // widest precision first
  for (const Precision& p : kPrecisions) {
    auto it = hw.peak_flops_per_s.find(std::string(p.name));
    if (it == hw.peak_flops_per_s.end()) continue;
    w.Key(p.name);
    w.Double(it->second);
  }
  w.EndObject();
  w.Key("memory_bandwidth_bytes_per_s");
  w.Double(hw.memory_bandwidth_bytes_per_s);
  w.Key("memory_capacity_bytes");
  w.Double(hw.memory_capacity_bytes);
  w.Key("tdp_w");
  if (hw.tdp_w > 0) {
    w.Double(hw.tdp_w);
  } else {
    w.Null();
  }
  w.Key("dispatch_tax_s");
  w.Double(hw.dispatch_tax_s);
  w.Key("source");
  w.String(hw.source);
  w.Key("compute_efficiency_by_op");
  SortedMap(w, hw.compute_efficiency_by_op);
  w.Key("memory_efficiency_by_op");
  SortedMap(w, hw.memory_efficiency_by_op);
  w.EndObject();
}

void AssumptionsObject(JsonWriter& w, const Analysis& a) {
  const Assumptions& as = a.assumptions;
  w.BeginObject();
  Members m(&w, nullptr);
  m.Add("flops_per_mac", as.flops_per_mac);
  m.Add("compute_efficiency", as.compute_efficiency);
  m.Add("memory_efficiency", as.memory_efficiency);
  m.Add("per_layer_tax_s", as.per_layer_tax_s);
  m.Add("dispatch_tax_s", as.dispatch_tax_s);
  m.Add("precision", std::string_view(as.precision));
  m.AddWith("precision_source", [&] {
    if (as.precision_source.empty()) {
      w.Null();
    } else {
      w.String(as.precision_source);
    }
  });
  m.Add("peak_precision", std::string_view(as.peak_precision));
  m.Add("peak_reason", std::string_view(as.peak_reason));
  m.Add("peak_flops_per_s", as.peak_flops_per_s);
  m.Add("memory_bandwidth_bytes_per_s", as.memory_bandwidth_bytes_per_s);
  m.Add("ridge_point_flop_per_byte", RidgePoint(a));
  m.Add("effective_ridge_point_flop_per_byte", EffectiveRidgePoint(a));
  m.AddInt("batch", a.batch);
  m.Add("runtime", std::string_view(as.runtime));
  m.Add("runtime_name", std::string_view(as.runtime_name));
  m.Add("kernel_model", std::string_view(as.kernel_model));
  m.Add("l2_cache_bytes", as.l2_cache_bytes);
  m.AddBool("l2_weights_resident", as.l2_weights_resident);
  w.EndObject();
}

void LayerObject(JsonWriter& w, const LayerResult& l, const Json* extra) {
  w.BeginObject();
  Members m(&w, extra);
  m.Add("name", std::string_view(l.name));
  m.Add("op", std::string_view(l.op_type));
  m.Add("domain", std::string_view(l.domain));
  m.AddWith("inputs", [&] { Tensors(w, l.inputs); });
  m.AddWith("outputs", [&] { Tensors(w, l.outputs); });
  m.Add("macs", l.cost.macs);
  m.Add("flops", l.flops);
  m.Add("bytes_read", l.cost.bytes_read);
  m.Add("bytes_written", l.cost.bytes_written);
  m.Add("bytes", l.bytes);
  m.Add("intensity", l.intensity);
  m.Add("t_compute_s", l.t_compute_s);
  m.Add("t_memory_s", l.t_memory_s);
  m.Add("t_overhead_s", l.t_overhead_s);
  m.Add("latency_s", l.latency_s);
  m.Add("bound", l.skipped ? std::string_view("skipped") : BoundName(l.bound));
  m.Add("regime", RegimeName(l.regime));
  m.Add("overhead_share", l.latency_s > 0 ? l.t_overhead_s / l.latency_s : 0.0);
  m.AddBool("overhead_dominated", l.overhead_dominated);
  m.AddBool("host", l.host);
  m.AddWith("kernel", [&] {
    if (l.kernel >= 0) {
      w.Int(l.kernel);
    } else {
      w.Null();
    }
  });
  m.Add("note", std::string_view(l.cost.note));
  if (l.message_bytes > 0) m.Add("message_bytes", l.message_bytes);
  m.Rest(kLayerKeys);
  w.EndObject();
}

void KernelObject(JsonWriter& w, const KernelResult& k) {
  w.BeginObject();
  Members m(&w, nullptr);
  m.Add("name", std::string_view(k.name));
  m.Add("fusion", std::string_view(k.fusion));
  m.Add("class", KernelClassName(k.work.kind));
  m.AddWith("layers", [&] {
    w.BeginArray();
    for (int i : k.layers) w.Int(i);
    w.EndArray();
  });
  m.Add("flops", k.work.Flops());
  m.Add("bytes", k.work.bytes);
  m.Add("l2_bytes", L2Bytes(k.work));
  m.Add("t_compute_s", k.time.t_compute_s);
  m.Add("t_memory_s", k.time.t_memory_s);
  m.Add("t_overhead_s", k.time.t_overhead_s);
  m.Add("latency_s", k.time.latency_s);
  m.Add("regime", RegimeName(k.time.regime));
  m.Add("bound", BoundName(k.bound));
  m.Add("tile_wave_efficiency", k.time.tile_wave_efficiency);
  w.EndObject();
}

void SummaryObject(JsonWriter& w, const Summary& s) {
  w.BeginObject();
  Members m(&w, nullptr);
  m.AddInt("layers", s.layers);
  m.Add("macs", s.macs);
  m.Add("flops", s.flops);
  m.Add("bytes", s.bytes);
  m.Add("l2_bytes", s.l2_bytes);
  m.AddInt("params", s.params);
  if (s.active_params != s.params) m.AddInt("active_params", s.active_params);
  m.Add("weight_bytes", s.weight_bytes);
  m.Add("latency_s", s.latency_s);
  m.Add("throughput_per_s", s.throughput_per_s);
  m.Add("mfu", s.mfu);
  m.Add("bound", BoundName(s.bound));
  m.AddWith("unknown_ops", [&] { w.Strings(s.unknown_ops); });
  m.AddWith("unresolved", [&] { UnresolvedList(w, s.unresolved); });
  m.AddInt("view_layers", s.view_layers);
  m.AddWith("skipped_layers", [&] { UnresolvedList(w, s.skipped_layers); });
  m.Add("peak_activation_bytes", s.peak_activation_bytes);
  m.AddBool("fits_in_memory", s.fits_in_memory);
  m.AddInt("compute_bound_layers", s.compute_bound_layers);
  m.AddInt("memory_bound_layers", s.memory_bound_layers);
  m.AddInt("overhead_bound_layers", s.overhead_bound_layers);
  m.Add("compute_bound_time_s", s.compute_bound_time_s);
  m.Add("memory_bound_time_s", s.memory_bound_time_s);
  m.Add("overhead_bound_time_s", s.overhead_bound_time_s);
  m.AddInt("overhead_dominated_layers", s.overhead_bound_layers);
  m.Add("overhead_s", s.overhead_s);
  m.Add("per_inference_s", s.per_inference_s);
  m.AddInt("host_layers", s.host_layers);
  m.AddInt("kernels", s.kernels);
  if (s.parallel) {
    const ParallelSummary& p = *s.parallel;
    m.AddInt("gpus", p.gpus);
    m.AddWith("parallel", [&] {
      w.BeginObject();
      Members q(&w, nullptr);
      q.AddInt("tp", p.tp);
      q.AddInt("pp", p.pp);
      q.AddInt("ep", p.ep);
      q.AddInt("moe_layers", p.moe_layers);
      if (p.moe_layers > 0) q.AddInt("experts_per_gpu", p.experts_per_gpu);
      q.AddInt("microbatches", p.microbatches);
      q.AddInt("transformer_layers", p.transformer_layers);
      q.Add("interconnect", std::string_view(p.interconnect));
      q.Add("lm_head", std::string_view(p.lm_head));
      q.AddInt("params_per_gpu", p.params_per_gpu);
      q.Add("weight_bytes_per_gpu", p.weight_bytes_per_gpu);
      q.AddBool("fits_in_memory_per_gpu", p.fits_in_memory_per_gpu);
      q.AddInt("collective_layers", p.collectives);
      q.Add("collective_s", p.collective_s);
      q.AddWith("stage_latency_s", [&] {
        w.BeginArray();
        for (double t : p.stage_latency_s) w.Double(t);
        w.EndArray();
      });
      q.Add("pipeline_latency_s", p.pipeline_latency_s);
      q.Add("bubble_fraction", p.bubble_fraction);
      q.Add("pipeline_throughput_per_s", p.throughput_per_s);
      w.EndObject();
    });
  }
  w.EndObject();
}

}  // namespace

void WriteAnalysisJson(const Analysis& a, const JsonExtras& extras,
                       std::ostream& out) {
  const Json* sections = ObjectOrNull(&extras.sections);
  const Json* layer_extras = nullptr;
  if (sections != nullptr) {
    auto it = sections->find("layers");
    if (it != sections->end() && it->is_array()) layer_extras = &*it;
  }
  JsonWriter w(out);
  w.BeginObject();
  // "layers" in the sections merges per layer instead of replacing.
  Members m(&w, layer_extras != nullptr ? nullptr : sections);
  Members root(&w, sections);
  root.AddInt("schema_version", kJsonSchemaVersion);
  root.Add("model", std::string_view(a.model));
  root.AddWith("hardware", [&] { HardwareObject(w, a.hardware); });
  root.AddWith("assumptions", [&] { AssumptionsObject(w, a); });
  m.AddWith("layers", [&] {
    w.BeginArray();
    for (size_t i = 0; i < a.layers.size(); ++i) {
      const Json* extra = layer_extras != nullptr && i < layer_extras->size()
                              ? ObjectOrNull(&(*layer_extras)[i])
                              : nullptr;
      LayerObject(w, a.layers[i], extra);
    }
    w.EndArray();
  });
  root.AddWith("kernels", [&] {
    w.BeginArray();
    for (const KernelResult& k : a.kernels) KernelObject(w, k);
    w.EndArray();
  });
  root.AddWith("summary", [&] { SummaryObject(w, a.summary); });
  // Everything the text report lists under "Warnings"; the CLI puts its
  // own stderr warnings first.
  root.AddWith("warnings", [&] {
    w.BeginArray();
    for (const std::string& line : extras.warnings_first) w.String(line);
    for (const std::string& line : WarningLines(a)) w.String(line);
    w.EndArray();
  });
  root.Rest(kRootKeys, "layers");
  w.EndObject();
  w.Finish();
}

nlohmann::ordered_json AnalysisToJson(const Analysis& analysis) {
  std::ostringstream text;
  WriteAnalysisJson(analysis, {}, text);
  return Json::parse(text.str());
}

void WriteJson(const Analysis& analysis, std::ostream& out) {
  WriteAnalysisJson(analysis, {}, out);
}

}  // namespace ridgeline::engine::report
