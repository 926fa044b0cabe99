// Mixture-of-experts layers: onnxruntime's com.microsoft MoE node (the form
// onnxruntime's transformer optimizer and its Mixtral/Phi-MoE tests write,
// and the zoo's Mixtral entries use):
//
//   MoE(input [T, H] or [..., H], router_probs [T, E],
//       fc1_experts_weights [E, H, F] (or [E, F, H]), fc1_experts_bias [E, F],
//       fc2_experts_weights [E, F, H] (or [E, H, F]), fc2_experts_bias [E, H],
//       fc3_experts_weights [E, H, F] (optional), fc3_experts_bias [E, F])
//   attributes k (experts per token, default 1), activation_type,
//   normalize_routing_weights.
//
// Counting convention (engine/counters/moe.cc, README "Mixture of experts"):
// each of the T tokens runs through k experts, so MACs = T x k x (weight
// elements of one expert); routing is balanced, so the T x k token-expert
// pairs land on min(E, T x k) distinct experts, and only those experts'
// weights are read, each once (one grouped GEMM per projection, as vLLM's
// fused_moe and TensorRT-LLM's MoE plugin run it).
#ifndef RIDGELINE_ENGINE_MOE_H_
#define RIDGELINE_ENGINE_MOE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "graph/graph.h"

namespace ridgeline::engine {

struct MoeLayer {
  int node = -1;
  int64_t experts = 0;            // E
  int64_t experts_per_token = 0;  // k
  int64_t hidden = 0;             // H: the input's last dim
  int64_t ffn = 0;                // F: fc1's output width per expert
  double tokens = 0;              // T: input elements / H
  // Elements of every expert's weights and biases (fc1, fc2, fc3), all E.
  double expert_params = 0;
  std::vector<int> expert_tensors;  // the weight and bias tensors read
};

// True for a com.microsoft MoE node.
bool IsMoeNode(const graph::Node& node);

// The layer's figures when `node` is an MoE node with known shapes.
std::optional<MoeLayer> ReadMoeLayer(const graph::Graph& graph, int node);

// Every MoE layer of the graph, in topological order.
std::vector<MoeLayer> FindMoeLayers(const graph::Graph& graph);

// Distinct experts the T x k token-expert pairs reach under balanced
// routing: min(E, T x k).
double TouchedExperts(double experts, double tokens, double experts_per_token);

// Parameters one token uses: every weight, except that each MoE layer counts
// k of its E experts (expert_params x k / E). Equals graph.ParameterCount()
// when the graph has no MoE layer.
int64_t ActiveParameterCount(const graph::Graph& graph);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_MOE_H_
