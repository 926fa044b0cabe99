// The one timing function: turns a kernel's work into seconds on a device
// under a runtime profile. Analysis, fusion, quantization, sweeps, fitting,
// the measured comparison and the whole-model estimate all call TimeKernel.
//
//   engine::Pricing p = engine::MakePricing(hw, runtime, peak, overrides);
//   engine::KernelTime t = engine::TimeKernel(work, p);
//
// Size-aware model (runtime "efficiency_model": "size-aware"):
//   matrix      T = max(C', M) + (1 - overlap) * min(C', M) + fixed
//               C' = matrix FLOPs / (peak * e_matrix * q_tile * q_wave^w
//                    * q_k) + other FLOPs / vector peak
//               w = the device's wave_quantization (its precision's)
//               q_k = k_block / (k_block + the device's matrix_k_overhead),
//                    k_block = K / split-K factor
//               M  = bytes / (BW * e_memory)  (weights of a weight-only
//                    int8/int4 kernel at BW * e_memory * weight_only factor)
//   attention   the same with e_attention and q_wave * q_kv for the tile
//               terms (AttentionTileEfficiency: one thread block per
//               128 queries of a sequence and head, each paying
//               attention_kv_overhead keys beyond its KV loop), and the
//               device's attention_memory_efficiency and
//               attention_kernel_fixed_s where it has them (a decode
//               attention kernel's KV reads and fixed cost), plus
//               attention_block_s per (sequence, KV head) block; its
//               compute is Overlap(C, X, attention_exp_overlap) / (q_wave
//               * q_kv) with X the softmax's exponentials at
//               attention_exp_per_s (AttentionExpSeconds); a
//               causal kernel's compute term covers only the score tiles it
//               computes (KernelWork::attention_score_share)
//   memory      T = max(FLOPs / vector peak, bytes / (BW * e_memory * class))
//               + fixed
// Bytes the L2 serves (KernelWork::l2_activation_share, l2_weights) count
// at kL2BandwidthFactor times the attainable bandwidth in M.
// then the host: with CUDA graphs T += kernel gap, else T = max(T, launch).
// collective  T = the interconnect time of engine/parallel/collectives.h
//             (link time as memory, latency terms as overhead; no host term)
// Flat model ("flat", mlsysim's per-layer formula):
//   T = max(FLOPs / (peak * e_c), bytes / (BW * e_m)) + per-node tax;
// a flat runtime with a host GEMM model (Runtime::host_gemm, ONNX Runtime's
// MLAS on a CPU) times contractions of known shape by that model instead.
// Regime: compute when FLOPs / (peak * e) >= bytes / (BW * e_memory) (the
// roofline with the attainable peaks), else memory. Overhead: everything
// above max(compute, memory): fixed cost, launch, tile/wave quantization,
// imperfect overlap, tax.
#ifndef RIDGELINE_ENGINE_TIMING_H_
#define RIDGELINE_ENGINE_TIMING_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "engine/cost.h"
#include "engine/hardware.h"
#include "engine/parallel/collectives.h"
#include "engine/runtime.h"

