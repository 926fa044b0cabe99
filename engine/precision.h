// Numeric precisions: the names used for hardware peaks and --precision, the
// bytes one element costs at each, and how a model dtype maps to a peak.
//
//   const engine::Precision* p = engine::FindPrecision("bf16");  // 2 bytes
//   engine::PeakKeyForDType(graph::DType::kFloat32);              // "fp32"
//
// Shared by the roofline (--precision) and the quantization what-ifs.
#ifndef RIDGELINE_ENGINE_PRECISION_H_
#define RIDGELINE_ENGINE_PRECISION_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "graph/dtype.h"

namespace ridgeline::engine {

struct Precision {
  std::string_view name;  // "fp32", "bf16", "int4", ...
  // Bytes per element of a tensor priced at this precision (tf32 is stored
  // as fp32: 4 bytes; int4 packs two elements per byte: 0.5).
  double element_bytes;
  // True for integer math (int8, int4): peaks are OP/s, not FLOP/s.
  bool integer;
  // True if `--precision NAME` accepts it (every key but fp64).
  bool selectable;
};

// Every precision a hardware entry may list a peak for, widest first.
inline constexpr Precision kPrecisions[] = {
    {"fp64", 8.0, false, false}, {"fp32", 4.0, false, true},
    {"tf32", 4.0, false, true},  {"fp16", 2.0, false, true},
    {"bf16", 2.0, false, true},  {"fp8", 1.0, false, true},
    {"int8", 1.0, true, true},   {"int4", 0.5, true, true},
};

// The precision called `name` (exact, lower case), or nullptr.
const Precision* FindPrecision(std::string_view name);

// "fp32|tf32|fp16|bf16|fp8|int8|int4": the values --precision accepts.
std::string SelectablePrecisionList();

// The peak key for tensors of `dtype`: float32 -> "fp32", float16 -> "fp16",
// bfloat16 -> "bf16", float8 types -> "fp8", (u)int8 -> "int8", (u)int4 ->
// "int4", float64 -> "fp64"; nullopt for other types (int64, bool, ...).
std::optional<std::string_view> PeakKeyForDType(graph::DType dtype);

// The peaks tried, in order, when a model runs at its own dtypes and the
// device lists no peak for `key` (the first entry is `key` itself):
//   fp64: fp64, fp32
//   fp32: fp32, bf16, fp16   (a device whose matrix unit has no fp32 mode,
//                             e.g. a TPU, runs fp32 matmuls as bf16 passes;
//                             tf32 is never chosen implicitly: it is an
//                             opt-in math mode, use --precision tf32)
//   fp16: fp16, bf16, fp32   bf16: bf16, fp16, fp32
//   fp8:  fp8, fp16, bf16, fp32
//   int8: int8, fp16, bf16, fp32
//   int4: int4, int8, fp16, bf16, fp32
// i.e. the same-width sibling first, then wider types (a runtime computes in
// a wider type when the narrow one is missing). An explicit --precision never
// falls back.
std::span<const std::string_view> PeakFallbacks(std::string_view key);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_PRECISION_H_
