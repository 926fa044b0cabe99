// A runtime profile: how a framework maps an operator graph to kernels and
// what each kernel costs beyond its roofline time. Loaded from JSON data
// (zoo/runtimes/*.json or a user's --runtime FILE.json); no runtime numbers
// live in code. The timing function (engine/timing.h) reads it.
//
//   absl::StatusOr<engine::Runtime> r = engine::ParseRuntimeJson(text, "f");
#ifndef RIDGELINE_ENGINE_RUNTIME_H_
#define RIDGELINE_ENGINE_RUNTIME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "engine/fusion_kinds.h"
#include "engine/parallel/collectives.h"

namespace ridgeline::engine {

// ONNX Runtime's CPU GEMMs (MLAS), for flat runtimes on a host: a matrix
// kernel whose GemmShape is known costs
//   max(FLOPs / (peak * matrix_efficiency), bytes / BW)
//   + (pack_passes * packed + expansion_passes * expanded) / BW
//   + per_node_tax_s + call_s * (calls - 1)        (calls = groups/batch)
// or, when the GEMM has one row or one column (MLAS's M == 1 kernel, no
// packing), + per_node_tax_s + row_call_s * calls. packed = bytes of the
// right operand the library packs on every call (a convolution's column
// matrix, k x m per group; a matrix product's B unless it is a weight,
// which ONNX Runtime packs once when the session loads); expanded = the
// same column bytes when the convolution materializes them (im2col).
struct HostGemmModel {
  double matrix_efficiency = 0;
  double pack_passes = 0;
  double expansion_passes = 0;
  double call_s = 0;
  double row_call_s = 0;
};

struct Runtime {
  std::string key;   // "compiled"
  std::string name;  // display name
  std::vector<std::string> aliases;
  std::string device;   // "gpu", "cpu" or "any": what it is meant for
  std::string summary;  // one line for --list-runtimes
  // Fusions the runtime performs (the fusion planner's rules).
  FusionKinds fusion;
  // Sibling GEMMs reading the same activation against weights (Q/K/V
  // projections, gate/up) run as one GEMM with the weights concatenated.
  bool fuse_sibling_gemms = false;
  // KV-cache Concat(past, new) written in place: only the new entries move.
  bool kv_append_in_place = false;
  // The attention op prepares its own Q, K and V (rotary embedding, head
  // layout, KV-cache write): the non-matrix kernels feeding only an
  // attention kernel run inside it at a decode step and as one kernel
  // before it at a prefill (TensorRT-LLM's QKV preprocessing kernel).
  bool attention_prologue_fused = false;
  // Shape arithmetic (folded int64 shape tensors, Shape/Gather/Concat on
  // shapes) runs on the host: no kernel, no device time.
  bool host_shape_ops = true;
  // Layout ops run as strided views of their input (PyTorch eager: slicing,
  // transpose and expand alias storage): no kernel, except a Transpose
  // whose output is reshaped, which copies (see FindStridedViews).
  bool strided_views = false;
  // At an 8-bit precision (fp8, int8) without weight-only quantization, the
  // activations feeding each weight GEMM are quantized at run time (torchao
  // float8/int8 dynamic: per-row absmax, scale, cast): one more kernel per
  // GEMM, reading the activation at 2 B and writing it at 1 B per element.
  // Otherwise scales are static and the cast fuses into the producer.
  bool dynamic_activation_quantization = false;
  // "size-aware": the kernel model of engine/timing.h with the device's
  // fitted constants; "flat": T = max(FLOPs/(peak*e_c), bytes/(BW*e_m)) +
  // per-node tax, mlsysim's per-layer formula.
  bool size_aware = true;
  double flat_compute_efficiency = 0.5;  // flat only
  double flat_memory_efficiency = 1.0;   // flat only
  double per_node_tax_s = 0;             // flat only: every timed node
  // Flat only: matrix kernels timed by the host GEMM model instead.
  std::optional<HostGemmModel> host_gemm;
  // Host time to issue one kernel. Without CUDA graphs the host and the
  // device run as a pipeline: a kernel takes max(device time, launch).
  double kernel_launch_s = 0;
  // Kernels replayed from a captured graph: no host cost per kernel, a
  // device-side gap between kernels instead.
  bool cuda_graphs = false;
  double kernel_gap_s = 0;
  // Once-per-inference cost (graph launch, sync, sampling); absent: the
  // hardware file's dispatch_tax_s.
  std::optional<double> per_inference_s;
  // Achieved-bandwidth factor per memory-bound kernel class ("elementwise",
  // "reduction", "movement"), times the device's memory_efficiency; 1 when
  // a class is absent.
  absl::flat_hash_map<std::string, double> memory_efficiency_by_class;
  // Weight-only quantized matrix kernels stream their weights at this
  // fraction of the bandwidth a bf16 kernel reaches (dequantization in the
  // inner loop), by weight precision ("int8", "int4"); 1 when absent.
  absl::flat_hash_map<std::string, double> weight_only_bandwidth;
  // Fixed device time of a weight-only quantized matrix kernel, by weight
  // precision, in place of the device's matrix kernel fixed cost (the
  // runtime's dequantizing GEMV/GEMM kernels); the device's when absent.
  absl::flat_hash_map<std::string, double> weight_only_kernel_fixed_s;
  // Tensor parallel keeps the LM head whole on every GPU (gpt-fast's tp.py
  // shards attention and the MLPs only) instead of splitting it by
  // vocabulary with an all-gather of the logits (Megatron, vLLM,
  // TensorRT-LLM).
  bool tp_replicates_lm_head = false;
  // The runtime's own all-reduce inside a node for messages up to its
  // sizes (engine/parallel/collectives.h); absent: NCCL's ring.
  std::optional<CustomAllReduce> custom_all_reduce;
  // The most tokens one forward pass takes (TensorRT-LLM's max_num_tokens,
  // vLLM's max_num_batched_tokens, SGLang's chunked_prefill_size): a
  // serving batch's prompts are prefilled in chunks of at most this many
  // tokens, so the activation memory the runtime reserves is that of one
  // chunk, not of every prompt at once (--serve's memory and largest
  // concurrency). 0: no limit, the whole batch's prompts in one pass.
  int64_t prefill_chunk_tokens = 0;
  // The runtime's KV cache takes this fraction of the memory left free
  // after the weights and activations (TensorRT-LLM's
  // KvCacheConfig.free_gpu_memory_fraction): --serve reserves the rest.
  // 0: the device rule, kRuntimeReserveFraction of the whole device
  // (vLLM's gpu_memory_utilization).
  double kv_cache_free_memory_fraction = 0;
  // At --serve's prefill the runtime computes the LM head for each
  // request's last prompt position only, the one whose logits sample the
  // first token (TensorRT-LLM without gather_context_logits); false: for
  // every prompt position, as the exported graph does (gpt-fast's prefill).
  bool prefill_last_position_logits = false;
  // Host time a request costs once, before its first token (the serving
  // loop's setup of the request, the context phase's enqueue and the host
  // sync that returns the token): --serve adds it to the time to first
  // token. 0: none modeled.
  double per_request_s = 0;
  // Where each constant comes from: field name -> citation.
  std::vector<std::pair<std::string, std::string>> sources;
};

// Parses one runtime from JSON text; `origin` (a file name) names errors.
absl::StatusOr<Runtime> ParseRuntimeJson(std::string_view json,
                                         std::string_view origin);
// Reads and parses a --runtime FILE.json.
absl::StatusOr<Runtime> LoadRuntimeFile(const std::string& path);
// Finds a runtime by key or alias, case-insensitively; the error lists the
// known keys.
absl::StatusOr<Runtime> FindRuntime(const std::vector<Runtime>& catalog,
                                    std::string_view name);
// The built-in flat roofline (mlsysim's per-layer formula) with the given
// efficiencies and tax: what an analysis without a runtime uses.
Runtime FlatRuntime(double compute_efficiency, double memory_efficiency,
                    double per_node_tax_s);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_RUNTIME_H_
