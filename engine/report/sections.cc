#include "engine/report/sections.h"

#include <algorithm>
#include <map>

#include "engine/report/units.h"
#include "fmt/format.h"
#include "graph/dtype.h"
#include "graph/list_some.h"

namespace ridgeline::engine::report {
namespace {

using graph::ListSome;

std::string Overrides(const absl::flat_hash_map<std::string, double>& by_op) {
  std::map<std::string, double> sorted(by_op.begin(), by_op.end());
  std::string out;
  for (const auto& [op, e] : sorted) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", op, FormatNumber(e));
  }
  return out;
}

}  // namespace

double RidgePoint(const Analysis& a) {
  return a.assumptions.peak_flops_per_s /
         a.assumptions.memory_bandwidth_bytes_per_s;
}

double EffectiveRidgePoint(const Analysis& a) {
  return (a.assumptions.compute_efficiency * a.assumptions.peak_flops_per_s) /
         (a.assumptions.memory_efficiency *
          a.assumptions.memory_bandwidth_bytes_per_s);
}

Items SummaryItems(const Analysis& a) {
  const Summary& s = a.summary;
  const Assumptions& as = a.assumptions;
  Items items;
  items.emplace_back("model", fmt::format("{} (batch {})", a.model, a.batch));
  items.emplace_back("hardware",
                     fmt::format("{} ({})", a.hardware.name, a.hardware.key));
  items.emplace_back("latency",
                     fmt::format("{} ({} kernels {} + per inference {}; "
                                 "overhead {} of it)",
                                 FormatSeconds(s.latency_s), s.kernels,
                                 FormatSeconds(s.latency_s - as.dispatch_tax_s),
                                 FormatSeconds(as.dispatch_tax_s),
                                 FormatShare(s.overhead_s, s.latency_s)));
  items.emplace_back("throughput",
                     fmt::format("{} samples/s (batch {} / latency)",
                                 FormatNumber(s.throughput_per_s), a.batch));
  items.emplace_back(
      "compute",
      fmt::format("{} ({} x {:g} FLOP/MAC + {} non-MAC)",
                  FormatSi(s.flops, "FLOP"), FormatSi(s.macs, "MAC"),
                  as.flops_per_mac,
                  FormatSi(s.flops - s.macs * as.flops_per_mac, "FLOP")));
  items.emplace_back(
      "memory traffic",
      s.l2_bytes > 0
          ? fmt::format("{} (bytes read + written by all layers; {} of the "
                        "kernels' bytes served by the L2)",
                        FormatSi(s.bytes, "B"), FormatSi(s.l2_bytes, "B"))
          : fmt::format("{} (bytes read + written by all layers)",
                        FormatSi(s.bytes, "B")));
  items.emplace_back("intensity",
                     s.bytes > 0
                         ? fmt::format("{} FLOP/B (model FLOPs / model bytes)",
                                       FormatNumber(s.flops / s.bytes))
                         : "-");
  items.emplace_back(
      "MFU",
      fmt::format(
          "{} (achieved {} over the {} peak {})", FormatPercent(s.mfu),
          FormatSi(s.latency_s > 0 ? s.flops / s.latency_s : 0, "FLOP/s"),
          as.peak_precision, FormatSi(as.peak_flops_per_s, "FLOP/s")));
  const double layer_time = s.compute_bound_time_s + s.memory_bound_time_s;
  const double bound_time = s.bound == Bound::kCompute ? s.compute_bound_time_s
                                                       : s.memory_bound_time_s;
  items.emplace_back(
      "bound", s.bound == Bound::kNone
                   ? "none"
                   : fmt::format("{} ({} of layer time)", BoundName(s.bound),
                                 FormatShare(bound_time, layer_time)));
  items.emplace_back(
      "layers",
      fmt::format("{} non-view ({} on the host: shape arithmetic), {} "
                  "kernels, {} zero-latency views, {} skipped",
                  s.layers, s.host_layers, s.kernels, s.view_layers,
                  s.skipped_layers.size()));
  items.emplace_back("parameters",
                     fmt::format("{} (elements of the weights)",
                                 FormatSi(static_cast<double>(s.params), "")));
  if (s.active_params != s.params) {
    items.emplace_back(
        "active parameters",
        fmt::format("{} per token (mixture of experts: k of E experts per "
                    "layer); routed tokens read only their experts' weights",
                    FormatSi(static_cast<double>(s.active_params), "")));
  }
  items.emplace_back("weights", FormatSi(s.weight_bytes, "B"));
  items.emplace_back("peak activations",
                     fmt::format("{} (tensor lifetimes in topological order)",
                                 FormatSi(s.peak_activation_bytes, "B")));
  const double capacity_gib =
      a.hardware.memory_capacity_bytes / (1024.0 * 1024 * 1024);
  if (s.parallel) {
    // Sharded: what must fit is one GPU's share, not the whole model.
    const ParallelSummary& p = *s.parallel;
    items.emplace_back(
        "fits in memory",
        fmt::format(
            "{} on each of the {} GPUs: its weights {} + peak activations {} "
            "(unsharded, an upper bound) = {} of {} ({:.4g} GiB); the whole "
            "model's {} {} one",
            p.fits_in_memory_per_gpu ? "yes" : "NO", p.gpus,
            FormatSi(p.weight_bytes_per_gpu, "B"),
            FormatSi(s.peak_activation_bytes, "B"),
            FormatSi(p.weight_bytes_per_gpu + s.peak_activation_bytes, "B"),
            FormatSi(a.hardware.memory_capacity_bytes, "B"), capacity_gib,
            FormatSi(s.weight_bytes + s.peak_activation_bytes, "B"),
            s.fits_in_memory ? "would fit" : "would not fit"));
  } else {
    items.emplace_back(
        "fits in memory",
        fmt::format("{}: weights + peak activations = {} of {} ({:.4g} GiB)",
                    s.fits_in_memory ? "yes" : "NO",
                    FormatSi(s.weight_bytes + s.peak_activation_bytes, "B"),
                    FormatSi(a.hardware.memory_capacity_bytes, "B"),
                    capacity_gib));
  }
  if (s.parallel) {
    const ParallelSummary& p = *s.parallel;
    items.emplace_back(
        "GPUs",
        fmt::format("{} (tensor parallel {} x pipeline {}{}; {} transformer "
                    "layers; layer rows are one GPU's kernels); {}",
                    p.gpus, p.tp, p.pp,
                    p.ep > 1
                        ? fmt::format(" x expert parallel {}: {} experts "
                                      "per GPU in each of {} MoE layers, "
                                      "attention data-parallel",
                                      p.ep, p.experts_per_gpu, p.moe_layers)
                        : "",
                    p.transformer_layers, p.interconnect));
    items.emplace_back("collectives",
                       fmt::format("{} layers, {} of the latency ({})",
                                   p.collectives, FormatSeconds(p.collective_s),
                                   FormatShare(p.collective_s, s.latency_s)));
    items.emplace_back("LM head", p.lm_head);
    items.emplace_back(
        "weights per GPU",
        fmt::format("{} ({} parameters; fits with the peak activations: "
                    "{})",
                    FormatSi(p.weight_bytes_per_gpu, "B"),
                    FormatSi(static_cast<double>(p.params_per_gpu), ""),
                    p.fits_in_memory_per_gpu ? "yes" : "NO"));
    if (p.pp > 1) {
      std::string stages;
      for (double t : p.stage_latency_s) {
        stages += (stages.empty() ? "" : ", ") + FormatSeconds(t);
      }
      items.emplace_back(
          "pipeline",
          fmt::format("stages {}; {} micro-batches: {} in all, bubble {}, "
                      "{} samples/s",
                      stages, p.microbatches,
                      FormatSeconds(p.pipeline_latency_s),
                      FormatPercent(p.bubble_fraction),
                      FormatNumber(p.throughput_per_s)));
    }
  }
  return items;
}

