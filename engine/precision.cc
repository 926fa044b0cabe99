#include "engine/precision.h"

#include <array>

namespace ridgeline::engine {
namespace {

constexpr std::array<std::string_view, 2> kFp64Fallbacks = {"fp64", "fp32"};
constexpr std::array<std::string_view, 3> kFp32Fallbacks = {"fp32", "bf16",
                                                            "fp16"};
constexpr std::array<std::string_view, 1> kTf32Fallbacks = {"tf32"};
constexpr std::array<std::string_view, 3> kFp16Fallbacks = {"fp16", "bf16",
                                                            "fp32"};
constexpr std::array<std::string_view, 3> kBf16Fallbacks = {"bf16", "fp16",
                                                            "fp32"};
constexpr std::array<std::string_view, 4> kFp8Fallbacks = {"fp8", "fp16",
                                                           "bf16", "fp32"};
constexpr std::array<std::string_view, 4> kInt8Fallbacks = {"int8", "fp16",
                                                            "bf16", "fp32"};
constexpr std::array<std::string_view, 5> kInt4Fallbacks = {
    "int4", "int8", "fp16", "bf16", "fp32"};

}  // namespace

const Precision* FindPrecision(std::string_view name) {
  for (const Precision& p : kPrecisions) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string SelectablePrecisionList() {
  std::string out;
  for (const Precision& p : kPrecisions) {
    if (!p.selectable) continue;
    if (!out.empty()) out += '|';
    out += p.name;
  }
  return out;
}

std::optional<std::string_view> PeakKeyForDType(graph::DType dtype) {
  using graph::DType;
  switch (dtype) {
    case DType::kFloat64:
      return "fp64";
    case DType::kFloat32:
      return "fp32";
    case DType::kFloat16:
      return "fp16";
    case DType::kBFloat16:
      return "bf16";
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
      return "fp8";
    case DType::kInt8:
    case DType::kUInt8:
      return "int8";
    case DType::kInt4:
    case DType::kUInt4:
      return "int4";
    default:
      return std::nullopt;
  }
}

std::span<const std::string_view> PeakFallbacks(std::string_view key) {
  if (key == "fp64") return kFp64Fallbacks;
  if (key == "fp32") return kFp32Fallbacks;
  if (key == "tf32") return kTf32Fallbacks;
  if (key == "fp16") return kFp16Fallbacks;
  if (key == "bf16") return kBf16Fallbacks;
  if (key == "fp8") return kFp8Fallbacks;
  if (key == "int8") return kInt8Fallbacks;
  if (key == "int4") return kInt4Fallbacks;
  return {};
}

}  // namespace ridgeline::engine
