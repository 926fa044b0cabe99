// The one TensorProto decoder: dims and dtype, and the values of small
// tensors (integer ones as int64, floating ones as double) from raw_data or
// the typed arrays.
#include "importers/tensor_proto.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "fmt/format.h"

namespace ridgeline::importers {

using graph::DType;

namespace {

double HalfToDouble(uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exp = (h >> 10) & 0x1f;
  const int frac = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(frac, -24);
  } else if (exp == 31) {
    v = frac == 0 ? std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::quiet_NaN();
  } else {
    v = std::ldexp(frac + 1024, exp - 25);
  }
  return sign ? -v : v;
}

double BFloat16ToDouble(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Elements of a tensor whose values are stored in the model, or nullopt
// when they are external (or skipped by the wire pre-pass) or more than
// max_elements.
std::optional<int64_t> StoredCount(const onnx::TensorProto& proto,
                                   int64_t max_elements) {
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    return std::nullopt;
  }
  int64_t count = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0 || d > max_elements) return std::nullopt;
    count *= d;
    if (count > max_elements) return std::nullopt;
  }
  return count;
}

}  // namespace

std::optional<std::vector<double>> TensorProtoFloats(
    const onnx::TensorProto& proto, int64_t max_elements) {
  const std::optional<int64_t> counted = StoredCount(proto, max_elements);
  if (!counted.has_value()) return std::nullopt;
  const int64_t count = *counted;
  std::vector<double> values;
  values.reserve(count);
  const std::string& raw = proto.raw_data();
  const bool has_raw = proto.has_raw_data();
  auto check = [&](size_t width) {
    return raw.size() == static_cast<size_t>(count) * width;
  };
  switch (proto.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (has_raw) {
        if (!check(4)) return std::nullopt;
        for (int64_t i = 0; i < count; ++i) {
          float f;
          std::memcpy(&f, raw.data() + 4 * i, 4);
          values.push_back(f);
        }
      } else {
        values.assign(proto.float_data().begin(), proto.float_data().end());
      }
      break;
    case onnx::TensorProto::DOUBLE:
      if (has_raw) {
        if (!check(8)) return std::nullopt;
        for (int64_t i = 0; i < count; ++i) {
          double f;
          std::memcpy(&f, raw.data() + 8 * i, 8);
          values.push_back(f);
        }
      } else {
        values.assign(proto.double_data().begin(), proto.double_data().end());
      }
      break;
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16: {
      const bool half = proto.data_type() == onnx::TensorProto::FLOAT16;
      auto convert = [&](uint16_t bits) {
        values.push_back(half ? HalfToDouble(bits) : BFloat16ToDouble(bits));
      };
      if (has_raw) {
        if (!check(2)) return std::nullopt;
        for (int64_t i = 0; i < count; ++i) {
          uint16_t bits;
          std::memcpy(&bits, raw.data() + 2 * i, 2);
          convert(bits);
        }
      } else {
        for (int32_t bits : proto.int32_data()) {
          convert(static_cast<uint16_t>(bits));
        }
      }
      break;
    }
    default:
      return std::nullopt;
  }
  if (static_cast<int64_t>(values.size()) != count) return std::nullopt;
  return values;
}

absl::Status TensorProtoInfo(const onnx::TensorProto& proto, DType* dtype,
                             graph::Dims* dims) {
  std::optional<DType> d = graph::DTypeFromOnnx(proto.data_type());
  if (!d.has_value() || *d == DType::kUndefined) {
    return absl::InvalidArgumentError(
        fmt::format("tensor '{}' has unknown data type {}", proto.name(),
                    proto.data_type()));
  }
  *dtype = *d;
  dims->assign(proto.dims().begin(), proto.dims().end());
  absl::StatusOr<int64_t> n = graph::CheckedNumElements(*dims, proto.name());
  return n.status();
}

std::optional<std::vector<int64_t>> TensorProtoInts(
    const onnx::TensorProto& proto, int64_t max_elements) {
  const std::optional<int64_t> counted = StoredCount(proto, max_elements);
  if (!counted.has_value()) return std::nullopt;
  const int64_t count = *counted;
  std::vector<int64_t> values;
  values.reserve(count);
  const std::string& raw = proto.raw_data();
  auto from_raw = [&](size_t width, bool is_signed) -> bool {
    if (raw.size() != static_cast<size_t>(count) * width) return false;
    for (int64_t i = 0; i < count; ++i) {
      const char* p = raw.data() + i * width;
      int64_t v = 0;
      switch (width) {
        case 1:
          v = is_signed ? static_cast<int8_t>(*p) : static_cast<uint8_t>(*p);
          break;
        case 2: {
          uint16_t u;
          std::memcpy(&u, p, 2);
          v = is_signed ? static_cast<int16_t>(u) : u;
          break;
        }
        case 4: {
          uint32_t u;
          std::memcpy(&u, p, 4);
          // Cast each branch to int64 first: a plain ?: would convert the
          // signed value back to uint32.
          v = is_signed ? static_cast<int64_t>(static_cast<int32_t>(u))
                        : static_cast<int64_t>(u);
          break;
        }
        case 8: {
          std::memcpy(&v, p, 8);
          break;
        }
      }
      values.push_back(v);
    }
    return true;
  };
  const bool has_raw = proto.has_raw_data();
  switch (proto.data_type()) {
    case onnx::TensorProto::INT64:
      if (has_raw)
        return from_raw(8, true) ? std::optional(values) : std::nullopt;
      values.assign(proto.int64_data().begin(), proto.int64_data().end());
      break;
    case onnx::TensorProto::UINT64:
      if (has_raw)
        return from_raw(8, false) ? std::optional(values) : std::nullopt;
      values.assign(proto.uint64_data().begin(), proto.uint64_data().end());
      break;
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL: {
      if (has_raw) {
        const int t = proto.data_type();
        size_t width =
            t == onnx::TensorProto::INT32 ? 4
            : (t == onnx::TensorProto::INT16 || t == onnx::TensorProto::UINT16)
                ? 2
                : 1;
        bool is_signed = t == onnx::TensorProto::INT32 ||
                         t == onnx::TensorProto::INT16 ||
                         t == onnx::TensorProto::INT8;
        return from_raw(width, is_signed) ? std::optional(values)
                                          : std::nullopt;
      }
      values.assign(proto.int32_data().begin(), proto.int32_data().end());
      break;
    }
    case onnx::TensorProto::UINT32:
      if (has_raw)
        return from_raw(4, false) ? std::optional(values) : std::nullopt;
      values.assign(proto.uint64_data().begin(), proto.uint64_data().end());
      break;
    default:
      return std::nullopt;
  }
  if (static_cast<int64_t>(values.size()) != count) return std::nullopt;
  return values;
}

}  // namespace ridgeline::importers
