// A TensorPricer that re-prices every floating-point tensor at one element
// size (--precision P): fp32 activations and weights of a model analyzed at
// bf16 cost 2 bytes per element. Integer tensors (indices, shapes) keep their
// own dtype's size.
#ifndef RIDGELINE_ENGINE_PRECISION_PRICER_H_
#define RIDGELINE_ENGINE_PRECISION_PRICER_H_

#include "engine/counter_registry.h"
#include "graph/graph.h"

namespace ridgeline::engine {

class FloatRepricer : public TensorPricer {
 public:
  // `float_element_bytes` is Precision::element_bytes of the target precision.
  explicit FloatRepricer(double float_element_bytes)
      : float_element_bytes_(float_element_bytes) {}

  double ElementBytes(const graph::Graph& graph,
                      const graph::Tensor& tensor) const override;

 private:
  double float_element_bytes_;
};

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_PRECISION_PRICER_H_
