// The one TensorProto decoder (internal to importers/): a tensor's dims and
// dtype, and the values of small tensors that shape arithmetic and the
// constant evaluator read. Weight payloads are never decoded.
#ifndef RIDGELINE_IMPORTERS_TENSOR_PROTO_H_
#define RIDGELINE_IMPORTERS_TENSOR_PROTO_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {

// Dims and dtype of a TensorProto (initializer or Constant value).
absl::Status TensorProtoInfo(const onnx::TensorProto& proto,
                             graph::DType* dtype, graph::Dims* dims);

// Values of a small integer TensorProto (int32/int64/int8/.../bool), or
// nullopt if it is not integer, too large (> max_elements), or external.
std::optional<std::vector<int64_t>> TensorProtoInts(
    const onnx::TensorProto& proto, int64_t max_elements);

// Values of a small floating-point TensorProto (float, double, float16,
// bfloat16), or nullopt if it is not floating, too large (> max_elements),
// or external.
std::optional<std::vector<double>> TensorProtoFloats(
    const onnx::TensorProto& proto, int64_t max_elements);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_TENSOR_PROTO_H_
