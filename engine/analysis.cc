#include "engine/analysis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "engine/activation_memory.h"
#include "engine/precision.h"
#include "engine/precision_pricer.h"
#include "fmt/format.h"
#include "graph/dtype.h"
#include "graph/fmt_absl.h"

namespace ridgeline::engine {
namespace {

struct PeakChoice {
  std::string key;
  double flops_per_s = 0;
  std::string reason;
};

absl::Status CheckOptions(const AnalyzeOptions& o) {
  auto positive = [](double x) { return std::isfinite(x) && x > 0; };
  auto non_negative = [](double x) { return std::isfinite(x) && x >= 0; };
  if (!positive(o.flops_per_mac)) {
    return absl::InvalidArgumentError(fmt::format(
        "flops_per_mac must be positive (got {})", o.flops_per_mac));
  }
  if (!positive(o.compute_efficiency) || o.compute_efficiency > 1) {
    return absl::InvalidArgumentError(fmt::format(
        "compute efficiency must be in (0, 1] (got {})", o.compute_efficiency));
  }
  if (!positive(o.memory_efficiency) || o.memory_efficiency > 1) {
    return absl::InvalidArgumentError(fmt::format(
        "memory efficiency must be in (0, 1] (got {})", o.memory_efficiency));
  }
  if (!non_negative(o.per_layer_tax_s)) {
    return absl::InvalidArgumentError(fmt::format(
        "per-layer tax must be >= 0 s (got {})", o.per_layer_tax_s));
  }
  if (o.dispatch_tax_s && !non_negative(*o.dispatch_tax_s)) {
    return absl::InvalidArgumentError(
        fmt::format("dispatch tax must be >= 0 s (got {})", *o.dispatch_tax_s));
  }
  if (o.batch < 1) {
    return absl::InvalidArgumentError(
        fmt::format("batch must be >= 1 (got {})", o.batch));
  }
  return absl::OkStatus();
}

// The dtype whose peak a model at its own dtypes runs at: the dtype of the
// first input (the activation / A operand) of the MAC-heavy layers, weighted
// by MACs. A layer with no MACs votes with its FLOPs by its output dtype only
// when the model has no MAC layer at all.
absl::StatusOr<PeakChoice> ModelDTypePeak(
    const graph::Graph& graph, const Hardware& hw,
    const std::vector<LayerResult>& layers, double flops_per_mac) {
  std::map<std::string, std::pair<double, graph::DType>> mac_votes, flop_votes;
  double total_macs = 0, total_flops = 0;
  for (const LayerResult& layer : layers) {
    if (layer.skipped || layer.cost.view) continue;
    const graph::Node& node = graph.node(layer.node);
    if (layer.cost.macs > 0) {
      const int in = node.Input(0);
      if (in < 0) continue;
      const graph::DType dtype = graph.tensor(in).dtype;
      std::optional<std::string_view> key = PeakKeyForDType(dtype);
      if (!key) continue;
      auto& vote = mac_votes[std::string(*key)];
      vote.first += layer.cost.macs;
      vote.second = dtype;
      total_macs += layer.cost.macs;
    } else {
      const int out = node.Output(0);
      if (out < 0) continue;
      const graph::DType dtype = graph.tensor(out).dtype;
      if (!graph::IsFloating(dtype)) continue;
      std::optional<std::string_view> key = PeakKeyForDType(dtype);
      if (!key) continue;
      const double flops = layer.cost.Flops(flops_per_mac);
      auto& vote = flop_votes[std::string(*key)];
      vote.first += flops;
      vote.second = dtype;
      total_flops += flops;
    }
  }

  std::string key = "fp32";
  std::string why = "no MAC or floating-point work found; fp32 assumed";
  auto pick = [](const auto& votes) {
    return std::max_element(votes.begin(), votes.end(),
                            [](const auto& a, const auto& b) {
                              return a.second.first < b.second.first;
                            });
  };
  if (!mac_votes.empty() && total_macs > 0) {
    auto best = pick(mac_votes);
    key = best->first;
    why = fmt::format("model dtype {} ({:.0f}% of MACs)",
                      graph::DTypeName(best->second.second),
                      100.0 * best->second.first / total_macs);
  } else if (!flop_votes.empty() && total_flops > 0) {
    auto best = pick(flop_votes);
    key = best->first;
    why = fmt::format("model dtype {} ({:.0f}% of FLOPs; no MAC layers)",
                      graph::DTypeName(best->second.second),
                      100.0 * best->second.first / total_flops);
  }

  for (std::string_view candidate : PeakFallbacks(key)) {
    auto it = hw.peak_flops_per_s.find(std::string(candidate));
    if (it == hw.peak_flops_per_s.end()) continue;
    PeakChoice choice;
    choice.key = std::string(candidate);
    choice.flops_per_s = it->second;
    choice.reason =
        candidate == key
            ? why
            : fmt::format(
                  "{}; {} lists no {} peak, so the {} peak is used "
                  "(fallback rule: same-width sibling, then wider "
                  "types; fp32 -> bf16 for matrix units without fp32)",
                  why, hw.name, key, candidate);
    return choice;
  }
  absl::StatusOr<double> missing = hw.PeakFlops(key);
  return absl::InvalidArgumentError(fmt::format(
      "{}; no fallback peak either: pass --precision with a precision the "
      "device lists",
      MessageOf(missing.status())));
}

// The first tensor of `node` whose shape is unresolved, or "".
std::string FirstUnresolvedTensor(const graph::Graph& graph,
                                  const graph::Node& node) {
  for (const auto* list : {&node.inputs, &node.outputs}) {
    for (int t : *list) {
      if (t >= 0 && !graph.tensor(t).shape_known) return graph.tensor(t).name;
    }
  }
  return "";
}

std::vector<TensorInfo> Describe(const graph::Graph& graph,
                                 const graph::IndexList& tensors) {
  std::vector<TensorInfo> out;
  for (int t : tensors) {
    if (t < 0) continue;
    const graph::Tensor& tensor = graph.tensor(t);
    out.push_back({tensor.name, tensor.dims, tensor.shape_known, tensor.dtype});
  }
  return out;
}

double Lookup(const absl::flat_hash_map<std::string, double>& by_op,
              const std::string& op_type, double fallback) {
  auto it = by_op.find(op_type);
  return it == by_op.end() ? fallback : it->second;
}

}  // namespace

std::string_view BoundName(Bound bound) {
  switch (bound) {
    case Bound::kCompute:
      return "compute";
    case Bound::kMemory:
      return "memory";
    case Bound::kOverhead:
      return "overhead";
    case Bound::kNone:
      return "none";
  }
  return "none";
}

absl::StatusOr<Analysis> Analyze(const graph::Graph& graph,
                                 const Hardware& hardware,
                                 const AnalyzeOptions& options) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  if (!(hardware.memory_bandwidth_bytes_per_s > 0)) {
    return absl::InvalidArgumentError(
        fmt::format("hardware '{}' has no memory bandwidth", hardware.name));
  }

