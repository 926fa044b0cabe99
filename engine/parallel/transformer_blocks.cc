#include "engine/parallel/transformer_blocks.h"

#include <algorithm>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

// Ops that pass a weight through unchanged in size (a dtype cast, a stored
// transposed copy, a dequantization).
bool WeightPassThrough(const graph::Node& node) {
  static constexpr std::string_view kOps[] = {"Cast", "Transpose", "Reshape",
                                              "Identity", "DequantizeLinear"};
  return node.domain.empty() && std::find(std::begin(kOps), std::end(kOps),
                                          node.op_type) != std::end(kOps);
}

bool WeightDerived(const graph::Graph& graph, int tensor) {
  return WeightSource(graph, tensor) >= 0;
}

int64_t LastDim(const graph::Graph& graph, int tensor) {
  if (tensor < 0) return 0;
  const graph::Tensor& t = graph.tensor(tensor);
  if (!t.shape_known || t.dims.empty()) return 0;
  return t.dims.back();
}

// Backward from `row`'s activation input: the nodes passed (not weight
// MatMuls) and the weight MatMuls where the walk stops. Gives up (false)
// as soon as two of those read different activations: the walk has left
// the block (the residual stream).
bool WalkBack(const graph::Graph& graph, const std::vector<bool>& weight_mm,
              int row, std::vector<int>* passed, std::vector<int>* producers) {
  constexpr size_t kMaxNodes = 4096;
  absl::flat_hash_set<int> seen;
  std::vector<int> stack = {graph.node(row).Input(0)};
  int source = -1;
  while (!stack.empty()) {
    const int t = stack.back();
    stack.pop_back();
    if (t < 0) continue;
    const int p = graph.tensor(t).producer;
    if (p < 0 || !seen.insert(p).second) continue;
    if (weight_mm[p]) {
      const int in = graph.node(p).Input(0);
      if (source >= 0 && in != source) return false;
      source = in;
      producers->push_back(p);
      continue;
    }
    passed->push_back(p);
    if (passed->size() > kMaxNodes) return false;
    // Shape metadata: no data flows from the tensor it reads.
    const graph::Node& node = graph.node(p);
    if (node.domain.empty() &&
        (node.op_type == "Shape" || node.op_type == "Size")) {
      continue;
    }
    for (int in : node.inputs) {
      if (in >= 0 && !graph.IsWeight(graph.tensor(in))) stack.push_back(in);
    }
  }
  return !producers->empty() && source != graph.node(row).Input(0);
}

}  // namespace

int WeightSource(const graph::Graph& graph, int tensor) {
  for (int depth = 0; tensor >= 0 && depth < 4; ++depth) {
    const graph::Tensor& t = graph.tensor(tensor);
    if (graph.IsWeight(t)) return tensor;
    if (t.producer < 0) return -1;
    const graph::Node& p = graph.node(t.producer);
    if (!WeightPassThrough(p)) return -1;
    tensor = p.Input(0);
  }
  return -1;
}

bool IsWeightMatMul(const graph::Graph& graph, int node) {
  const graph::Node& n = graph.node(node);
  if (!n.domain.empty() || (n.op_type != "MatMul" && n.op_type != "Gemm")) {
    return false;
  }
  const int a = n.Input(0), b = n.Input(1);
  return a >= 0 && b >= 0 && WeightDerived(graph, b) &&
         !WeightDerived(graph, a);
}

absl::StatusOr<TransformerBlocks> FindTransformerBlocks(
    const graph::Graph& graph) {
  const size_t count = graph.nodes().size();
  std::vector<bool> weight_mm(count, false);
  std::vector<int> rank(count, 0);
  int r = 0;
  for (int n : graph.topological_order()) {
    rank[n] = r++;
    weight_mm[n] = IsWeightMatMul(graph, n);
  }
  TransformerBlocks out;
  std::vector<bool> in_block(count, false);
  for (int n : graph.topological_order()) {
    if (!weight_mm[n]) continue;
    std::vector<int> passed, producers;
    if (!WalkBack(graph, weight_mm, n, &passed, &producers)) continue;
    // A MatMul already in a block (the first layer's output projection,
    // reached through the residual add from the first MLP) opens none.
    if (std::any_of(producers.begin(), producers.end(),
                    [&](int p) { return in_block[p]; })) {
      continue;
    }
    // Interior: passed nodes reachable forward from the column outputs.
    absl::flat_hash_set<int> back(passed.begin(), passed.end());
    absl::flat_hash_set<int> interior;
    std::vector<int> stack;
    for (int p : producers) {
      for (int o : graph.node(p).outputs) {
        if (o >= 0) stack.push_back(o);
      }
    }
    while (!stack.empty()) {
      const int t = stack.back();
      stack.pop_back();
      for (int c : graph.tensor(t).consumers) {
        if (!back.contains(c) || !interior.insert(c).second) continue;
        for (int o : graph.node(c).outputs) {
          if (o >= 0) stack.push_back(o);
        }
      }
    }
    MegatronBlock block;
    block.row = n;
    block.column = producers;
    block.interior.assign(interior.begin(), interior.end());
    auto by_rank = [&](int a, int b) { return rank[a] < rank[b]; };
    std::sort(block.column.begin(), block.column.end(), by_rank);
    std::sort(block.interior.begin(), block.interior.end(), by_rank);
    int qk = -1;  // the first MatMul of two activations: Q x K^T
    for (int m : block.interior) {
      const graph::Node& node = graph.node(m);
      if (node.domain.empty() && node.op_type == "MatMul") {
        qk = m;
        break;
      }
    }
    block.attention = qk >= 0;
    int64_t widest = 0, narrowest = 0;
    for (int p : block.column) {
      const int64_t w = LastDim(graph, graph.node(p).Output(0));
      widest = std::max(widest, w);
      narrowest = narrowest == 0 ? w : std::min(narrowest, w);
    }
    const std::string& row_name = graph.node(n).name;
    if (block.attention) {
      block.head_dim = LastDim(graph, graph.node(qk).Input(0));
      int64_t q = widest, kv = narrowest;
      if (block.column.size() == 1) {  // fused QKV: the Split's outputs
        q = kv = 0;
        const int out = graph.node(block.column[0]).Output(0);
        for (int c : graph.tensor(out).consumers) {
          const graph::Node& s = graph.node(c);
          if (s.op_type != "Split" || s.outputs.size() != 3) continue;
          q = LastDim(graph, s.Output(0));
          kv = LastDim(graph, s.Output(1));
        }
      }
      if (block.head_dim <= 0 || q <= 0 || kv <= 0 || q % block.head_dim != 0 ||
          kv % block.head_dim != 0) {
        return absl::InvalidArgumentError(fmt::format(
            "attention block before '{}': cannot read the heads from the "
            "graph (head dim {}, query width {}, KV width {})",
            row_name, block.head_dim, q, kv));
      }
      block.heads = q / block.head_dim;
      block.kv_heads = kv / block.head_dim;
    } else {
      block.columns = widest;
    }
    for (int m : block.column) in_block[m] = true;
    in_block[n] = true;
    out.blocks.push_back(std::move(block));
  }
  // The LM head: a weight MatMul outside the blocks writing a graph output.
  absl::flat_hash_set<int> outputs(graph.outputs().begin(),
                                   graph.outputs().end());
  for (int n : graph.topological_order()) {
    if (!weight_mm[n] || in_block[n]) continue;
    if (outputs.contains(graph.node(n).Output(0))) out.lm_head = n;
  }
  return out;
}

}  // namespace ridgeline::engine
