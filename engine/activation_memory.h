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
double PeakActivationBytes(const graph::Graph& graph,
                           const TensorPricer& pricer,
                           const std::vector<bool>& is_view);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_ACTIVATION_MEMORY_H_
