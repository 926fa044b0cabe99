// A device description, loaded from JSON data (zoo/hardware/*.json or a
// user's --hw-file). No device numbers live in code.
#ifndef RIDGELINE_ENGINE_HARDWARE_H_
#define RIDGELINE_ENGINE_HARDWARE_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"

namespace ridgeline::engine {

// The matrix (GEMM) kernel constants that differ at one peak precision
// (an fp8 GEMM: other kernels, another efficiency, a larger fixed cost);
// unset fields keep the device's.
struct MatrixPrecisionConstants {
  std::optional<double> matrix_efficiency;
  std::optional<double> kernel_fixed_s;
  std::optional<double> wave_quantization;
};

// Constants of the kernel timing model (engine/timing.h) for one device:
// fitted to per-kernel measurements where they exist (the "kernel_model"
// object of a hardware file, with its source), else the defaults below.
struct KernelModel {
  bool fitted = false;    // true when the hardware file gives the constants
  int compute_units = 0;  // SMs / CUs; 0 = unknown (no wave quantization)
  // Fraction of the matrix peak a large, full-wave GEMM reaches.
  double matrix_efficiency = 0.8;
  // Fraction of the memory bandwidth a large streaming kernel reaches.
  double memory_efficiency = 0.85;
  // Fixed device time of every kernel (ramp-up, tail, launch latency seen by
  // the device), seconds.
  double kernel_fixed_s = 4e-6;
  // Fixed device time of a memory-bound (elementwise, reduction, movement)
  // kernel: aiconfigurator's mem_empirical_constant_latency, 3 us
  // (anchors_2026.md 2.5).
  double memory_kernel_fixed_s = 3e-6;
  // Share of the smaller of compute and memory time hidden under the larger
  // in a matrix kernel (1 = perfect overlap, a plain max).
  double matrix_overlap = 0.8;
  // Exponent on the wave term of a matrix kernel's tile/wave efficiency
  // (TileWaveEfficiency): 1 = a partial last wave of thread blocks costs a
  // whole wave, 0 = the GEMM library's scheduling hides it (persistent,
  // stream-K kernels), in between = part of it shows. Tile padding is kept
  // either way.
  double wave_quantization = 1;
  // A matrix kernel's per-block cost beyond its main loop (pipeline fill
  // and drain, epilogue), in elements of K: a thread block iterating over
  // k_block elements of K takes (k_block + matrix_k_overhead) / k_block of
  // its main loop's time, so short-K GEMMs (a BERT-base layer's K = 768, a
  // 1x1 convolution's C_in) reach less of the peak. 0 = none. Read off the
  // device's whole measured GEMM table (README, Device constants).
  double matrix_k_overhead = 0;
  // The share of the matrix peak the device sustains with all its matrix
  // units busy, when its power cap (not the kernel) sets the clock: a
  // device-wide cap on a matrix or attention kernel's rate (C' >= matrix
  // FLOPs / (peak x this)); a kernel that leaves units idle runs under it
  // at the boost clock. 1 = no cap (the datacenter parts, whose fitted
  // matrix_efficiency already includes their sustained clocks).
  double sustained_matrix_fraction = 1;
  // Fraction of the matrix peak a fused (flash) attention kernel reaches
  // with every SM busy and a long KV loop.
  double attention_efficiency = 0.5;
  // An attention kernel's per-thread-block cost beyond its KV loop (loading
  // its query tile, the softmax tail, writing its output), in key
  // positions: a block whose queries attend to kv keys takes
  // (kv + attention_kv_overhead) / kv of its loop's time, so short
  // sequences reach less of the peak. 0 = none. Fitted with
  // attention_efficiency to TensorRT-LLM's context attention tables
  // (bench/accuracy/aiconfigurator_rows.py context-attention).
  double attention_kv_overhead = 0;
  // The softmax's exponentials an attention kernel computes per second on
  // the special-function units (16 per clock per SM on sm_80-sm_100, CUDA
  // C++ Programming Guide, arithmetic instruction throughput; x SMs x the
  // clock of the matrix peak), and the fraction of the shorter of its
  // matrix and exponential times hidden under the longer: its compute time
  // is max(C, X) + (1 - overlap) x min(C, X), X = exponentials / this. The
  // exponentials per score are fixed but the FLOPs per score are 4 x head
  // dim, so small heads are exponential-bound (FlashAttention-3, Shah et
  // al. 2024, section 3). 0 = no exponential term.
  double attention_exp_per_s = 0;
  double attention_exp_overlap = 0;
  // Fraction of the memory bandwidth, and fixed device time, of a fused
  // attention kernel when they differ from a streaming kernel's
  // (memory_efficiency, kernel_fixed_s): a decode attention kernel reads
  // its KV cache in one block per sequence and KV head, not as one stream
  // (fitted to TensorRT-LLM's decode attention tables by
  // bench/accuracy/aiconfigurator_rows.py attention).
  std::optional<double> attention_memory_efficiency;
  std::optional<double> attention_kernel_fixed_s;
  // Device time per (sequence, KV head) block of an attention kernel (each
  // block's set-up and tail: short contexts stream less efficiently).
  std::optional<double> attention_block_s;
  // Fixed device time of a matrix kernel when it differs from
  // kernel_fixed_s (set by ForPrecision from matrix_by_precision).
  std::optional<double> matrix_kernel_fixed_s;
  // Matrix kernel constants at these peak precisions ("fp8": ...).
  absl::flat_hash_map<std::string, MatrixPrecisionConstants>
      matrix_by_precision;
  // Peak of the vector (non-tensor) units, FLOP/s; 0 = the fp32 peak.
  double vector_flops_per_s = 0;
  // Base constants a fit (engine/kernel_fit.h) keeps at the file's value
  // instead of moving (names of FittedConstants(): "kernel_fixed_s", ...):
  // the ones the device's measured kernels do not identify.
  std::vector<std::string> held;
  std::string source;

