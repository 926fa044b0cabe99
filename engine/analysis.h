// The roofline analysis of a whole graph on one device: per-layer compute,
// memory and overhead time, and the whole-model summary.
//
//   engine::AnalyzeOptions opts;   // runtime: the flat roofline unless set
//   opts.runtime = &runtime;       // e.g. zoo::FindRuntime("compiled")
//   absl::StatusOr<engine::Analysis> a = engine::Analyze(graph, hw, opts);
#ifndef RIDGELINE_ENGINE_ANALYSIS_H_
#define RIDGELINE_ENGINE_ANALYSIS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "engine/cost.h"
#include "engine/counter_registry.h"
#include "engine/hardware.h"
#include "engine/runtime.h"
#include "engine/timing.h"
#include "graph/graph.h"

namespace ridgeline::engine {

// A layer's or kernel's bound: its roofline regime (compute or memory), or
// overhead when the time above the roofline (fixed kernel cost, launch,
// tax) exceeds both roofline terms. The regime is always reported too.
enum class Bound { kCompute, kMemory, kOverhead, kNone };
std::string_view BoundName(Bound bound);  // "compute", "memory", ...

struct AnalyzeOptions {
  double flops_per_mac = 2.0;            // --flops-per-mac
  double compute_efficiency = 0.5;       // --efficiency
  double memory_efficiency = 1.0;        // --memory-efficiency
  double per_layer_tax_s = 10e-6;        // --layer-tax-us
  std::optional<double> dispatch_tax_s;  // --dispatch-tax-us; else hardware's
  // "" = price tensors at the model's own dtypes; otherwise one of
  // fp32|tf32|fp16|bf16|fp8|int8|int4 (--precision).
  std::string precision;
  // Where `precision` came from, when not from --precision (a zoo entry's
  // native dtype: "the zoo entry's native dtype (...)"); printed with it.
  std::string precision_source;
  // Batch the graph was bound with (for throughput = batch / latency).
  int64_t batch = 1;
  // Optional custom pricer (quantization what-ifs); overrides `precision`'s
  // re-pricing of tensor bytes when set.
  const TensorPricer* pricer = nullptr;
  // Optional counter registry (tests); CounterRegistry::Default() when null.
  const CounterRegistry* registry = nullptr;
  // The runtime profile that maps the graph to kernels and prices them
  // (engine/runtime.h). nullptr: the flat roofline with compute_efficiency,
  // memory_efficiency and per_layer_tax_s above (mlsysim's formula).
  const Runtime* runtime = nullptr;
  // With a runtime: what the user set explicitly (--efficiency, ...).
  PricingOverrides overrides;
  // Weight-only quantized weights ("int8", "int4"; "" none): matrix kernels
  // stream them at the runtime's weight_only_bandwidth factor.
  std::string weight_only;
  // Whether each layer lists its input and output tensors (LayerResult::
  // inputs / outputs: names, shapes, dtypes, what reports print). Callers
  // that read only times and sums (a --search) leave them out.
  bool describe_tensors = true;
  // Tensors of the analyzed graph that a collective will sit on once the
  // analysis is sharded (CollectiveBarriers, engine/parallel/sharding.h):
  // the runtime's fusion plans no kernel that holds both the producer and a
  // consumer of one (PlanFusion's barriers). Empty: one GPU, fuse freely.
  std::vector<int> fusion_barriers;
  // Room kept in Analysis::layers for the layers a caller inserts after
  // the analysis (ShardAnalysis' collectives), so that they go in place
  // instead of into a second copy of every layer. Changes no result.
  size_t spare_layers = 0;
  // Nodes of which the runtime computes only part of the output rows: node
  // -> the share of the counted rows it computes (--serve's prefill under a
  // runtime with prefill_last_position_logits: the LM head, the last of each
  // prompt's positions). The node's FLOPs, activation bytes and GEMM rows
  // scale by the share; its weights are read whole.
  absl::flat_hash_map<int, double> row_share;
};

// Everything assumed, printed in every output.
struct Assumptions {
  double flops_per_mac = 2.0;
  double compute_efficiency = 0.5;
  double memory_efficiency = 1.0;
  double per_layer_tax_s = 10e-6;
  double dispatch_tax_s = 0;
  std::string precision;  // "model dtypes" or the --precision value
  // Where a re-pricing precision came from: "--precision" or, for a zoo
  // entry run without it, "the zoo entry's native dtype (...)".
  std::string precision_source;
  std::string peak_precision;  // which peak was used
  // Why that peak: "--precision bf16", "model dtype float32 (92% of MACs)",
  // or the fallback taken when the device lacks the model dtype's peak.
  std::string peak_reason;
  double peak_flops_per_s = 0;  // un-derated peak at that precision
  double memory_bandwidth_bytes_per_s = 0;
  std::string runtime;       // runtime profile key ("flat" without one)
  std::string runtime_name;  // its display name
  std::string kernel_model;  // "size-aware (fitted: ...)" or "flat"
  // The L2 bytes the kernels' reuse of it is modelled with
  // (Hardware::UsableL2Bytes, engine/l2.h; 0: not modelled), and whether
  // the weights stay in it across inferences.
  double l2_cache_bytes = 0;
  bool l2_weights_resident = false;
};

// A node's input or output tensor as the reports show it.
struct TensorInfo {
  std::string name;
  graph::Dims dims;  // meaningful only when shape_known
  bool shape_known = false;
  graph::DType dtype = graph::DType::kUndefined;  // the model's dtype
};

struct LayerResult {
  int node = -1;
  std::string name;
  std::string op_type;
  std::string domain;
  // Present inputs and outputs (omitted optional ones are left out).
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  Cost cost;
  double flops = 0;      // cost.Flops(flops_per_mac)
  double bytes = 0;      // read + written
  double intensity = 0;  // flops / bytes (0 if bytes == 0)
  double t_compute_s = 0;
  double t_memory_s = 0;
  // The layer's share of its kernel's times (the whole kernel's when the
  // layer is a kernel of its own; split by the members' own roofline times
  // in a fused kernel). Host and view layers: all 0.
  double t_overhead_s = 0;  // time above max(t_compute, t_memory)
  double latency_s = 0;     // t_overhead + max(t_compute, t_memory)
  Bound bound = Bound::kNone;
  Regime regime = Regime::kNone;    // its kernel's roofline regime
  bool overhead_dominated = false;  // t_overhead > both roofline terms
  bool host = false;  // shape arithmetic run on the host: no kernel
  int kernel = -1;    // index into Analysis::kernels; -1: no kernel
  // Collective layers (AllReduce, SendRecv, ... inserted by --tp/--pp): the
  // bytes each GPU's message holds (also shown as `bytes`, left out of the
  // summary's bytes). 0 for graph layers.
  double message_bytes = 0;
  // Not costed (unresolved shapes or a counter error); listed in
  // Summary::skipped_layers with the reason. All numbers are 0.
  bool skipped = false;
};

// One kernel the runtime launches: a node, or a fused group of nodes.
struct KernelResult {
  std::string name;         // the node name, or "<fusion kind>:<anchor name>"
  std::string fusion;       // "" (one node), epilogue, elementwise, attention,
                            // kv-append (in-place cache write), or
                            // <producer>+kv-append
  std::vector<int> layers;  // indices into Analysis::layers
  int anchor = -1;          // node of the op that names the kernel
  KernelWork work;
  KernelTime time;
  Bound bound = Bound::kNone;
};

// What tensor parallelism does to one graph node (engine/parallel): the
// share of its activation inputs, weight inputs and outputs one GPU reads
// and writes (1: whole, 1/tp: split), and whether a collective follows it
// (its output is a partial sum or a shard; no fused kernel spans it).
struct NodeShare {
  double activations_read = 1;
  double weights_read = 1;
  double written = 1;
  bool collective_after = false;
};

// What --tp / --pp add to the summary (engine/parallel/sharding.h).
struct ParallelSummary {
  int gpus = 1;  // tp x pp x ep
  int tp = 1;
  int pp = 1;
  int ep = 1;                   // expert parallel (MoE)
  int64_t moe_layers = 0;       // com.microsoft MoE layers found
  int64_t experts_per_gpu = 0;  // with ep: experts of a MoE layer per GPU
  int microbatches = 1;
  int64_t transformer_layers = 0;  // attention blocks found
  std::string interconnect;        // "NVLink 4 (NVSwitch, 18 links), ..."
  // One GPU's share of the weights: replicated ones whole, sharded ones / tp,
  // on the most loaded pipeline stage.
  int64_t params_per_gpu = 0;
  double weight_bytes_per_gpu = 0;
  // weight_bytes_per_gpu + the unsharded peak activations (an upper bound)
  // <= device memory.
  bool fits_in_memory_per_gpu = true;
  int64_t collectives = 0;              // collective layers inserted
  double collective_s = 0;              // their time in one inference
  std::vector<double> stage_latency_s;  // per stage, incl. its send
  // The node each stage but the last ends after (the MLP row MatMul or MoE
  // layer of the transformer layer before the send).
  std::vector<int> pipeline_cut_nodes;
  // With M micro-batches: total = sum(stages) + (M - 1) x slowest stage;
  // bubble = (pp - 1) / (M + pp - 1).
  double pipeline_latency_s = 0;
  double bubble_fraction = 0;
  double throughput_per_s = 0;  // M x batch / pipeline_latency_s
  std::string lm_head;          // what was assumed for the LM head
  // With tp > 1 (empty otherwise): per graph node, how tensor parallelism
  // split it. The fusion what-if prices fused groups with it.
  std::vector<NodeShare> node_shares;
};

struct Summary {
  int64_t layers = 0;       // non-view layers
  int64_t host_layers = 0;  // host (shape arithmetic) layers, no kernel
  int64_t kernels = 0;      // kernels launched per inference
  double macs = 0;
  double flops = 0;
  double bytes = 0;
  // Of the kernels' bytes, those the L2 serves (engine/l2.h; 0 when the L2
  // is not modelled).
  double l2_bytes = 0;
  int64_t params = 0;
  // Parameters one token uses (engine/moe.h): each mixture-of-experts layer
  // counts k of its E experts; equals params when there is none.
  int64_t active_params = 0;
  double weight_bytes = 0;
  double latency_s = 0;  // sum of kernel latencies + per-inference cost
  double throughput_per_s = 0;
  double mfu = 0;              // (flops / latency) / peak
  Bound bound = Bound::kNone;  // bound holding the largest share of time
  double peak_activation_bytes = 0;
  bool fits_in_memory = true;
  // Timed layers by roofline regime (every timed layer is in one of the
  // two), and the overhead-dominated ones among them, with their times.
  int64_t compute_bound_layers = 0;
  int64_t memory_bound_layers = 0;
  int64_t overhead_bound_layers = 0;  // overhead-dominated (either regime)
  double compute_bound_time_s = 0;
  double memory_bound_time_s = 0;
  double overhead_bound_time_s = 0;
  double overhead_s = 0;  // sum of t_overhead over kernels + per inference
  double per_inference_s = 0;
  std::vector<std::string> unknown_ops;  // distinct "domain:op" names
  std::vector<graph::Unresolved> unresolved;
  int64_t view_layers = 0;  // zero-cost views (Reshape, Squeeze, ...)
  // Layers whose cost could not be counted: {first unresolved tensor or "",
  // node name, reason}. Their time is missing from every total.
  std::vector<graph::Unresolved> skipped_layers;
  // Set with --tp / --pp: the layers are one GPU's kernels (one tensor-
  // parallel rank, every pipeline stage in turn) plus the collectives, and
  // latency_s is one inference of the whole sharded model.
  std::optional<ParallelSummary> parallel;
};

struct Analysis {
  std::string model;
  Hardware hardware;
  Assumptions assumptions;
  std::vector<LayerResult> layers;  // topological order, views included
  Summary summary;
  int64_t batch = 1;
  // How the tensors were priced and kernels timed; what-ifs re-time with it.
  Pricing pricing;
  std::vector<KernelResult> kernels;  // launch order
};

// Times every kernel of `analysis` with its pricing, gives each member layer
// its share of its kernel's times, and computes the summary's sums (MACs,
// FLOPs, bytes; collective layers' message bytes left out), regime counts,
// latency (kernels + summary.per_inference_s), throughput, MFU and bound.
// Analyze ends with it; sharding (engine/parallel) calls it after changing
// the kernels' work.
void TimeKernels(Analysis* analysis);

// Errors: invalid options, an unknown --precision, or a device that lists no
// peak for it. Unresolved shapes and unknown ops are reported in the summary,
// never errors.
absl::StatusOr<Analysis> Analyze(const graph::Graph& graph,
                                 const Hardware& hardware,
                                 const AnalyzeOptions& options);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_ANALYSIS_H_