Items RooflineItems(const Analysis& a) {
  const Summary& s = a.summary;
  const Assumptions& as = a.assumptions;
  const double layer_time = s.compute_bound_time_s + s.memory_bound_time_s;
  Items items;
  items.emplace_back(
      "ridge point",
      fmt::format("{} FLOP/B ({} peak {} / bandwidth {})",
                  FormatNumber(RidgePoint(a)), as.peak_precision,
                  FormatSi(as.peak_flops_per_s, "FLOP/s"),
                  FormatSi(as.memory_bandwidth_bytes_per_s, "B/s")));
  items.emplace_back(
      "effective ridge point",
      fmt::format("{} FLOP/B ({:g} x peak / ({:g} x bandwidth)); layers "
                  "below it are memory-bound",
                  FormatNumber(EffectiveRidgePoint(a)), as.compute_efficiency,
                  as.memory_efficiency));
  items.emplace_back(
      "memory-bound layers",
      fmt::format("{} ({}, {} of layer time)", s.memory_bound_layers,
                  FormatSeconds(s.memory_bound_time_s),
                  FormatShare(s.memory_bound_time_s, layer_time)));
  items.emplace_back(
      "compute-bound layers",
      fmt::format("{} ({}, {} of layer time)", s.compute_bound_layers,
                  FormatSeconds(s.compute_bound_time_s),
                  FormatShare(s.compute_bound_time_s, layer_time)));
  items.emplace_back(
      "overhead-dominated",
      fmt::format("{} of these layers ({}, {} of layer time; "
                  "fixed kernel cost, launch or tax exceeds "
                  "both roofline terms)",
                  s.overhead_bound_layers,
                  FormatSeconds(s.overhead_bound_time_s),
                  FormatShare(s.overhead_bound_time_s, layer_time)));
  return items;
}