  // Pricing: a caller's pricer, else --precision's re-pricing, else dtypes.
  TensorPricer dtype_pricer;
  std::optional<FloatRepricer> float_repricer;
  const TensorPricer* pricer = &dtype_pricer;
  std::optional<PeakChoice> explicit_peak;
  if (!options.precision.empty()) {
    const Precision* p = FindPrecision(options.precision);
    if (p == nullptr || !p->selectable) {
      return absl::InvalidArgumentError(
          fmt::format("unknown precision '{}' (expected one of {})",
                      options.precision, SelectablePrecisionList()));
    }
    absl::StatusOr<double> peak = hardware.PeakFlops(p->name);
    if (!peak.ok()) {  // the message names the device and what it lists
      return absl::InvalidArgumentError(
          fmt::format("--precision {}: {}", p->name, MessageOf(peak.status())));
    }
    explicit_peak = PeakChoice{std::string(p->name), *peak,
                               fmt::format("--precision {}", p->name)};
    float_repricer.emplace(p->element_bytes);
    pricer = &*float_repricer;
  }
  if (options.pricer != nullptr) pricer = options.pricer;
  const CounterRegistry& registry = options.registry != nullptr
                                        ? *options.registry
                                        : CounterRegistry::Default();

  Analysis analysis;
  analysis.model = graph.name;
  analysis.hardware = hardware;
  analysis.batch = options.batch;
  Summary& summary = analysis.summary;
  summary.unresolved = graph.unresolved;

  // Pass 1: count every node (device-independent).
  std::vector<bool> is_view(graph.nodes().size(), false);
  std::set<std::string> unknown_ops;
  for (int n : graph.topological_order()) {
    const graph::Node& node = graph.node(n);
    LayerResult layer;
    layer.node = n;
    layer.name = node.name;
    layer.op_type = node.op_type;
    layer.domain = node.domain;
    layer.inputs = Describe(graph, node.inputs);
    layer.outputs = Describe(graph, node.outputs);
    absl::StatusOr<Cost> cost = registry.Count(graph, n, *pricer);
    if (!cost.ok()) {
      layer.skipped = true;
      summary.skipped_layers.push_back({FirstUnresolvedTensor(graph, node),
                                        node.name,
                                        std::string(MessageOf(cost.status()))});
    } else {
      layer.cost = *cost;
      is_view[n] = cost->view;
      if (cost->unknown) {
        unknown_ops.insert(
            node.domain.empty()
                ? node.op_type
                : fmt::format("{}:{}", node.domain, node.op_type));
      }
    }
    analysis.layers.push_back(std::move(layer));
  }
  summary.unknown_ops.assign(unknown_ops.begin(), unknown_ops.end());

