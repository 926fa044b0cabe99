// Prices one fused kernel with the analysis' roofline (internal to
// engine/fusion). Same formula as the engine's per-layer pricing (issue 3):
//   T_compute = FLOPs / (peak * compute_efficiency)
//   T_memory  = bytes / (bandwidth * memory_efficiency)
//   latency   = max(T_compute, T_memory) + per_layer_tax
//   bound     = overhead if the tax exceeds both terms, else the larger term.
// The per-op efficiencies of the hardware entry replace the global ones when
// the kernel's anchor op type has an entry.
// TODO(lead): replace with the engine's own helper once analysis.cc exposes
// one (e.g. PriceLayer(const Cost&, const Assumptions&)), so both stay equal.
#ifndef RIDGELINE_ENGINE_FUSION_ROOFLINE_PRICE_H_
#define RIDGELINE_ENGINE_FUSION_ROOFLINE_PRICE_H_

#include <string_view>

#include "engine/analysis.h"

namespace ridgeline::engine::fusion {

struct KernelTime {
  double t_compute_s = 0;
  double t_memory_s = 0;
  double t_overhead_s = 0;
  double latency_s = 0;
  Bound bound = Bound::kNone;
};

KernelTime PriceKernel(double flops, double bytes, std::string_view op_type,
                       const Assumptions& assumptions,
                       const Hardware& hardware);

// The bound of given compute, memory and overhead times, by the rule above.
Bound BoundOf(double t_compute_s, double t_memory_s, double t_overhead_s);

}  // namespace ridgeline::engine::fusion

#endif  // RIDGELINE_ENGINE_FUSION_ROOFLINE_PRICE_H_
