// Peak activation memory from tensor lifetimes: walking the nodes in
// topological order, a tensor is live from the step of its producer to the
// step of its last consumer; graph inputs are live from the first step and
// graph outputs to the last. Weights (initializers) are excluded; they are
// counted separately as weight bytes. The outputs of pure views (Reshape,
// Squeeze, ...) alias their input: they add no bytes but extend the input's
// lifetime to their own last consumer.
#ifndef RIDGELINE_ENGINE_ACTIVATION_MEMORY_H_
#define RIDGELINE_ENGINE_ACTIVATION_MEMORY_H_

#include <vector>

#include "engine/counter_registry.h"
#include "graph/graph.h"

namespace ridgeline::engine {

// `is_view[n]` marks node n as a pure view. Tensors whose shape is unknown
// count 0 bytes. Returns bytes at the pricer's element sizes.
//
// `fused_group_of` (optional, per node: the fused kernel it runs in, -1
// for none): a tensor written and read only inside one fused kernel (its
// producer and every consumer, through views, in the same group; not a
// graph output) never reaches device memory and counts 0 bytes: a flash-
// attention kernel's score matrix, a GEMM epilogue's pre-activation.
double PeakActivationBytes(const graph::Graph& graph,
                           const TensorPricer& pricer,
                           const std::vector<bool>& is_view,
                           const std::vector<int>* fused_group_of = nullptr);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_ACTIVATION_MEMORY_H_