  // This model with the matrix constants of `peak_precision` ("bf16",
  // "fp8", ...) applied: matrix_efficiency, matrix_kernel_fixed_s and
  // wave_quantization.
  KernelModel ForPrecision(std::string_view peak_precision) const;
  // Fixed device time of a matrix kernel.
  double MatrixFixedSeconds() const {
    return matrix_kernel_fixed_s.value_or(kernel_fixed_s);
  }

  // The base constants tools/fit_kernels fits (and `held` may name), with
  // the member each one sets and the range a fit searches.
  struct FittedConstant {
    std::string_view name;
    double KernelModel::*member;
    double lo, hi;
  };
  static std::span<const FittedConstant> FittedConstants();
};

// The collectives a hardware file may give measured times for, as its
// "op" values name them (engine/parallel/collectives.h MeasuredOpKey maps
// CollectiveOp to them).
inline constexpr std::string_view kMeasuredCollectiveOps[] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all"};

// Measured times of one collective on `gpus` GPUs of one node at ascending
// message sizes (NCCL's, as nccl-tests and aiconfigurator time it). `op` is
// "all_reduce", "all_gather", "reduce_scatter" or "all_to_all"; the message
// is nccl-tests' size, each GPU's whole buffer (the tensor an all-reduce
// holds before and after, the gathered tensor, the tensor before the
// scatter, the buffer an all-to-all exchanges), bytes.
struct MeasuredCollective {
  std::string op;  // one of kMeasuredCollectiveOps
  int gpus = 0;
  std::vector<double> bytes;    // strictly ascending, > 0
  std::vector<double> seconds;  // one per size, > 0
};

// How GPUs of this device talk to each other (zoo/hardware "interconnect";
// engine/parallel/collectives.h times collectives with it). Bandwidths are
// per GPU and per direction. A device without the object has none: sharding
// it (--tp/--pp > 1) is an input error.
struct Interconnect {
  std::string intra_node;  // "NVLink 4 (NVSwitch)"; "" = none
  double intra_node_bandwidth_bytes_per_s = 0;
  int gpus_per_node = 1;
  // Per step of a ring (each of the n-1 or 2(n-1) hops), seconds.
  double intra_node_latency_s = 0;
  std::string inter_node;  // "InfiniBand NDR 400 Gb/s per GPU"; "" = none
  double inter_node_bandwidth_bytes_per_s = 0;
  double inter_node_latency_s = 0;  // per step across nodes
  // Once per collective (launch and setup of the communication kernel).
  double collective_launch_s = 0;
  std::string source;
  // Measured collective curves inside a node ("measured_collectives");
  // size-aware runtimes time a collective of a measured op and GPU count
  // with them (engine/parallel/collectives.h). Empty: the formulas alone.
  std::vector<MeasuredCollective> measured_collectives;
  std::string measured_collectives_source;
  // The table of `op` ("all_reduce", ...) on `gpus` GPUs; null if none.
  const MeasuredCollective* MeasuredFor(std::string_view op, int gpus) const;
  bool present() const { return intra_node_bandwidth_bytes_per_s > 0; }
  bool has_network() const { return inter_node_bandwidth_bytes_per_s > 0; }
};

struct Hardware {
  std::string key;   // canonical lower-case key, e.g. "h100-sxm"
  std::string name;  // display name, e.g. "NVIDIA H100 SXM5 80GB"
  std::vector<std::string> aliases;  // lower-case, e.g. {"h100"}
  // Dense peak FLOP/s (or OP/s for integer types) per precision key:
  // "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4".
  absl::flat_hash_map<std::string, double> peak_flops_per_s;
  double memory_bandwidth_bytes_per_s = 0;
  double memory_capacity_bytes = 0;
  double tdp_w = 0;
  // Once-per-inference launch/dispatch cost.
  double dispatch_tax_s = 0;
  // Last-level on-chip cache (a GPU's L2), bytes; 0 = not modelled. Size-aware
  // runtimes read activations that are still in it from it (engine/l2.h).
  double l2_cache_bytes = 0;
  // Partitions the L2 is split into, each caching the data its own SMs read
  // (A100, H100: 2), so data every SM reads is held once per partition.
  int l2_partitions = 1;
  // The L2 bytes a tensor every SM reads can use: l2_cache_bytes /
  // l2_partitions.
  double UsableL2Bytes() const {
    return l2_partitions > 0 ? l2_cache_bytes / l2_partitions : 0;
  }
  // Where the numbers came from (datasheet title and URL or document).
  std::string source;
  // Optional per-op-type efficiencies (fitted by `analyze --fit`); when an op
  // type is present they replace the global efficiencies for that op.
  absl::flat_hash_map<std::string, double> compute_efficiency_by_op;
  absl::flat_hash_map<std::string, double> memory_efficiency_by_op;
  KernelModel kernel_model;
  Interconnect interconnect;

  // Peak for `precision`; NotFound if the device does not list it.
  absl::StatusOr<double> PeakFlops(std::string_view precision) const;
};

// Parses one device from JSON text. `origin` (a file name) is used in errors.
absl::StatusOr<Hardware> ParseHardwareJson(std::string_view json,
                                           std::string_view origin);
// Reads and parses a --hw-file.
absl::StatusOr<Hardware> LoadHardwareFile(const std::string& path);
// Serializes in the same format ParseHardwareJson reads.
std::string HardwareToJson(const Hardware& hw);

// Finds a device by key, display name or alias, case-insensitively.
absl::StatusOr<Hardware> FindHardware(const std::vector<Hardware>& catalog,
                                      std::string_view name);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_HARDWARE_H_