namespace ridgeline::engine {

enum class KernelClass {
  kMatrix,       // GEMM, MatMul, convolution as implicit GEMM
  kAttention,    // one fused (flash) attention kernel
  kElementwise,  // elementwise / broadcast, activations, depthwise conv
  kReduction,    // norms, softmax, reductions, pooling
  kMovement,     // copies, gathers, concats, transposes, pads
  // A collective between GPUs (engine/parallel/collectives.h): timed on the
  // interconnect, its link time reported as memory time, its latency terms
  // as overhead.
  kCollective,
};
std::string_view KernelClassName(KernelClass c);

// Bytes served by the L2 move this many times faster than DRAM bytes: XLA's
// GPU performance model's kL2CacheSpeedup (gpu_performance_model_base.h;
// perf_model_anchors.md 2.3), which reads a buffer that fits in the L2 at
// 2.5x the DRAM bandwidth.
inline constexpr double kL2BandwidthFactor = 2.5;

enum class Regime { kCompute, kMemory, kNone };
std::string_view RegimeName(Regime r);  // "compute", "memory", "none"

struct KernelWork {
  KernelClass kind = KernelClass::kElementwise;
  double matrix_flops = 0;  // FLOPs of MACs (matrix units)
  double other_flops = 0;   // everything else (vector units)
  double bytes = 0;         // read + written
  double weight_bytes = 0;  // part of bytes that is weights
  // Matrix kernels: the GEMM; attention kernels: the QK^T product (batch =
  // sequences x heads, m = queries, n = keys, k = head dim). batch 0 =
  // unknown shape.
  GemmShape gemm;
  std::string op_type;        // anchor op, for the per-op efficiency overrides
  CollectiveWork collective;  // kCollective kernels only
  // Share of the non-weight bytes (bytes - weight_bytes) the L2 serves:
  // reads of tensors a recent kernel wrote and writes no kernel reads back
  // from DRAM (engine/l2.h). 0 when the L2 is not modelled.
  double l2_activation_share = 0;
  // The weights stay in the L2 from one inference to the next (the whole
  // working set fits; engine/l2.h).
  bool l2_weights = false;
  // Attention kernels: the (sequence, KV head) blocks the kernel reads its
  // K and V in (batch x KV heads, one GPU's share); 0 when unknown.
  double attention_blocks = 0;
  // Attention kernels: the share of the score rectangle (query x key
  // positions) the kernel computes. A causal kernel skips the key tiles
  // past each query tile's last position (engine/fusion_apply.cc
  // CausalScoreShare); 1 = all of it. Scales the compute term only: the
  // counted FLOPs stay the dense rectangle (the counting convention).
  double attention_score_share = 1;
  double Flops() const { return matrix_flops + other_flops; }
};

struct KernelTime {
  double t_compute_s = 0;   // FLOPs at the attainable peak
  double t_memory_s = 0;    // bytes at the attainable bandwidth
  double t_overhead_s = 0;  // latency - max(compute, memory)
  double latency_s = 0;
  Regime regime = Regime::kNone;
  double compute_efficiency = 0;  // applied (before tile/wave terms)
  double memory_efficiency = 0;
  // q_tile * q_wave^w * q_k (matrix kernels), q_wave * q_kv (attention).
  double tile_wave_efficiency = 1;
  bool overhead_dominated() const {
    return t_overhead_s > 0 && t_overhead_s > t_compute_s &&
           t_overhead_s > t_memory_s;
  }
};

// Everything a kernel is priced with; an Analysis records it, so what-ifs
// re-time its kernels without re-deriving it.
struct Pricing {
  Runtime runtime;
  KernelModel model;              // the device's (fitted or default)
  double peak_flops_per_s = 0;    // matrix peak at the chosen precision
  double vector_flops_per_s = 0;  // non-matrix work
  double memory_bandwidth_bytes_per_s = 0;
  double flops_per_mac = 2;
  double per_inference_s = 0;  // added once per inference
  // Weight-only quantized weights ("" none, "int8", "int4").
  std::string weight_only;
  // Per-op efficiencies of the hardware entry (fitted by --fit), used by
  // the flat model only; 0 entries are ignored.
  absl::flat_hash_map<std::string, double> compute_efficiency_by_op;
  absl::flat_hash_map<std::string, double> memory_efficiency_by_op;
  // The device's links between GPUs (collective kernels).
  Interconnect interconnect;
};

// Overrides a user gives on the command line (--efficiency,
// --memory-efficiency, --layer-tax-us, --dispatch-tax-us).
struct PricingOverrides {
  std::optional<double> compute_efficiency;
  std::optional<double> memory_efficiency;
  std::optional<double> per_node_tax_s;
  std::optional<double> per_inference_s;
};

// Builds the pricing of `hardware` under `runtime` at the given matrix peak.
// Overrides replace the flat efficiencies / tax of a flat runtime, and the
// device's matrix / memory efficiency and the launch cost of a size-aware one.
// `peak_precision` ("bf16", "fp8", ...) picks the device's
// matrix_by_precision entry (KernelModel::ForPrecision) when it has one.
Pricing MakePricing(const Hardware& hardware, const Runtime& runtime,
                    std::string_view peak_precision, double peak_flops_per_s,
                    double flops_per_mac, const PricingOverrides& overrides);

// The tile and wave quantization factor of a GEMM on `compute_units` SMs
// (1 when the shape or the unit count is unknown). `tensor_tiles`: the
// matrix units' MMA tiles pad m and n; false for matrix work on the vector
// units (an fp32 GEMM without TF32: a GEMV computes its one row, not 16),
// which keeps the wave term only. `wave_quantization` is the exponent on
// the wave term (KernelModel::wave_quantization: 1 whole, 0 none).
// `k_overhead` (KernelModel::matrix_k_overhead) adds each block's cost
// beyond its main loop: the factor k_block / (k_block + k_overhead), with
// k_block = K / the split-K factor. With wave_quantization > 0, a GEMM (not
// a convolution) on the matrix units takes the best of its covering tile
// and 64 x 64 to 128 x 256 tiles, a smaller tile at a penalty
// (README, Execution model: the tile is chosen).
double TileWaveEfficiency(const GemmShape& gemm, int compute_units,
                          bool tensor_tiles = true,
                          double wave_quantization = 1, double k_overhead = 0);

// The wave and KV-loop factor of a fused attention kernel whose QK^T
// product is `scores` (batch = sequences x heads, m = queries, n = keys,
// k = head dim): one thread block per kAttentionQueryTile queries of a
// sequence and head, q_wave = blocks / (waves x compute_units), times
// kv / (kv + kv_overhead) with kv = n x score_share, the keys a block
// computes on average (a causal kernel skips the tiles past its
// queries). 1 when the shape is unknown.
double AttentionTileEfficiency(const GemmShape& scores, double score_share,
                               int compute_units, double kv_overhead);
inline constexpr double kAttentionQueryTile = 128;

// Seconds of softmax exponentials of a fused attention kernel (one per
// computed score: the QK^T product's batch x m x n x score share) at the
// device's attention_exp_per_s; 0 without that rate.
double AttentionExpSeconds(const KernelWork& work, const KernelModel& model);

KernelTime TimeKernel(const KernelWork& work, const Pricing& pricing);

// The bytes of `work` the L2 serves (l2_activation_share, l2_weights).
double L2Bytes(const KernelWork& work);

// The bare roofline of `flops` and `bytes` at the un-derated peak and
// bandwidth (efficiency 1, no fixed cost): what the measured comparison
// calls "% of roof" and what --fit divides by.
KernelTime BareRoofline(double flops, double bytes, double peak_flops_per_s,
                        double memory_bandwidth_bytes_per_s);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_TIMING_H_
