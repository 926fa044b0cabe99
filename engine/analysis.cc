#include "engine/analysis.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "engine/activation_memory.h"
#include "engine/counters/common.h"
#include "engine/fusion.h"
#include "engine/fusion/op_sets.h"  // ReadsShapeOnly, IsDequantize
#include "engine/kernel_plan.h"
#include "engine/l2.h"
#include "engine/moe.h"  // ActiveParameterCount
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

// A node of which the runtime computes `share` of the counted output rows
// (AnalyzeOptions::row_share): its work and activation traffic scale, its
// weights are read whole.
void KeepRows(double share, Cost* c) {
  const double activations_read =
      std::max(0.0, c->bytes_read - c->weight_bytes);
  c->macs *= share;
  c->other_flops *= share;
  c->bytes_read = c->weight_bytes + activations_read * share;
  c->bytes_written *= share;
  c->gemm.m *= share;
  const std::string why = fmt::format(
      "the runtime computes {:.4g}% of its rows (the last prompt position's "
      "logits)",
      share * 100);
  c->note = c->note.empty() ? why : fmt::format("{}; {}", c->note, why);
}

absl::Status CheckOptions(const AnalyzeOptions& o) {
  auto positive = [](double x) { return std::isfinite(x) && x > 0; };
  auto non_negative = [](double x) { return std::isfinite(x) && x >= 0; };
  for (const auto& [node, share] : o.row_share) {
    if (!positive(share) || share > 1) {
      return absl::InvalidArgumentError(fmt::format(
          "row_share of node {} must be in (0, 1] (got {})", node, share));
    }
  }
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

// The dtype a MAC layer's operand `tensor` is computed in: its own, or for
// the output of a DequantizeLinear the quantized input's (a QDQ model: the
// runtime fuses the DequantizeLinear into the layer and runs it in the
// quantized type, TensorRT's explicit quantization, ONNX Runtime's QDQ ->
// QLinearConv).
graph::DType MathDType(const graph::Graph& graph, int tensor) {
  const int p = graph.tensor(tensor).producer;
  if (p >= 0 && fusion::IsDequantize(graph.node(p)) &&
      graph.node(p).Input(0) >= 0) {
    return graph.tensor(graph.node(p).Input(0)).dtype;
  }
  return graph.tensor(tensor).dtype;
}

// The dtype whose peak a model at its own dtypes runs at: the dtype of the
// first input (the activation / A operand) of the MAC-heavy layers
// (MathDType: a dequantized operand's quantized type), weighted by MACs. A
// layer with no MACs votes with its FLOPs by its output dtype only when the
// model has no MAC layer at all.
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
      const graph::DType dtype = MathDType(graph, in);
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
  out.reserve(tensors.size());
  for (int t : tensors) {
    if (t < 0) continue;
    const graph::Tensor& tensor = graph.tensor(t);
    out.push_back({tensor.name, tensor.dims, tensor.shape_known, tensor.dtype});
  }
  return out;
}

// Removes the kernels marked in `gone` (merged into another), keeping the
// launch order of the rest.
void DropKernels(const std::vector<bool>& gone,
                 std::vector<KernelResult>* kernels) {
  std::vector<KernelResult> kept;
  kept.reserve(kernels->size());
  for (size_t i = 0; i < kernels->size(); ++i) {
    if (!gone[i]) kept.push_back(std::move((*kernels)[i]));
  }
  *kernels = std::move(kept);
}

