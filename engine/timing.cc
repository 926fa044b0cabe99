#include "engine/timing.h"

#include <algorithm>
#include <cmath>

namespace ridgeline::engine {
namespace {

double Lookup(const absl::flat_hash_map<std::string, double>& by_op,
              const std::string& op_type, double fallback) {
  auto it = by_op.find(op_type);
  return it == by_op.end() || !(it->second > 0) ? fallback : it->second;
}

double ClassFactor(const Runtime& runtime, KernelClass kind) {
  const char* name = kind == KernelClass::kReduction  ? "reduction"
                     : kind == KernelClass::kMovement ? "movement"
                                                      : "elementwise";
  auto it = runtime.memory_efficiency_by_class.find(name);
  return it == runtime.memory_efficiency_by_class.end() ? 1.0 : it->second;
}

// Smallest power-of-two tile edge in [16, 128] that covers `extent`; past
// 128, a 64 edge where it pads less than 128 does (131 rows: 3 x 64 = 192,
// not 2 x 128 = 256; GEMM libraries ship 64-row and 64-column tiles).
double TileEdge(double extent) {
  double edge = 16;
  while (edge < extent && edge < 128) edge *= 2;
  if (extent > 128 &&
      std::ceil(extent / 64) * 64 < std::ceil(extent / 128) * 128) {
    return 64;
  }
  return edge;
}

// The parts of a kernel's bytes: weights and the rest, each split into
// DRAM and L2 bytes.
struct ByteParts {
  double weights = 0;
  double others = 0;
  double l2_weights = 0;
  double l2_others = 0;
};
ByteParts SplitBytes(const KernelWork& w) {
  ByteParts p;
  p.weights = std::clamp(w.weight_bytes, 0.0, std::max(0.0, w.bytes));
  p.others = std::max(0.0, w.bytes - p.weights);
  p.l2_others = p.others * std::clamp(w.l2_activation_share, 0.0, 1.0);
  p.l2_weights = w.l2_weights ? p.weights : 0;
  return p;
}

// Seconds to move a kernel's bytes at `attainable` bytes/s: weights at
// `weight_factor` times it (weight-only int8/int4 kernels), bytes the L2
// serves at kL2BandwidthFactor times.
double MemorySeconds(const KernelWork& w, double attainable,
                     double weight_factor) {
  const ByteParts p = SplitBytes(w);
  return (p.others - p.l2_others) / attainable +
         p.l2_others / (attainable * kL2BandwidthFactor) +
         (p.weights - p.l2_weights) / (attainable * weight_factor) +
         p.l2_weights / (attainable * weight_factor * kL2BandwidthFactor);
}

// max(a, b) plus the part of the smaller one that is not hidden.
double Overlap(double a, double b, double overlap) {
  return std::max(a, b) + (1 - overlap) * std::min(a, b);
}

// What the host GEMM model of a flat runtime (Runtime::host_gemm; the
// formula is in engine/runtime.h) adds to the flat roofline: staging the
// right operand (packing, im2col) and the library calls beyond the first.
double HostGemmExtraSeconds(const GemmShape& g, const HostGemmModel& h,
                            double bw) {
  // The library's rows and columns: a convolution is W [n x k] x columns
  // [k x m] per group, a matrix product A [m x k] x B [k x n].
  const double rows = g.conv ? g.n : g.m;
  const double cols = g.conv ? g.m : g.n;
  const double right = g.k * cols * g.batch * g.element_bytes;
  const bool one_row = rows == 1 || cols == 1;  // MLAS's M == 1 kernel
  const double packed = one_row || (!g.conv && g.b_is_weight) ? 0 : right;
  const double expanded = g.expanded ? right : 0;
  const double staging =
      (h.pack_passes * packed + h.expansion_passes * expanded) / bw;
  const double calls =
      one_row ? h.row_call_s * g.batch : h.call_s * (g.batch - 1);
  return staging + calls;
}

// The time of `flops` of matrix work at the rate the device's power cap
// allows with all its matrix units busy (KernelModel::
// sustained_matrix_fraction); 0 without a cap.
double PowerCappedSeconds(double flops, const Pricing& p) {
  const double fraction = p.model.sustained_matrix_fraction;
  if (!(fraction > 0) || fraction >= 1 || !(p.peak_flops_per_s > 0)) return 0;
  return flops / (p.peak_flops_per_s * fraction);
}

// Each split of a split-K GEMM keeps at least this much of K.
constexpr double kMinSplitK = 256;

// The exponent of a small tile's penalty (TileWaveEfficiency).
constexpr double kSmallTileExponent = 0.5;

// The share of `units` SMs busy over whole waves of `blocks` thread blocks.
double WaveEfficiency(double blocks, double units) {
  return blocks / (std::ceil(blocks / units) * units);
}

}  // namespace

std::string_view KernelClassName(KernelClass c) {
  switch (c) {
    case KernelClass::kMatrix:
      return "matrix";
    case KernelClass::kAttention:
      return "attention";
    case KernelClass::kElementwise:
      return "elementwise";
    case KernelClass::kReduction:
      return "reduction";
    case KernelClass::kMovement:
      return "movement";
    case KernelClass::kCollective:
      return "collective";
  }
  return "elementwise";
}

std::string_view RegimeName(Regime r) {
  switch (r) {
    case Regime::kCompute:
      return "compute";
    case Regime::kMemory:
      return "memory";
    case Regime::kNone:
      return "none";
  }
  return "none";
}

Pricing MakePricing(const Hardware& hardware, const Runtime& runtime,
                    std::string_view peak_precision, double peak_flops_per_s,
                    double flops_per_mac, const PricingOverrides& overrides) {
  Pricing p;
  p.runtime = runtime;
  p.model = hardware.kernel_model.ForPrecision(peak_precision);
  p.peak_flops_per_s = peak_flops_per_s;
  p.flops_per_mac = flops_per_mac;
  p.memory_bandwidth_bytes_per_s = hardware.memory_bandwidth_bytes_per_s;
  p.vector_flops_per_s = p.model.vector_flops_per_s;
  p.interconnect = hardware.interconnect;
  // Measured NCCL curves are what a real runtime's collectives do; a flat
  // runtime (mlsysim) reproduces its tool's ring formulas.
  if (!runtime.size_aware) p.interconnect.measured_collectives.clear();
  if (!(p.vector_flops_per_s > 0)) {
    absl::StatusOr<double> fp32 = hardware.PeakFlops("fp32");
    p.vector_flops_per_s =
        fp32.ok() ? std::min(*fp32, peak_flops_per_s) : peak_flops_per_s;
  }
  if (runtime.size_aware) {
    if (overrides.compute_efficiency) {
      p.model.matrix_efficiency = *overrides.compute_efficiency;
      p.model.attention_efficiency = *overrides.compute_efficiency;
    }
    if (overrides.memory_efficiency) {
      p.model.memory_efficiency = *overrides.memory_efficiency;
      p.model.attention_memory_efficiency = *overrides.memory_efficiency;
    }
    if (overrides.per_node_tax_s) {
      p.runtime.kernel_launch_s = *overrides.per_node_tax_s;
      p.runtime.cuda_graphs = false;
    }
  } else {
    if (overrides.compute_efficiency) {
      p.runtime.flat_compute_efficiency = *overrides.compute_efficiency;
      if (p.runtime.host_gemm) {
        p.runtime.host_gemm->matrix_efficiency = *overrides.compute_efficiency;
      }
    }
    if (overrides.memory_efficiency) {
      p.runtime.flat_memory_efficiency = *overrides.memory_efficiency;
    }
    if (overrides.per_node_tax_s) {
      p.runtime.per_node_tax_s = *overrides.per_node_tax_s;
    }
    p.compute_efficiency_by_op = hardware.compute_efficiency_by_op;
    p.memory_efficiency_by_op = hardware.memory_efficiency_by_op;
  }
  p.per_inference_s = overrides.per_inference_s.value_or(
      runtime.per_inference_s.value_or(hardware.dispatch_tax_s));
  return p;
}

double TileWaveEfficiency(const GemmShape& gemm, int compute_units,
                          bool tensor_tiles, double wave_quantization,
                          double k_overhead) {
  if (!(gemm.batch > 0) || !(gemm.m > 0) || !(gemm.n > 0)) return 1;
  // A block's main loop over k_block elements of K, plus its fill, drain
  // and epilogue (k_overhead elements' worth).
  auto k_loop = [&](double splits) {
    const double k_block = gemm.k / splits;
    return k_overhead > 0 && k_block > 0 ? k_block / (k_block + k_overhead)
                                         : 1.0;
  };
  // One tile shape: its padding, its blocks' waves, their K loop.
  auto with_tile = [&](double tm, double tn) {
    const double rows = std::ceil(gemm.m / tm);
    const double cols = std::ceil(gemm.n / tn);
    const double q_tile =
        tensor_tiles ? (gemm.m * gemm.n) / (rows * tm * cols * tn) : 1.0;
    if (compute_units <= 0) return q_tile * k_loop(1);
    const double units = compute_units;
    const double tiles = gemm.batch * rows * cols;
    // Too few tiles to fill the device: libraries split K across more
    // blocks (split-K / stream-K), as long as each split keeps
    // kMinSplitK of K.
    double splits = 1;
    if (tiles < units) {
      splits = std::max(1.0, std::min(std::floor(units / tiles),
                                      std::floor(gemm.k / kMinSplitK)));
    }
    const double q_wave = WaveEfficiency(tiles * splits, units);
    const double q_k = k_loop(splits);
    if (wave_quantization >= 1) return q_tile * q_wave * q_k;
    return q_tile * std::pow(q_wave, std::max(0.0, wave_quantization)) * q_k;
  };
  const double m_edge = TileEdge(gemm.m);
  const double n_edge = TileEdge(gemm.n);
  // A tile is chosen to fill the device only where partial waves cost
  // (wave_quantization > 0; the Hopper bf16 fits find they do not), and
  // for GEMMs: the evidence is cuBLAS GEMM tables, and a convolution's
  // tile is the covering one (README, Execution model).
  if (!tensor_tiles || compute_units <= 0 || !(wave_quantization > 0) ||
      gemm.conv) {
    return with_tile(m_edge, n_edge);
  }
  // The library picks its tile per shape (cuBLAS/CUTLASS heuristics): the
  // best of the covering edges and 64 x 64 to 128 x 256 tiles. A smaller
  // tile does less MMA work per operand byte it loads (tm tn / (tm + tn),
  // 64 for 128 x 128) and runs at (that / the same for the largest tile the
  // problem allows)^kSmallTileExponent of the peak, at most 1: an m or n of
  // 64 or less makes that edge small itself, unpenalized.
  auto work_per_byte = [](double tm, double tn) {
    tm = std::min(tm, 128.0);
    return tm * tn / (tm + tn);
  };
  const double reference =
      work_per_byte(gemm.m <= 64 ? m_edge : 128, gemm.n <= 64 ? n_edge : 128);
  double best = 0;
  for (const double tm : {m_edge, 64.0, 128.0, 256.0}) {
    if (gemm.m <= 64 && tm != m_edge) continue;
    for (const double tn : {n_edge, 64.0, 128.0, 256.0}) {
      if (tm * tn > 128.0 * 256.0) continue;
      if (gemm.n <= 64 && tn != n_edge) continue;
      const double penalty = std::min(
          1.0, std::pow(work_per_byte(tm, tn) / reference, kSmallTileExponent));
      best = std::max(best, penalty * with_tile(tm, tn));
    }
  }
  return best;
}

double AttentionTileEfficiency(const GemmShape& scores, double score_share,
                               int compute_units, double kv_overhead) {
  if (!(scores.batch > 0) || !(scores.m > 0) || !(scores.n > 0)) return 1;
  double q_wave = 1;
  if (compute_units > 0) {
    q_wave =
        WaveEfficiency(scores.batch * std::ceil(scores.m / kAttentionQueryTile),
                       compute_units);
  }
  const double kv = scores.n * std::clamp(score_share, 0.0, 1.0);
  const double q_kv = kv_overhead > 0 && kv > 0 ? kv / (kv + kv_overhead) : 1;
  return q_wave * q_kv;
}

double AttentionExpSeconds(const KernelWork& work, const KernelModel& m) {
  const GemmShape& g = work.gemm;
  if (!(m.attention_exp_per_s > 0) || !(g.batch > 0)) return 0;
  return g.batch * g.m * g.n *
         std::clamp(work.attention_score_share, 0.0, 1.0) /
         m.attention_exp_per_s;
}

KernelTime TimeKernel(const KernelWork& work, const Pricing& p) {
  KernelTime t;
  if (work.kind == KernelClass::kCollective) {
    // Errors (no link data) are caught when the collective is planned
    // (engine/parallel/sharding.cc); an unpriceable one costs nothing here.
    absl::StatusOr<CollectiveTime> c = TimeCollective(
        work.collective, p.interconnect, p.runtime.custom_all_reduce);
    if (!c.ok()) return t;
    t.t_memory_s = c->bandwidth_s;
    t.t_overhead_s = c->latency_s;
    t.latency_s = c->total_s;
    t.memory_efficiency = 1;
    t.regime = t.latency_s > 0 ? Regime::kMemory : Regime::kNone;
    return t;
  }
  const double flops = work.Flops();
  const Runtime& r = p.runtime;
  const double bw = p.memory_bandwidth_bytes_per_s;

  if (!r.size_aware) {
    // The host GEMM model times every contraction (depthwise convolutions,
    // class elementwise, included) unless --fit gave its op an efficiency.
    const bool host_gemm = r.host_gemm &&
                           work.kind != KernelClass::kAttention &&
                           work.gemm.batch > 0 && work.gemm.element_bytes > 0 &&
                           !p.compute_efficiency_by_op.contains(work.op_type);
    t.compute_efficiency =
        host_gemm ? r.host_gemm->matrix_efficiency
                  : Lookup(p.compute_efficiency_by_op, work.op_type,
                           r.flat_compute_efficiency);
    t.memory_efficiency = Lookup(p.memory_efficiency_by_op, work.op_type,
                                 r.flat_memory_efficiency);
    t.t_compute_s = flops / (p.peak_flops_per_s * t.compute_efficiency);
    t.t_memory_s = work.bytes / (bw * t.memory_efficiency);
    t.t_overhead_s =
        r.per_node_tax_s +
        (host_gemm ? HostGemmExtraSeconds(work.gemm, *r.host_gemm, bw) : 0);
    t.latency_s = std::max(t.t_compute_s, t.t_memory_s) + t.t_overhead_s;
    t.regime =
        t.t_memory_s > t.t_compute_s ? Regime::kMemory : Regime::kCompute;
    return t;
  }

  if (!(flops > 0) && !(work.bytes > 0)) return t;  // no work, no kernel
  const KernelModel& m = p.model;
  double device = 0;
  // The fixed device time: the matrix kernel's (a precision's, a runtime's
  // weight-only kernel's), attention's, or a memory-bound kernel's.
  double fixed_s = work.kind == KernelClass::kMatrix ? m.MatrixFixedSeconds()
                   : work.kind == KernelClass::kAttention
                       ? m.attention_kernel_fixed_s.value_or(m.kernel_fixed_s)
                       : m.memory_kernel_fixed_s;
  switch (work.kind) {
    case KernelClass::kMatrix: {
      t.compute_efficiency = m.matrix_efficiency;
      t.memory_efficiency = m.memory_efficiency;
      double weight_factor = 1;
      if (!p.weight_only.empty()) {
        auto it = r.weight_only_bandwidth.find(p.weight_only);
        if (it != r.weight_only_bandwidth.end()) weight_factor = it->second;
        if (auto f = r.weight_only_kernel_fixed_s.find(p.weight_only);
            f != r.weight_only_kernel_fixed_s.end() && work.weight_bytes > 0) {
          fixed_s = f->second;
        }
      }
      t.t_memory_s =
          MemorySeconds(work, bw * m.memory_efficiency, weight_factor);
      const double matrix_peak = p.peak_flops_per_s * m.matrix_efficiency;
      const double vector_s = work.other_flops / p.vector_flops_per_s;
      t.t_compute_s = work.matrix_flops / matrix_peak + vector_s;
      // Matrix work at a peak no higher than the vector units' runs on them
      // (fp32 without TF32): no MMA tiles to pad.
      t.tile_wave_efficiency = TileWaveEfficiency(
          work.gemm, m.compute_units, p.peak_flops_per_s > p.vector_flops_per_s,
          m.wave_quantization, m.matrix_k_overhead);
      const double compute_s =
          std::max(work.matrix_flops / (matrix_peak * t.tile_wave_efficiency),
                   PowerCappedSeconds(work.matrix_flops, p)) +
          vector_s;
      device = Overlap(compute_s, t.t_memory_s, m.matrix_overlap);
      break;
    }
    case KernelClass::kAttention: {
      t.compute_efficiency = m.attention_efficiency;
      t.memory_efficiency =
          m.attention_memory_efficiency.value_or(m.memory_efficiency);
      const double score_flops =
          flops * std::clamp(work.attention_score_share, 0.0, 1.0);
      const double attention_peak = p.peak_flops_per_s * m.attention_efficiency;
      const double capped_s = PowerCappedSeconds(score_flops, p);
      t.t_compute_s = std::max(score_flops / attention_peak, capped_s);
      t.tile_wave_efficiency =
          AttentionTileEfficiency(work.gemm, work.attention_score_share,
                                  m.compute_units, m.attention_kv_overhead);
      // The softmax's exponentials (one per computed score) beside the
      // matrix work, on the same thread blocks.
      const double exp_s = AttentionExpSeconds(work, m);
      const double compute_s =
          std::max(Overlap(score_flops / attention_peak, exp_s,
                           m.attention_exp_overlap) /
                       t.tile_wave_efficiency,
                   capped_s);
      t.t_memory_s = MemorySeconds(work, bw * t.memory_efficiency, 1);
      device = Overlap(compute_s, t.t_memory_s, m.matrix_overlap) +
               work.attention_blocks * m.attention_block_s.value_or(0);
      break;
    }
    default: {
      t.compute_efficiency = 1;
      t.memory_efficiency = m.memory_efficiency * ClassFactor(r, work.kind);
      t.t_compute_s = flops / p.vector_flops_per_s;
      t.t_memory_s = MemorySeconds(work, bw * t.memory_efficiency, 1);
      device = std::max(t.t_compute_s, t.t_memory_s);
      break;
    }
  }
  device += fixed_s;
  t.latency_s = r.cuda_graphs ? device + r.kernel_gap_s
                              : std::max(device, r.kernel_launch_s);
  const double roof = std::max(t.t_compute_s, t.t_memory_s);
  t.t_overhead_s = std::max(0.0, t.latency_s - roof);
  t.regime = t.t_memory_s > t.t_compute_s ? Regime::kMemory : Regime::kCompute;
  return t;
}

double L2Bytes(const KernelWork& work) {
  const ByteParts p = SplitBytes(work);
  return p.l2_others + p.l2_weights;
}

KernelTime BareRoofline(double flops, double bytes, double peak_flops_per_s,
                        double memory_bandwidth_bytes_per_s) {
  Pricing p;
  p.runtime = FlatRuntime(1.0, 1.0, 0.0);
  p.peak_flops_per_s = peak_flops_per_s;
  p.memory_bandwidth_bytes_per_s = memory_bandwidth_bytes_per_s;
  KernelWork w;
  w.matrix_flops = flops;
  w.bytes = bytes;
  KernelTime t = TimeKernel(w, p);
  if (!(peak_flops_per_s > 0)) t.t_compute_s = 0;
  if (!(memory_bandwidth_bytes_per_s > 0)) t.t_memory_s = 0;
  t.latency_s = std::max(t.t_compute_s, t.t_memory_s);
  return t;
}

}  // namespace ridgeline::engine
