#include "engine/precision_pricer.h"

#include "graph/dtype.h"

namespace ridgeline::engine {

double FloatRepricer::ElementBytes(const graph::Graph& graph,
                                   const graph::Tensor& tensor) const {
  if (graph::IsFloating(tensor.dtype)) return float_element_bytes_;
  return TensorPricer::ElementBytes(graph, tensor);
}

}  // namespace ridgeline::engine