Items AssumptionItems(const Analysis& a) {
  const Assumptions& as = a.assumptions;
  const Hardware& hw = a.hardware;
  Items items;
  items.emplace_back(
      "FLOPs per MAC",
      fmt::format("{:g} ({}; --flops-per-mac)", as.flops_per_mac,
                  as.flops_per_mac == 2
                      ? "1 multiply-accumulate = 2 FLOPs, the vendors' peak "
                        "convention"
                      : "1 multiply-accumulate = 1 FLOP, the MAC-count "
                        "convention"));
  items.emplace_back("runtime", fmt::format("{} ({}; --runtime)", as.runtime,
                                            as.runtime_name));
  items.emplace_back("kernel model", as.kernel_model);
  if (as.l2_cache_bytes > 0) {
    items.emplace_back(
        "L2 cache",
        fmt::format(
            "{} usable; activations still in it and writes read back from it "
            "move at {:g}x the bandwidth; weights {} (README, L2 residency)",
            FormatSi(as.l2_cache_bytes, "B"), kL2BandwidthFactor,
            as.l2_weights_resident
                ? "stay in it across inferences (weights + peak activations "
                  "fit)"
                : "come from DRAM"));
  } else if (a.pricing.runtime.size_aware) {
    items.emplace_back("L2 cache",
                       fmt::format("not modelled: {} gives no l2_cache_bytes, "
                                   "so every byte comes from DRAM",
                                   hw.key));
  }
  std::string ce =
      fmt::format("{:g} of peak (--efficiency)", as.compute_efficiency);
  if (!hw.compute_efficiency_by_op.empty()) {
    ce += "; per op from the hardware entry: " +
          Overrides(hw.compute_efficiency_by_op);
  }
  items.emplace_back("compute efficiency", ce);
  std::string me = fmt::format("{:g} of bandwidth (--memory-efficiency)",
                               as.memory_efficiency);
  if (!hw.memory_efficiency_by_op.empty()) {
    me += "; per op from the hardware entry: " +
          Overrides(hw.memory_efficiency_by_op);
  }
  items.emplace_back("memory efficiency", me);
  if (as.per_layer_tax_s > 0) {
    items.emplace_back("per-layer tax",
                       fmt::format("{} per non-view layer (--layer-tax-us)",
                                   FormatSeconds(as.per_layer_tax_s)));
  }
  items.emplace_back(
      "dispatch tax",
      fmt::format("{} once per inference ({})",
                  FormatSeconds(as.dispatch_tax_s),
                  as.dispatch_tax_s == hw.dispatch_tax_s
                      ? "from the hardware entry; --dispatch-tax-us"
                      : "--dispatch-tax-us"));
  items.emplace_back(
      "precision",
      as.precision == "model dtypes"
          ? "model dtypes (tensors priced at their own element sizes)"
      : as.precision == "fp8"
          ? std::string("fp8 (weights and KV cache at 1 byte, the other "
                        "floating tensors at 2: the FP8 recipe of LLM "
                        "runtimes)")
          : fmt::format("{} (every floating tensor re-priced at its "
                        "element size){}",
                        as.precision,
                        as.precision_source.empty() ||
                                as.precision_source == "--precision"
                            ? ""
                            : fmt::format("; {}", as.precision_source)));
  items.emplace_back(
      "peak",
      fmt::format("{} = {} (dense; {})", as.peak_precision,
                  FormatSi(as.peak_flops_per_s, "FLOP/s"), as.peak_reason));
  items.emplace_back("memory bandwidth",
                     FormatSi(as.memory_bandwidth_bytes_per_s, "B/s"));
  items.emplace_back(
      "timing model",
      a.pricing.runtime.size_aware
          ? "kernels of the runtime (fusion, host shape ops, in-place KV "
            "append); matrix: max(C', M) + (1-overlap) min(C', M) + fixed, "
            "C' with tile/wave quantization; attention: its blocks' waves and "
            "KV loop, the softmax's exponentials where the device gives their "
            "rate, and a causal kernel's score tiles only; memory kernels: "
            "max(C, M) + fixed; then launch "
            "(max) or CUDA-graph gap (+); model = sum of "
            "kernels + per-inference cost (README, Execution model)"
          : "latency = max(T_compute, T_memory) + per-layer tax; T_compute = "
            "FLOPs / (efficiency x peak); T_memory = bytes / (memory "
            "efficiency x bandwidth); model = sum of layers + dispatch tax");
  items.emplace_back("hardware source",
                     hw.source.empty() ? "(not given)" : hw.source);
  return items;
}

