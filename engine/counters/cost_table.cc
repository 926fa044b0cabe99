#include "engine/counters/cost_table.h"

namespace ridgeline::engine::counters::cost {

double ActivationCost(std::string_view name) {
  if (name == "Affine") return kAffine;
  if (name == "ScaledTanh") return kScaledTanh;
  for (const ElementwiseCost& e : kElementwiseCosts) {
    if (e.domain.empty() && e.op == name) return e.flops;
  }
  return -1;
}

}  // namespace ridgeline::engine::counters::cost
