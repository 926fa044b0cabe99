// A TensorPricer that re-prices floating-point tensors at a precision
// (--precision P). Integer tensors (indices, shapes) keep their own dtype's
// size.
//   fp32, tf32, fp16, bf16, int8, int4: every floating tensor at the
//     precision's element size (fp32 activations and weights of a model
//     analyzed at bf16 cost 2 bytes per element). For int8 this is
//     TensorRT's INT8 mode, which keeps activations in int8 between layers
//     (rows mlperf30-resnet50-*, trt-bert-base-*-int8 of
//     bench/accuracy/references.tsv).
//   fp8: the FP8 recipe of LLM runtimes (TensorRT-LLM's quant_algo FP8 with
//     kv_cache_quant_algo FP8; vLLM and SGLang fp8 with an fp8 KV cache):
//     the matrix math at the fp8 peak on fp8 weights, the KV cache in fp8,
//     and every other floating tensor (activations, the residual stream,
//     norm outputs, the all-reduce messages of tensor parallel) in 16-bit:
//     weights (graph::Graph::IsWeight, rank >= 2) and KV-cache tensors
//     (IsKvCacheTensor, engine/serve.h) at 1 byte, the rest at 2 bytes.
#ifndef RIDGELINE_ENGINE_PRECISION_PRICER_H_
#define RIDGELINE_ENGINE_PRECISION_PRICER_H_

#include "engine/counter_registry.h"
#include "engine/precision.h"
#include "graph/graph.h"

namespace ridgeline::engine {

class FloatRepricer : public TensorPricer {
 public:
  explicit FloatRepricer(const Precision& precision);

  double ElementBytes(const graph::Graph& graph,
                      const graph::Tensor& tensor) const override;

 private:
  double float_element_bytes_;
  // fp8: only weights and the KV cache at float_element_bytes_, the other
  // floating tensors at kActivationBytes.
  bool weights_and_kv_only_;
  static constexpr double kActivationBytes = 2;
};

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_PRECISION_PRICER_H_