std::vector<std::string> WarningLines(const Analysis& a) {
  const Summary& s = a.summary;
  std::vector<std::string> lines;
  if (!s.unknown_ops.empty()) {
    lines.push_back(fmt::format(
        "{} op type(s) have no counter (0 FLOPs, bytes of their tensors): {}",
        s.unknown_ops.size(), ListSome(s.unknown_ops, 10)));
  }
  if (!s.unresolved.empty()) {
    std::vector<std::string> names;
    for (const auto& u : s.unresolved) {
      names.push_back(fmt::format("{} ({})", u.tensor, u.reason));
    }
    lines.push_back(fmt::format("{} tensor shape(s) unresolved: {}",
                                s.unresolved.size(), ListSome(names, 5)));
  }
  // One entry per distinct note, with the layers that carry it: a note
  // repeated on 248 layers is one entry, not 248.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> layers_of;
  size_t approximate = 0;
  for (const LayerResult& l : a.layers) {
    if (l.cost.note.empty() || l.cost.unknown || l.cost.view) continue;
    ++approximate;
    auto [it, added] = layers_of.try_emplace(l.cost.note);
    if (added) order.push_back(l.cost.note);
    it->second.push_back(l.name);
  }
  if (approximate > 0) {
    std::vector<std::string> notes;
    for (const std::string& note : order) {
      const std::vector<std::string>& names = layers_of[note];
      notes.push_back(names.size() == 1
                          ? fmt::format("{}: {}", names[0], note)
                          : fmt::format("{} ({} layers: {})", note,
                                        names.size(), ListSome(names, 3)));
    }
    lines.push_back(fmt::format("{} layer count(s) are approximate: {}",
                                approximate, ListSome(notes, 5)));
  }
  if (!s.skipped_layers.empty()) {
    std::vector<std::string> names;
    for (const auto& u : s.skipped_layers) {
      names.push_back(fmt::format("{} ({})", u.node, u.reason));
    }
    lines.push_back(fmt::format(
        "{} layer(s) skipped, their time is missing from every total: {}",
        s.skipped_layers.size(), ListSome(names, 5)));
  }
  return lines;
}

}  // namespace ridgeline::engine::report
