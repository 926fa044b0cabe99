// Tensor and pipeline parallelism on a finished analysis (--tp, --pp,
// --microbatches): the Megatron split of each transformer layer's attention
// and MLP MatMuls over `tp` GPUs with two all-reduces per layer, and the
// layers cut into `pp` stages balanced by time with a send/receive between
// stages. Every kernel is re-timed by TimeKernel (collectives too).
//
//   absl::StatusOr<Analysis> s = ShardAnalysis(graph, analysis, {.tp = 8});
//
// Tensor parallel (Shoeybi et al. 2019, anchors_2026.md 4.1):
// - column-parallel: Q, K, V (or fused QKV), gate and up: FLOPs, weights and
//   outputs / tp; the input is read whole;
// - row-parallel: output projection and down: FLOPs, weights and inputs /
//   tp; the output (a partial sum) is written whole, then all-reduced
//   (message = its bytes: tokens x hidden x activation bytes);
// - between them (attention core, KV cache, SwiGLU): everything / tp
//   (heads and KV heads divided: tp must divide both);
// - norms, residual adds, embedding: replicated;
// - LM head: column-parallel (vocabulary split) with an all-gather of the
//   logits, as TensorRT-LLM and vLLM run it; replicated (whole on every
//   GPU, no all-gather) when the analysis's runtime has
//   tp_replicates_lm_head, as gpt-fast runs it.
// Mixture of experts (engine/moe.h):
// - with tp: every expert's FFN width split (fc1/fc3 columns, fc2 rows) /
//   tp, as vLLM shards Mixtral without expert parallelism; the input read
//   whole, the partial-sum output written whole and all-reduced;
// - with ep (expert parallel, data-parallel attention as SGLang's and
//   vLLM's DP-attention + EP deployments run it, and GenZ models it;
//   anchors_2026.md 2.2, 4.3): each GPU holds E / ep experts whole and runs
//   the rest of the model for its ceil(batch / ep) requests (weights whole);
//   the T x k token-expert pairs are balanced over the GPUs, the busiest
//   taking ceil(T x k / ep) pairs on min(E / ep, that many) of its experts;
//   an AllToAll dispatch before each MoE layer and an AllToAll combine
//   after it, message = the GPU's tokens x k x hidden x activation bytes.
// Pipeline parallel: stage s holds the layers between cuts at transformer-
// layer ends chosen so the stages' times are closest to equal; one
// send/receive of the activation crossing each cut. One request runs the
// stages in sequence (latency = sum); M micro-batches overlap them.
#ifndef RIDGELINE_ENGINE_PARALLEL_SHARDING_H_
#define RIDGELINE_ENGINE_PARALLEL_SHARDING_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/parallel/transformer_blocks.h"
#include "graph/graph.h"