// Sibling GEMMs: matrix kernels whose anchor MatMul/Gemm reads the same
// activation against a weight (Q, K, V projections; gate and up) become one
// GEMM with the weights side by side: the activation is read once.
void MergeSiblingGemms(const graph::Graph& graph, const TensorPricer& pricer,
                       std::vector<KernelResult>* kernels) {
  std::map<int, std::vector<size_t>> by_input;  // A tensor -> kernels
  for (size_t i = 0; i < kernels->size(); ++i) {
    const KernelResult& k = (*kernels)[i];
    if (k.anchor < 0 || k.work.kind != KernelClass::kMatrix) continue;
    const graph::Node& node = graph.node(k.anchor);
    if (!node.domain.empty() ||
        (node.op_type != "MatMul" && node.op_type != "Gemm")) {
      continue;
    }
    const int a = node.Input(0), b = node.Input(1);
    if (a < 0 || b < 0 || !counters::IsWeight(graph, graph.tensor(b)) ||
        counters::IsWeight(graph, graph.tensor(a))) {
      continue;
    }
    by_input[a].push_back(i);
  }
  std::vector<bool> gone(kernels->size(), false);
  for (const auto& [a, list] : by_input) {
    if (list.size() < 2) continue;
    KernelResult& first = (*kernels)[list[0]];
    const double a_bytes = pricer.TensorBytes(graph, graph.tensor(a));
    for (size_t j = 1; j < list.size(); ++j) {
      KernelResult& other = (*kernels)[list[j]];
      if (other.work.gemm.k != first.work.gemm.k ||
          other.work.gemm.m != first.work.gemm.m ||
          other.work.gemm.batch != first.work.gemm.batch) {
        continue;
      }
      first.work.matrix_flops += other.work.matrix_flops;
      first.work.other_flops += other.work.other_flops;
      first.work.bytes += other.work.bytes - a_bytes;
      first.work.weight_bytes += other.work.weight_bytes;
      first.work.gemm.n += other.work.gemm.n;
      first.layers.insert(first.layers.end(), other.layers.begin(),
                          other.layers.end());
      if (first.fusion.find("horizontal") == std::string::npos) {
        first.fusion =
            first.fusion.empty() ? "horizontal" : first.fusion + "+horizontal";
        first.name = "horizontal:" + first.name;
      }
      gone[list[j]] = true;
    }
  }
  DropKernels(gone, kernels);
}

// An in-place KV-cache append folds into the kernel that computes the new
// keys or values (a rotary embedding, a head transpose): that kernel writes
// its output into the cache instead of a temporary, so the append's read and
// write of the new entries disappear. TorchInductor fuses the pointwise
// producer into the index_put that updates a static cache; TensorRT-LLM
// writes rotary keys into the paged cache in the kernel that applies the
// rotation. Only non-matrix producers
// whose output feeds nothing but the append are folded; views between them
// are followed.
void FoldKvAppends(const graph::Graph& graph, const std::vector<int>& layer_of,
                   const std::vector<LayerResult>& layers,
                   std::vector<KernelResult>* kernels) {
  std::vector<bool> gone(kernels->size(), false);
  for (size_t i = 0; i < kernels->size(); ++i) {
    const KernelResult& append = (*kernels)[i];
    if (append.fusion != "kv-append") continue;
    int fresh = -1;  // the new entries
    for (int t : graph.node(append.anchor).inputs) {
      if (t >= 0 && graph.tensor(t).kind != graph::TensorKind::kGraphInput) {
        fresh = t;
      }
    }
    int producer_kernel = -1;
    for (int t = fresh; t >= 0;) {
      const graph::Tensor& tensor = graph.tensor(t);
      if (tensor.consumers.size() != 1 || tensor.producer < 0) break;
      const int li = layer_of[tensor.producer];
      if (li < 0) break;
      if (layers[li].kernel >= 0) {
        producer_kernel = layers[li].kernel;
        break;
      }
      if (!layers[li].cost.view) break;  // host work or skipped
      t = graph.node(tensor.producer).Input(0);
    }
    if (producer_kernel < 0 || gone[producer_kernel]) continue;
    KernelResult& producer = (*kernels)[producer_kernel];
    if (producer.work.kind == KernelClass::kMatrix ||
        producer.work.kind == KernelClass::kAttention ||
        producer.work.kind == KernelClass::kCollective) {
      continue;
    }
    producer.work.other_flops += append.work.Flops();
    producer.layers.insert(producer.layers.end(), append.layers.begin(),
                           append.layers.end());
    producer.fusion =
        producer.fusion.empty() ? "kv-append" : producer.fusion + "+kv-append";
    gone[i] = true;
  }
  DropKernels(gone, kernels);
}

