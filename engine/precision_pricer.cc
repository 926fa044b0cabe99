#include "engine/precision_pricer.h"

#include "engine/serve.h"
#include "graph/dtype.h"

namespace ridgeline::engine {

FloatRepricer::FloatRepricer(const Precision& precision)
    : float_element_bytes_(precision.element_bytes),
      weights_and_kv_only_(precision.name == "fp8") {}

double FloatRepricer::ElementBytes(const graph::Graph& graph,
                                   const graph::Tensor& tensor) const {
  if (!graph::IsFloating(tensor.dtype)) {
    return TensorPricer::ElementBytes(graph, tensor);
  }
  if (weights_and_kv_only_ &&
      !(graph.IsWeight(tensor) && tensor.dims.size() >= 2) &&
      !IsKvCacheTensor(tensor)) {
    return kActivationBytes;
  }
  return float_element_bytes_;
}

}  // namespace ridgeline::engine
