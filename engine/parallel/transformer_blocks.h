// Finds the Megatron blocks of a transformer graph by structure: a set of
// weight MatMuls reading one activation (Q, K, V or a fused QKV; gate and
// up) whose outputs, through ops that are not weight MatMuls, feed exactly
// one weight MatMul (the output projection; down). Names are never used.
//
//   absl::StatusOr<TransformerBlocks> b = FindTransformerBlocks(graph);
//   for (const MegatronBlock& block : b->blocks) { ... }
#ifndef RIDGELINE_ENGINE_PARALLEL_TRANSFORMER_BLOCKS_H_
#define RIDGELINE_ENGINE_PARALLEL_TRANSFORMER_BLOCKS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace ridgeline::engine {

struct MegatronBlock {
  // Attention (a MatMul of two activations inside: Q x K^T) or MLP.
  bool attention = false;
  std::vector<int> column;  // nodes: column-parallel weight MatMuls
  int row = -1;             // node: the row-parallel weight MatMul
  // Nodes between them (reached from the column outputs and reaching the
  // row input): split by heads / columns with them. Helpers that only feed
  // the block (rotary tables, masks) are not in it.
  std::vector<int> interior;
  // Attention: query heads, KV heads and head dim; MLP: the hidden width
  // (columns of each column MatMul).
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t columns = 0;
};

struct TransformerBlocks {
  std::vector<MegatronBlock> blocks;  // by the row MatMul's topological rank
  // A weight MatMul outside every block whose output is a graph output (the
  // LM head), or -1.
  int lm_head = -1;
};

// True for a MatMul/Gemm of the default domain whose second input is a
// weight (or a Cast / Transpose / Reshape / DequantizeLinear of one) and
// whose first is not.
bool IsWeightMatMul(const graph::Graph& graph, int node);

// The weight tensor `tensor` is or passes through unchanged in size (Cast,
// Transpose, ...), or -1.
int WeightSource(const graph::Graph& graph, int tensor);

// Errors: an attention block whose heads cannot be read from the graph
// (head dim, Q and KV widths). A graph with no block is not an error.
absl::StatusOr<TransformerBlocks> FindTransformerBlocks(
    const graph::Graph& graph);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_PARALLEL_TRANSFORMER_BLOCKS_H_
