// Helpers shared by the shape functions (internal to importers/).
#ifndef RIDGELINE_IMPORTERS_SHAPES_UTIL_H_
#define RIDGELINE_IMPORTERS_SHAPES_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "importers/shapes/context.h"

namespace ridgeline::importers::shapes {

// "[1,3,224,224]".
std::string DimsString(const graph::Dims& dims);

// Maps a possibly negative axis into [0, rank); Unresolved if out of range.
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank);
// Same for a list; also rejects duplicates.
absl::StatusOr<std::vector<int64_t>> NormalizeAxes(
    const std::vector<int64_t>& axes, int64_t rank);

// Numpy (multidirectional) broadcasting of two shapes; Unresolved when they
// do not broadcast.
absl::StatusOr<graph::Dims> Broadcast(const graph::Dims& a,
                                      const graph::Dims& b);
// Broadcast of every present input of the node from `first` on.
absl::StatusOr<graph::Dims> BroadcastInputs(const InferContext& ctx,
                                            size_t first = 0);

// Output i gets the dtype and dims of input j.
absl::Status SameAsInput(InferContext& ctx, size_t input = 0,
                         size_t output = 0);

// Axes given by attribute `attr` before `input_since_opset` and by input
// `input` from then on. *present is false when neither is given.
absl::Status AxesFromAttrOrInput(const InferContext& ctx, std::string_view attr,
                                 size_t input, int64_t input_since_opset,
                                 std::vector<int64_t>* axes, bool* present);

// Integer folded values of input i converted from float values too (for
// inputs like Resize sizes or Range operands); false if unknown.
bool ValuesAsInt(const InferContext& ctx, size_t i, std::vector<int64_t>* out);

// Output dims of numpy matmul: 1-D operands promoted and the added dim
// removed, batch dims broadcast; Unresolved when the inner dims differ.
absl::StatusOr<graph::Dims> MatMulDims(const graph::Dims& a,
                                       const graph::Dims& b);

// Product of dims[begin, end).
int64_t Product(const graph::Dims& dims, size_t begin, size_t end);

// Floor and ceiling division for a non-negative numerator, positive divisor.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
inline int64_t CeilDiv(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

// dtype from an ONNX TensorProto.DataType attribute value; kUndefined if not
// a known type.
graph::DType DTypeFromAttr(int64_t onnx_type);

}  // namespace ridgeline::importers::shapes

#endif  // RIDGELINE_IMPORTERS_SHAPES_UTIL_H_