// The attention op's Q/K/V preparation (rotary embedding, head layout, the
// KV-cache write): the elementwise and movement kernels without
// contractions whose outputs are read (through views) by an attention
// kernel and no other kernel. TensorRT-LLM runs them as one kernel
// (invokeApplyBiasRopeUpdateKVCache, before its context FMHA and its XQA
// generation kernel); at a decode step (one query per sequence) they fold
// into the attention kernel, since the measured generation attention op
// the kernel's constants are fitted to (bench/accuracy/aiconfigurator_rows.py
// attention) includes them; at a prefill they are one kernel before it, as
// the context attention fit times them.
// How many views a prologue kernel's output is followed through.
constexpr int kMaxPrologueViews = 16;

void FoldAttentionPrologues(const graph::Graph& graph,
                            const std::vector<int>& layer_of,
                            const std::vector<LayerResult>& layers,
                            std::vector<KernelResult>* kernels) {
  std::vector<int> kernel_of_layer(layers.size(), -1);
  for (size_t k = 0; k < kernels->size(); ++k) {
    for (int li : (*kernels)[k].layers) {
      kernel_of_layer[li] = static_cast<int>(k);
    }
  }
  auto kernel_of_node = [&](int node) {
    const int li = node >= 0 ? layer_of[node] : -1;
    return li >= 0 ? kernel_of_layer[li] : -1;
  };
  auto is_view = [&](int node) {
    const int li = layer_of[node];
    return li >= 0 && layers[li].cost.view && kernel_of_layer[li] < 0;
  };
  // True when every read of `t` (through views) is by kernel `self` or by
  // kernel `target`.
  std::function<bool(int, int, int, int)> read_only_by =
      [&](int t, int self, int target, int depth) {
        if (depth > kMaxPrologueViews) return false;
        for (int c : graph.tensor(t).consumers) {
          const int k = kernel_of_node(c);
          if (k == self || k == target) continue;
          if (fusion::ReadsShapeOnly(graph.node(c))) continue;
          if (!is_view(c)) return false;
          for (int out : graph.node(c).outputs) {
            if (out >= 0 && !read_only_by(out, self, target, depth + 1)) {
              return false;
            }
          }
        }
        return true;
      };
  std::vector<bool> gone(kernels->size(), false);
  for (size_t a = 0; a < kernels->size(); ++a) {
    if ((*kernels)[a].work.kind != KernelClass::kAttention) continue;
    const int target = static_cast<int>(a);
    // The kernels producing the attention kernel's inputs (through views).
    std::set<int> producers;
    for (int li : (*kernels)[a].layers) {
      for (int t : graph.node(layers[li].node).inputs) {
        for (int depth = 0; t >= 0 && depth < kMaxPrologueViews; ++depth) {
          const int producer = graph.tensor(t).producer;
          if (producer < 0) break;
          if (is_view(producer)) {
            t = graph.node(producer).Input(0);
            continue;
          }
          const int k = kernel_of_node(producer);
          if (k >= 0 && k != target && !gone[k]) producers.insert(k);
          break;
        }
      }
    }
    std::vector<int> members;
    for (int k : producers) {
      const KernelResult& p = (*kernels)[k];
      if (p.work.kind != KernelClass::kElementwise &&
          p.work.kind != KernelClass::kMovement) {
        continue;
      }
      bool only = true;
      for (int li : p.layers) {
        // A contraction (a GEMM too narrow for the matrix class) is not
        // preparation.
        if (layers[li].cost.macs > 0) only = false;
        for (int out : graph.node(layers[li].node).outputs) {
          if (out >= 0 && !read_only_by(out, k, target, 0)) only = false;
        }
      }
      if (only) members.push_back(k);
    }
    if (members.empty()) continue;
    KernelResult& attention = (*kernels)[a];
    const bool decode = attention.work.gemm.m == 1;
    KernelResult& into = decode ? attention : (*kernels)[members.front()];
    for (int k : members) {
      if (!decode && k == members.front()) continue;
      KernelResult& p = (*kernels)[k];
      into.work.other_flops += p.work.Flops();
      into.work.bytes += p.work.bytes;
      into.layers.insert(into.layers.end(), p.layers.begin(), p.layers.end());
      gone[k] = true;
    }
    if (decode) {
      attention.fusion += "+prologue";
    } else {
      into.work.kind = KernelClass::kElementwise;
      into.fusion = "attention-prologue";
      into.name = "attention-prologue:" +
                  (attention.anchor >= 0 ? graph.node(attention.anchor).name
                                         : attention.name);
    }
  }
  DropKernels(gone, kernels);
}