namespace ridgeline::engine {

struct ParallelOptions {
  int tp = 1;
  int pp = 1;
  int microbatches = 1;
  // Expert parallel (--ep): the experts of every MoE layer divided over ep
  // GPUs, the rest of the model data-parallel on them; tp must be 1.
  int ep = 1;
  // With pp > 1: the graph nodes (a transformer layer's MLP row MatMul or
  // MoE layer) the stages end after, as an earlier analysis chose them
  // (ParallelSummary::pipeline_cut_nodes); empty = cut where the time is
  // balanced. A what-if keeps the partition it compares against.
  std::vector<int> pipeline_cut_nodes;
  int gpus() const { return tp * pp * ep; }
};

// The layout as a user gives it, the flags above 1 only: "--tp 8",
// "--tp 2 --pp 2", "--ep 4" ("--tp 1" for one GPU).
std::string LayoutFlags(const ParallelOptions& options);

// What ShardAnalysis reads of a graph's structure: its Megatron blocks
// (FindTransformerBlocks) and the weight each tensor is or passes through
// unchanged (WeightSource). Found once, it serves every analysis of the
// graph, of its copies with other dims bound (PastRebinder::At keeps every
// node and tensor; the blocks' widths and heads come from the weights), and
// every layout: --search shards each analysis for a dozen layouts.
struct ShardingStructure {
  TransformerBlocks blocks;
  std::vector<int> weight_source;  // per tensor: WeightSource, or -1
};
absl::StatusOr<ShardingStructure> FindShardingStructure(
    const graph::Graph& graph);

// The tensors of `graph` that the collectives of tensor parallelism (any
// tp > 1; the set does not depend on tp) sit on: the outputs of the
// row-parallel MatMuls and of the MoE layers (all-reduced) and of a split
// LM head (all-gathered; split unless `runtime` has tp_replicates_lm_head).
// Analyze with them as AnalyzeOptions::fusion_barriers before sharding over
// tp > 1 GPUs: a row-parallel output is a partial sum until it is
// all-reduced, so no runtime fuses the output projection or down with the
// residual Add after it. `runtime`: the analysis' profile (null: the flat
// roofline). `structure`: as for ShardAnalysis.
absl::StatusOr<std::vector<int>> CollectiveBarriers(
    const graph::Graph& graph, const Runtime* runtime,
    const ShardingStructure* structure = nullptr);

// The tensors the all-to-alls of expert parallelism sit on: the outputs of
// each MoE layer (combine) and of the producers of its activation inputs
// (dispatch; weights excluded). Analyze with them as
// AnalyzeOptions::fusion_barriers before sharding over ep > 1 GPUs: no
// kernel can run across an all-to-all (a MoE layer's residual Add is not
// its epilogue). ShardAnalysis marks the same nodes collective_after.
std::vector<int> ExpertParallelBarriers(const graph::Graph& graph);

// The AnalyzeOptions::fusion_barriers an analysis is planned with before
// it is sharded to `layout`: the CollectiveBarriers with tp > 1, else the
// ExpertParallelBarriers with ep > 1, else none (pipeline stages cut no
// kernel). `runtime`, `structure`: as for CollectiveBarriers.
absl::StatusOr<std::vector<int>> LayoutBarriers(
    const graph::Graph& graph, const Runtime* runtime,
    const ParallelOptions& layout, const ShardingStructure* structure);

// Errors (input errors): tp, pp, ep or microbatches < 1; tp not dividing
// the heads or KV heads (both named), an MLP's width or the experts' width;
// ep not dividing a MoE layer's experts, ep > 1 with tp > 1 or on a graph
// with no MoE layer; tp > 1 on a graph with no transformer block; more GPUs
// than the device's node holds with no network, or no interconnect data at all;
// pp larger than the layers. `analysis` is sharded in place (move it in when it
// is not needed after). `structure`: FindShardingStructure of `graph` (or of
// the graph it was copied from), found here when null. With tp > 1,
// `analysis` must have been planned with the layout's CollectiveBarriers
// (a failed-precondition error names a kernel that spans a collective).
absl::StatusOr<Analysis> ShardAnalysis(
    const graph::Graph& graph, Analysis analysis,
    const ParallelOptions& options,
    const ShardingStructure* structure = nullptr);

// Analyze(graph, hardware, options) with the layout's CollectiveBarriers
// (tp > 1) or ExpertParallelBarriers (ep > 1), sharded by ShardAnalysis when
// `parallel` spans more than one GPU.
absl::StatusOr<Analysis> AnalyzeSharded(const graph::Graph& graph,
                                        const Hardware& hardware,
                                        const AnalyzeOptions& options,
                                        const ParallelOptions& parallel);

// The parallel dimension a sweep varies (--sweep tp=, pp= or ep=LIST).
enum class ParallelAxis { kTensor, kPipeline, kExpert };
std::string_view ParallelAxisName(ParallelAxis axis);  // "tp", "pp", "ep"
// The layout of `width` GPUs along `axis`, one along the others.
ParallelOptions LayoutAlong(ParallelAxis axis, int width);

// `base` (Analyze(graph, hardware, options)) sharded over `width` GPUs along
// `axis`, for each width of a sweep (--sweep tp=/pp=/ep=LIST): width 1
// shards `base` itself, as does every pipeline width (stages cut no
// kernel); every tp > 1 shards one analysis planned with the
// CollectiveBarriers, every ep > 1 one planned with the
// ExpertParallelBarriers, each made on first use and shared. The function
// refers to the first four arguments: they must outlive it.
std::function<absl::StatusOr<Analysis>(int width)> ShardAtEachWidth(
    const graph::Graph& graph, const Hardware& hardware,
    const AnalyzeOptions& options, const Analysis& base, ParallelAxis axis);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_PARALLEL_SHARDING_H_
