// A small constant evaluator over int64 and floating-point tensors, for the
// shape computations of exported models (Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape, Range, ConstantOfShape, Where, Cast, arithmetic on shape
// tensors). Internal to importers/.
#ifndef RIDGELINE_IMPORTERS_CONST_EVAL_H_
#define RIDGELINE_IMPORTERS_CONST_EVAL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "onnx/onnx_pb.h"

namespace ridgeline::importers {

// Values of a small floating-point TensorProto (float, double, float16,
// bfloat16) as doubles, or nullopt if it is not floating, has more than
// `max_elements` values, or is stored externally.
std::optional<std::vector<double>> TensorProtoFloats(
    const onnx::TensorProto& proto, int64_t max_elements);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_CONST_EVAL_H_
