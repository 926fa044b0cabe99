#include "engine/activation_memory.h"

#include <algorithm>

namespace ridgeline::engine {

double PeakActivationBytes(const graph::Graph& graph,
                           const TensorPricer& pricer,
                           const std::vector<bool>& is_view,
                           const std::vector<int>* fused_group_of) {
  const std::vector<int>& order = graph.topological_order();
  const int steps = static_cast<int>(order.size());
  if (steps == 0) return 0;
  std::vector<int> step_of(graph.nodes().size(), -1);
  for (int i = 0; i < steps; ++i) step_of[order[i]] = i;

  const auto& tensors = graph.tensors();
  const int num_tensors = static_cast<int>(tensors.size());
  std::vector<int> start(num_tensors, -1), end(num_tensors, -1);
  for (int t = 0; t < num_tensors; ++t) {
    const graph::Tensor& tensor = tensors[t];
    if (graph.IsWeight(tensor)) continue;
    if (tensor.producer >= 0) {
      start[t] = step_of[tensor.producer];
    } else if (tensor.kind == graph::TensorKind::kGraphInput) {
      start[t] = 0;
    }
    if (start[t] < 0) continue;  // producer outside the order
    end[t] = start[t];
    for (int c : tensor.consumers) {
      if (step_of[c] >= 0) end[t] = std::max(end[t], step_of[c]);
    }
  }
  for (int t : graph.outputs()) {
    if (t >= 0 && start[t] >= 0) end[t] = steps - 1;
  }

  // Fold view outputs into the tensor they alias (in topological order, so
  // that a chain of views resolves to its first real tensor).
  std::vector<int> root(num_tensors);
  for (int t = 0; t < num_tensors; ++t) root[t] = t;
  for (int n : order) {
    if (n >= static_cast<int>(is_view.size()) || !is_view[n]) continue;
    const graph::Node& node = graph.node(n);
    const int in = node.Input(0);
    if (in < 0) continue;
    const int r = root[in];
    for (int out : node.outputs) {
      if (out < 0) continue;
      root[out] = r;
      if (start[r] >= 0 && end[out] >= 0) end[r] = std::max(end[r], end[out]);
    }
  }

  // Tensors that stay inside one fused kernel: per root, the group of its
  // producer while no alias escapes it (a graph output, or a non-view
  // consumer in another kernel).
  std::vector<bool> internal(num_tensors, false);
  if (fused_group_of != nullptr) {
    const auto group = [&](int node) {
      return node >= 0 && node < static_cast<int>(fused_group_of->size())
                 ? (*fused_group_of)[node]
                 : -1;
    };
    std::vector<bool> escapes(num_tensors, false);
    for (int t : graph.outputs()) {
      if (t >= 0) escapes[root[t]] = true;
    }
    for (int t = 0; t < num_tensors; ++t) {
      const int r = root[t];
      const int g = group(tensors[r].producer);
      if (g < 0) {
        escapes[r] = true;
        continue;
      }
      for (int c : tensors[t].consumers) {
        const bool view = c < static_cast<int>(is_view.size()) && is_view[c];
        if (!view && group(c) != g) escapes[r] = true;
      }
    }
    for (int t = 0; t < num_tensors; ++t) {
      internal[t] = root[t] == t && !escapes[t];
    }
  }

  std::vector<double> delta(steps + 1, 0.0);
  for (int t = 0; t < num_tensors; ++t) {
    if (root[t] != t || start[t] < 0 || graph.IsWeight(tensors[t]) ||
        internal[t]) {
      continue;
    }
    const double bytes = pricer.TensorBytes(graph, tensors[t]);
    delta[start[t]] += bytes;
    delta[end[t] + 1] -= bytes;
  }
  double live = 0, peak = 0;
  for (int i = 0; i < steps; ++i) {
    live += delta[i];
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace ridgeline::engine
