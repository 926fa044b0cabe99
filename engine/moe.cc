#include "engine/moe.h"

#include <algorithm>
#include <cmath>

namespace ridgeline::engine {

bool IsMoeNode(const graph::Node& node) {
  return node.domain == "com.microsoft" && node.op_type == "MoE";
}

std::optional<MoeLayer> ReadMoeLayer(const graph::Graph& graph, int node) {
  const graph::Node& n = graph.node(node);
  if (!IsMoeNode(n)) return std::nullopt;
  const int input = n.Input(0), fc1 = n.Input(2), fc2 = n.Input(4);
  if (input < 0 || fc1 < 0 || fc2 < 0) return std::nullopt;
  const graph::Tensor& x = graph.tensor(input);
  const graph::Tensor& w1 = graph.tensor(fc1);
  if (!x.shape_known || x.dims.empty() || !w1.shape_known ||
      w1.dims.size() != 3) {
    return std::nullopt;
  }
  MoeLayer m;
  m.node = node;
  m.experts = w1.dims[0];
  m.hidden = x.dims.back();
  if (m.experts <= 0 || m.hidden <= 0) return std::nullopt;
  m.experts_per_token = std::max<int64_t>(1, n.GetInt("k", 1));
  m.tokens = static_cast<double>(x.NumElements()) / m.hidden;
  m.ffn = w1.NumElements() / (m.experts * m.hidden);
  for (size_t i = 2; i < n.inputs.size() && i <= 7; ++i) {
    const int t = n.inputs[i];
    if (t < 0) continue;
    const graph::Tensor& w = graph.tensor(t);
    if (!w.shape_known) return std::nullopt;
    m.expert_params += static_cast<double>(w.NumElements());
    m.expert_tensors.push_back(t);
  }
  return m;
}

std::vector<MoeLayer> FindMoeLayers(const graph::Graph& graph) {
  std::vector<MoeLayer> out;
  for (int n : graph.topological_order()) {
    if (std::optional<MoeLayer> m = ReadMoeLayer(graph, n)) {
      out.push_back(std::move(*m));
    }
  }
  return out;
}

double TouchedExperts(double experts, double tokens, double experts_per_token) {
  return std::min(experts, tokens * experts_per_token);
}

int64_t ActiveParameterCount(const graph::Graph& graph) {
  double inactive = 0;
  for (const MoeLayer& m : FindMoeLayers(graph)) {
    // Only weights count as parameters (an expert input could be computed).
    double weights = 0;
    for (int t : m.expert_tensors) {
      const graph::Tensor& w = graph.tensor(t);
      if (graph.IsWeight(w)) weights += static_cast<double>(w.NumElements());
    }
    const double k = std::min<double>(m.experts_per_token, m.experts);
    inactive += weights * (m.experts - k) / m.experts;
  }
  return graph.ParameterCount() - static_cast<int64_t>(std::llround(inactive));
}

}  // namespace ridgeline::engine
