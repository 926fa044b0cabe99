#include "engine/fusion/roofline_price.h"

#include <algorithm>
#include <string>

namespace ridgeline::engine::fusion {

Bound BoundOf(double t_compute_s, double t_memory_s, double t_overhead_s) {
  if (t_compute_s <= 0 && t_memory_s <= 0 && t_overhead_s <= 0) {
    return Bound::kNone;
  }
  if (t_overhead_s > std::max(t_compute_s, t_memory_s)) return Bound::kOverhead;
  return t_compute_s >= t_memory_s ? Bound::kCompute : Bound::kMemory;
}

KernelTime PriceKernel(double flops, double bytes, std::string_view op_type,
                       const Assumptions& assumptions,
                       const Hardware& hardware) {
  double compute_efficiency = assumptions.compute_efficiency;
  double memory_efficiency = assumptions.memory_efficiency;
  const std::string op(op_type);
  if (auto it = hardware.compute_efficiency_by_op.find(op);
      it != hardware.compute_efficiency_by_op.end() && it->second > 0) {
    compute_efficiency = it->second;
  }
  if (auto it = hardware.memory_efficiency_by_op.find(op);
      it != hardware.memory_efficiency_by_op.end() && it->second > 0) {
    memory_efficiency = it->second;
  }
  KernelTime time;
  const double peak = assumptions.peak_flops_per_s * compute_efficiency;
  const double bandwidth =
      assumptions.memory_bandwidth_bytes_per_s * memory_efficiency;
  time.t_compute_s = peak > 0 ? flops / peak : 0;
  time.t_memory_s = bandwidth > 0 ? bytes / bandwidth : 0;
  time.t_overhead_s = assumptions.per_layer_tax_s;
  time.latency_s =
      std::max(time.t_compute_s, time.t_memory_s) + time.t_overhead_s;
  time.bound = BoundOf(time.t_compute_s, time.t_memory_s, time.t_overhead_s);
  return time;
}

}  // namespace ridgeline::engine::fusion