// Before each weight GEMM, the kernel that quantizes its activation input
// at run time (runtimes with dynamic_activation_quantization).
void AddActivationQuantizeKernels(std::vector<KernelResult>* kernels) {
  std::vector<KernelResult> out;
  out.reserve(kernels->size());
  for (KernelResult& k : *kernels) {
    if (std::optional<KernelWork> q = ActivationQuantizeWork(k.work)) {
      KernelResult quantize;
      quantize.name = "dynamic-quant:" + k.name;
      quantize.fusion = "dynamic-quant";
      quantize.layers = k.layers;
      quantize.anchor = k.anchor;
      quantize.work = *std::move(q);
      out.push_back(std::move(quantize));
    }
    out.push_back(std::move(k));
  }
  *kernels = std::move(out);
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

void TimeKernels(Analysis* analysis) {
  Summary& summary = analysis->summary;
  const Pricing& pricing = analysis->pricing;
  summary.macs = summary.flops = summary.bytes = summary.l2_bytes = 0;
  for (const LayerResult& layer : analysis->layers) {
    if (layer.skipped || layer.message_bytes > 0) continue;
    summary.macs += layer.cost.macs;
    summary.flops += layer.flops;
    summary.bytes += layer.bytes;
  }
  for (LayerResult& m : analysis->layers) {
    m.t_compute_s = m.t_memory_s = m.t_overhead_s = m.latency_s = 0;
    m.regime = Regime::kNone;
    m.bound = Bound::kNone;
    m.overhead_dominated = false;
  }
  summary.compute_bound_layers = summary.memory_bound_layers = 0;
  summary.overhead_bound_layers = 0;
  summary.compute_bound_time_s = summary.memory_bound_time_s = 0;
  summary.overhead_bound_time_s = 0;
  summary.overhead_s = 0;
  summary.bound = Bound::kNone;
  double kernel_time = 0;
  for (KernelResult& k : analysis->kernels) {
    k.time = TimeKernel(k.work, pricing);
    summary.l2_bytes += L2Bytes(k.work);
    const KernelTime& t = k.time;
    k.bound = t.latency_s <= 0              ? Bound::kNone
              : t.overhead_dominated()      ? Bound::kOverhead
              : t.regime == Regime::kMemory ? Bound::kMemory
                                            : Bound::kCompute;
    kernel_time += t.latency_s;
    summary.overhead_s += t.t_overhead_s;
    // Shares by each member's own roofline time (equal when all are 0).
    std::vector<double> weight(k.layers.size(), 0);
    double total = 0;
    for (size_t i = 0; i < k.layers.size(); ++i) {
      const LayerResult& m = analysis->layers[k.layers[i]];
      weight[i] = m.flops / pricing.peak_flops_per_s +
                  m.bytes / pricing.memory_bandwidth_bytes_per_s;
      total += weight[i];
    }
    const bool own =
        !k.layers.empty() &&
        &analysis->kernels[analysis->layers[k.layers[0]].kernel] == &k;
    for (size_t i = 0; i < k.layers.size(); ++i) {
      LayerResult& m = analysis->layers[k.layers[i]];
      const double share = total > 0
                               ? weight[i] / total
                               : 1.0 / static_cast<double>(k.layers.size());
      m.t_compute_s += t.t_compute_s * share;
      m.t_memory_s += t.t_memory_s * share;
      m.t_overhead_s += t.t_overhead_s * share;
      m.latency_s += t.latency_s * share;
      if (!own) continue;  // a helper kernel adds time, not the regime
      m.regime = t.latency_s > 0 ? t.regime : Regime::kNone;
      m.overhead_dominated = t.overhead_dominated();
      m.bound = k.bound;
    }
  }
  for (const LayerResult& m : analysis->layers) {
    if (m.kernel < 0 || m.latency_s <= 0) continue;
    if (m.regime == Regime::kMemory) {
      ++summary.memory_bound_layers;
      summary.memory_bound_time_s += m.latency_s;
    } else {
      ++summary.compute_bound_layers;
      summary.compute_bound_time_s += m.latency_s;
    }
    if (m.overhead_dominated) {
      ++summary.overhead_bound_layers;
      summary.overhead_bound_time_s += m.latency_s;
    }
  }
  summary.kernels = static_cast<int64_t>(analysis->kernels.size());
  summary.overhead_s += summary.per_inference_s;
  summary.latency_s = kernel_time + summary.per_inference_s;
  summary.throughput_per_s =
      summary.latency_s > 0
          ? static_cast<double>(analysis->batch) / summary.latency_s
          : 0;
  summary.mfu = summary.latency_s > 0 ? (summary.flops / summary.latency_s) /
                                            pricing.peak_flops_per_s
                                      : 0;
  // The regime holding the larger share of time.
  if (summary.compute_bound_time_s > 0 || summary.memory_bound_time_s > 0) {
    summary.bound = summary.memory_bound_time_s > summary.compute_bound_time_s
                        ? Bound::kMemory
                        : Bound::kCompute;
  }
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
                               options.precision_source.empty()
                                   ? fmt::format("--precision {}", p->name)
                                   : options.precision_source};
    float_repricer.emplace(*p);
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
  analysis.layers.reserve(graph.topological_order().size() +
                          options.spare_layers);
  for (int n : graph.topological_order()) {
    const graph::Node& node = graph.node(n);
    LayerResult layer;
    layer.node = n;
    layer.name = node.name;
    layer.op_type = node.op_type;
    layer.domain = node.domain;
    if (options.describe_tensors) {
      layer.inputs = Describe(graph, node.inputs);
      layer.outputs = Describe(graph, node.outputs);
    }
    absl::StatusOr<Cost> cost = registry.Count(graph, n, *pricer);
    if (!cost.ok()) {
      layer.skipped = true;
      summary.skipped_layers.push_back({FirstUnresolvedTensor(graph, node),
                                        node.name,
                                        std::string(MessageOf(cost.status()))});
    } else {
      layer.cost = *cost;
      if (auto it = options.row_share.find(n); it != options.row_share.end()) {
        KeepRows(it->second, &layer.cost);
      }
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

  // The runtime: a profile, or the flat roofline of the options.
  const Runtime flat =
      FlatRuntime(options.compute_efficiency, options.memory_efficiency,
                  options.per_layer_tax_s);
  const Runtime& runtime = options.runtime != nullptr ? *options.runtime : flat;
  PricingOverrides overrides = options.overrides;
  if (options.dispatch_tax_s)
    overrides.per_inference_s = options.dispatch_tax_s;
  analysis.pricing = MakePricing(hardware, runtime, peak.key, peak.flops_per_s,
                                 options.flops_per_mac, overrides);
  analysis.pricing.weight_only = options.weight_only;
  const Pricing& pricing = analysis.pricing;

  Assumptions& a = analysis.assumptions;
  a.flops_per_mac = options.flops_per_mac;
  if (runtime.size_aware) {
    a.compute_efficiency = pricing.model.matrix_efficiency;
    a.memory_efficiency = pricing.model.memory_efficiency;
    a.per_layer_tax_s = 0;
    a.kernel_model =
        pricing.model.fitted
            ? fmt::format("size-aware, constants fitted for {}", hardware.name)
            : fmt::format(
                  "size-aware, default constants ({} "
                  "has no fitted kernel_model)",
                  hardware.name);
    if (pricing.model.sustained_matrix_fraction < 1) {
      a.kernel_model += fmt::format(
          "; matrix and attention kernels at most {:g} x peak (the device's "
          "power cap: sustained_matrix_fraction)",
          pricing.model.sustained_matrix_fraction);
    }
  } else {
    a.compute_efficiency = pricing.runtime.flat_compute_efficiency;
    a.memory_efficiency = pricing.runtime.flat_memory_efficiency;
    a.per_layer_tax_s = pricing.runtime.per_node_tax_s;
    a.kernel_model = "flat: max(FLOPs/(peak*e_c), bytes/(BW*e_m)) + tax";
  }
  a.dispatch_tax_s = pricing.per_inference_s;
  a.runtime = runtime.key;
  a.runtime_name = runtime.name;
  a.precision = options.precision.empty() ? "model dtypes" : options.precision;
  if (!options.precision.empty()) {
    a.precision_source = options.precision_source.empty()
                             ? "--precision"
                             : options.precision_source;
  }
  a.peak_precision = peak.key;
  a.peak_reason = peak.reason;
  a.peak_flops_per_s = peak.flops_per_s;
  a.memory_bandwidth_bytes_per_s = hardware.memory_bandwidth_bytes_per_s;

  // Pass 2: the kernels the runtime launches, each timed once.
  const std::vector<bool> host = runtime.host_shape_ops
                                     ? FindHostNodes(graph)
                                     : std::vector<bool>(graph.nodes().size());
  const std::vector<bool> strided =
      runtime.strided_views ? FindStridedViews(graph)
                            : std::vector<bool>(graph.nodes().size());
  std::vector<int> layer_of(graph.nodes().size(), -1);
  for (size_t i = 0; i < analysis.layers.size(); ++i) {
    layer_of[analysis.layers[i].node] = static_cast<int>(i);
  }
  FusionPlan plan;
  if (runtime.fusion.any()) {
    absl::StatusOr<FusionPlan> planned =
        PlanFusion(graph, runtime.fusion, options.fusion_barriers);
    if (!planned.ok()) return planned.status();
    plan = *std::move(planned);
  }
  // A group with a skipped member stays unfused; host members leave it.
  std::vector<bool> group_ok(plan.groups.size(), true);
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    for (int m : plan.groups[g].members) {
      const int li = layer_of[m];
      if (li < 0 || analysis.layers[li].skipped) group_ok[g] = false;
    }
  }
  std::vector<int> kernel_of_group(plan.groups.size(), -1);
  for (LayerResult& layer : analysis.layers) {
    if (layer.skipped) continue;
    const Cost& c = layer.cost;
    layer.flops = c.Flops(options.flops_per_mac);
    layer.bytes = c.Bytes();
    layer.intensity = layer.bytes > 0 ? layer.flops / layer.bytes : 0;
    if (c.view) {
      ++summary.view_layers;
      continue;  // no work, no traffic, no kernel; bound stays kNone
    }
    if (strided[layer.node]) {
      ++summary.view_layers;
      continue;  // a strided view: no kernel, its consumers read through it
    }
    ++summary.layers;
    if (host[layer.node]) {
      layer.host = true;
      ++summary.host_layers;
      continue;
    }
    const int g = plan.group_of.empty() ? -1 : plan.group_of[layer.node];
    const int li = static_cast<int>(&layer - analysis.layers.data());
    if (g >= 0 && group_ok[g]) {
      if (kernel_of_group[g] < 0) {
        kernel_of_group[g] = static_cast<int>(analysis.kernels.size());
        KernelResult k;
        k.name = plan.groups[g].name;
        k.fusion = std::string(FusionKindName(plan.groups[g].kind));
        k.anchor = plan.groups[g].anchor;
        analysis.kernels.push_back(std::move(k));
      }
      layer.kernel = kernel_of_group[g];
      analysis.kernels[layer.kernel].layers.push_back(li);
      continue;
    }
    KernelResult k;
    k.name = layer.name.empty() ? layer.op_type : layer.name;
    k.anchor = layer.node;
    k.layers.push_back(li);
    k.work = NodeKernelWork(graph.node(layer.node), c, options.flops_per_mac);
    if (runtime.kv_append_in_place && IsKvAppend(graph, layer.node)) {
      k.fusion = "kv-append";
      k.work.bytes = KvAppendBytes(graph, layer.node, *pricer);
    }
    layer.kernel = static_cast<int>(analysis.kernels.size());
    analysis.kernels.push_back(std::move(k));
  }
  // Fused kernels: members' FLOPs, the boundary bytes of their device
  // members (host members left out).
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    if (kernel_of_group[g] < 0) continue;
    std::vector<int> device_members;
    for (int m : plan.groups[g].members) {
      if (!host[m]) device_members.push_back(m);
    }
    analysis.kernels[kernel_of_group[g]].work =
        FusedKernelOf(graph, plan.groups[g], device_members, analysis.layers,
                      layer_of, *pricer, options.flops_per_mac)
            .work;
  }

  if (runtime.kv_append_in_place) {
    FoldKvAppends(graph, layer_of, analysis.layers, &analysis.kernels);
  }
  if (runtime.attention_prologue_fused) {
    FoldAttentionPrologues(graph, layer_of, analysis.layers, &analysis.kernels);
  }
  if (runtime.fuse_sibling_gemms) {
    MergeSiblingGemms(graph, *pricer, &analysis.kernels);
  }
  if (runtime.dynamic_activation_quantization && options.weight_only.empty() &&
      (peak.key == "fp8" || peak.key == "int8")) {
    AddActivationQuantizeKernels(&analysis.kernels);
  }
  // A layer's kernel is the last one holding it (the GEMM after its
  // activation-quantize kernel).
  for (size_t i = 0; i < analysis.kernels.size(); ++i) {
    for (int li : analysis.kernels[i].layers) {
      analysis.layers[li].kernel = static_cast<int>(i);
    }
  }

  summary.params = graph.ParameterCount();
  summary.active_params = ActiveParameterCount(graph);  // MoE: k of E experts
  for (const graph::Tensor& t : graph.tensors()) {
    if (graph.IsWeight(t)) {
      summary.weight_bytes += pricer->TensorBytes(graph, t);
    }
  }
  summary.per_inference_s = a.dispatch_tax_s;
  // Tensors inside one fused kernel never reach device memory.
  std::vector<int> fused_group_of(graph.nodes().size(), -1);
  for (size_t n = 0; n < plan.group_of.size(); ++n) {
    const int g = plan.group_of[n];
    if (g >= 0 && group_ok[g] && !host[n]) fused_group_of[n] = g;
  }
  summary.peak_activation_bytes =
      PeakActivationBytes(graph, *pricer, is_view, &fused_group_of);
  a.l2_cache_bytes = ModelledL2Bytes(runtime, hardware);
  if (a.l2_cache_bytes > 0) {
    a.l2_weights_resident = WeightsStayInL2(
        TouchedWeightBytes(graph, *pricer, layer_of, analysis.layers),
        summary.peak_activation_bytes, a.l2_cache_bytes);
    AssignL2Residency(graph, *pricer, a.l2_cache_bytes, a.l2_weights_resident,
                      runtime.kv_append_in_place, analysis.layers,
                      &analysis.kernels);
  }
  TimeKernels(&analysis);
  summary.fits_in_memory =
      summary.weight_bytes + summary.peak_activation_bytes <=
      hardware.memory_capacity_bytes;
  return analysis;
}

}  // namespace ridgeline::engine
