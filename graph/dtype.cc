#include "graph/dtype.h"

namespace ridgeline::graph {

std::optional<DType> DTypeFromOnnx(int32_t onnx_type) {
  if (onnx_type < 0 || onnx_type > static_cast<int32_t>(DType::kInt4)) {
    return std::nullopt;
  }
  return static_cast<DType>(onnx_type);
}

double ElementBytes(DType dtype) {
  switch (dtype) {
    case DType::kUndefined:
    case DType::kString:
      return 0.0;
    case DType::kBool:
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
      return 1.0;
    case DType::kUInt16:
    case DType::kInt16:
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2.0;
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUInt32:
      return 4.0;
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kFloat64:
    case DType::kComplex64:
      return 8.0;
    case DType::kComplex128:
      return 16.0;
    case DType::kUInt4:
    case DType::kInt4:
      return 0.5;
  }
  return 0.0;
}

bool IsFloating(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
      return true;
    default:
      return false;
  }
}

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kUndefined:
      return "undefined";
    case DType::kFloat32:
      return "float32";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt8:
      return "int8";
    case DType::kUInt16:
      return "uint16";
    case DType::kInt16:
      return "int16";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kString:
      return "string";
    case DType::kBool:
      return "bool";
    case DType::kFloat16:
      return "float16";
    case DType::kFloat64:
      return "float64";
    case DType::kUInt32:
      return "uint32";
    case DType::kUInt64:
      return "uint64";
    case DType::kComplex64:
      return "complex64";
    case DType::kComplex128:
      return "complex128";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kFloat8E4M3FN:
      return "float8e4m3fn";
    case DType::kFloat8E4M3FNUZ:
      return "float8e4m3fnuz";
    case DType::kFloat8E5M2:
      return "float8e5m2";
    case DType::kFloat8E5M2FNUZ:
      return "float8e5m2fnuz";
    case DType::kUInt4:
      return "uint4";
    case DType::kInt4:
      return "int4";
  }
  return "undefined";
}

}  // namespace ridgeline::graph