  PeakChoice peak;
  if (explicit_peak) {
    peak = *explicit_peak;
  } else {
    absl::StatusOr<PeakChoice> chosen =
        ModelDTypePeak(graph, hardware, analysis.layers, options.flops_per_mac);
    if (!chosen.ok()) return chosen.status();
    peak = *chosen;
  }

  Assumptions& a = analysis.assumptions;
  a.flops_per_mac = options.flops_per_mac;
  a.compute_efficiency = options.compute_efficiency;
  a.memory_efficiency = options.memory_efficiency;
  a.per_layer_tax_s = options.per_layer_tax_s;
  a.dispatch_tax_s = options.dispatch_tax_s.value_or(hardware.dispatch_tax_s);
  a.precision = options.precision.empty() ? "model dtypes" : options.precision;
  a.peak_precision = peak.key;
  a.peak_reason = peak.reason;
  a.peak_flops_per_s = peak.flops_per_s;
  a.memory_bandwidth_bytes_per_s = hardware.memory_bandwidth_bytes_per_s;

  // Pass 2: time every layer on the device.
  double layer_time = 0;
  for (LayerResult& layer : analysis.layers) {
    if (layer.skipped) continue;
    const Cost& c = layer.cost;
    layer.flops = c.Flops(options.flops_per_mac);
    layer.bytes = c.Bytes();
    layer.intensity = layer.bytes > 0 ? layer.flops / layer.bytes : 0;
    summary.macs += c.macs;
    summary.flops += layer.flops;
    summary.bytes += layer.bytes;
    if (c.view) {
      ++summary.view_layers;
      continue;  // no work, no traffic, no tax; bound stays kNone
    }
    ++summary.layers;
    const double ce = Lookup(hardware.compute_efficiency_by_op, layer.op_type,
                             options.compute_efficiency);
    const double me = Lookup(hardware.memory_efficiency_by_op, layer.op_type,
                             options.memory_efficiency);
    layer.t_compute_s = layer.flops / (peak.flops_per_s * ce);
    layer.t_memory_s =
        layer.bytes / (hardware.memory_bandwidth_bytes_per_s * me);
    layer.t_overhead_s = options.per_layer_tax_s;
    const double roof = std::max(layer.t_compute_s, layer.t_memory_s);
    layer.latency_s = roof + layer.t_overhead_s;
    if (layer.latency_s <= 0) {
      layer.bound = Bound::kNone;
    } else if (layer.t_overhead_s > roof) {
      layer.bound = Bound::kOverhead;
    } else if (layer.t_memory_s > layer.t_compute_s) {
      layer.bound = Bound::kMemory;  // ties go to compute, as in mlsysim
    } else {
      layer.bound = Bound::kCompute;
    }
    layer_time += layer.latency_s;
    switch (layer.bound) {
      case Bound::kCompute:
        ++summary.compute_bound_layers;
        summary.compute_bound_time_s += layer.latency_s;
        break;
      case Bound::kMemory:
        ++summary.memory_bound_layers;
        summary.memory_bound_time_s += layer.latency_s;
        break;
      case Bound::kOverhead:
        ++summary.overhead_bound_layers;
        summary.overhead_bound_time_s += layer.latency_s;
        break;
      case Bound::kNone:
        break;
    }
  }

  summary.params = graph.ParameterCount();
  for (const graph::Tensor& t : graph.tensors()) {
    if (t.is_weight()) summary.weight_bytes += pricer->TensorBytes(graph, t);
  }
  summary.latency_s = layer_time + a.dispatch_tax_s;
  summary.throughput_per_s =
      summary.latency_s > 0
          ? static_cast<double>(options.batch) / summary.latency_s
          : 0;
  summary.mfu = summary.latency_s > 0
                    ? (summary.flops / summary.latency_s) / peak.flops_per_s
                    : 0;
  const double shares[] = {summary.compute_bound_time_s,
                           summary.memory_bound_time_s,
                           summary.overhead_bound_time_s};
  const Bound bounds[] = {Bound::kCompute, Bound::kMemory, Bound::kOverhead};
  double best = 0;
  for (int i = 0; i < 3; ++i) {
    if (shares[i] > best) {
      best = shares[i];
      summary.bound = bounds[i];
    }
  }
  summary.peak_activation_bytes = PeakActivationBytes(graph, *pricer, is_view);
  summary.fits_in_memory =
      summary.weight_bytes + summary.peak_activation_bytes <=
      hardware.memory_capacity_bytes;
  return analysis;
}

}  // namespace ridgeline::engine
