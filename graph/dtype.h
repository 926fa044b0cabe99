// Element types of tensors, numbered as ONNX's TensorProto.DataType so that the
// importer can convert without a table.
#ifndef RIDGELINE_GRAPH_DTYPE_H_
#define RIDGELINE_GRAPH_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace ridgeline::graph {

enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
};

// Returns the DType for an ONNX TensorProto.DataType value, or nullopt when the
// value names no known type.
std::optional<DType> DTypeFromOnnx(int32_t onnx_type);

// Bytes per element; 0.5 for the 4-bit types, 0 for kUndefined and kString
// (strings have no fixed size; they are priced at 0 bytes and noted).
double ElementBytes(DType dtype);

// True for float16/bfloat16/float32/float64 and the float8 types.
bool IsFloating(DType dtype);

// Short lower-case name: "float32", "int64", "bfloat16", "int4", ...
std::string_view DTypeName(DType dtype);

}  // namespace ridgeline::graph

#endif  // RIDGELINE_GRAPH_DTYPE_H_
