#include "importers/onnx_wire.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace ridgeline::importers {
namespace {

// The messages the pre-pass walks; everything else is copied as is.
enum class Kind {
  kModel,
  kGraph,
  kNode,
  kAttribute,
  kTensor,
  kFunction,
  kTrainingInfo,
};

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// Field numbers of onnx.proto.
namespace field {
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kModelTrainingInfo = 20;
constexpr uint32_t kModelFunctions = 25;
constexpr uint32_t kTrainingInitialization = 1;
constexpr uint32_t kTrainingAlgorithm = 2;
constexpr uint32_t kFunctionNode = 7;
constexpr uint32_t kGraphNode = 1;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kNodeAttribute = 5;
constexpr uint32_t kAttributeT = 5;
constexpr uint32_t kAttributeG = 6;
constexpr uint32_t kAttributeTensors = 10;
constexpr uint32_t kAttributeGraphs = 11;
constexpr uint32_t kTensorDims = 1;
constexpr uint32_t kTensorFloatData = 4;
constexpr uint32_t kTensorInt32Data = 5;
constexpr uint32_t kTensorInt64Data = 7;
constexpr uint32_t kTensorRawData = 9;
constexpr uint32_t kTensorDoubleData = 10;
constexpr uint32_t kTensorUint64Data = 11;
constexpr uint32_t kTensorExternalData = 13;
constexpr uint32_t kTensorDataLocation = 14;
}  // namespace field

// The message held by field `f` of a `parent` message, if the pre-pass walks
// it.
std::optional<Kind> ChildKind(Kind parent, uint32_t f) {
  switch (parent) {
    case Kind::kModel:
      if (f == field::kModelGraph) return Kind::kGraph;
      if (f == field::kModelTrainingInfo) return Kind::kTrainingInfo;
      if (f == field::kModelFunctions) return Kind::kFunction;
      break;
    case Kind::kTrainingInfo:
      if (f == field::kTrainingInitialization ||
          f == field::kTrainingAlgorithm) {
        return Kind::kGraph;
      }
      break;
    case Kind::kFunction:
      if (f == field::kFunctionNode) return Kind::kNode;
      break;
    case Kind::kGraph:
      if (f == field::kGraphNode) return Kind::kNode;
      if (f == field::kGraphInitializer) return Kind::kTensor;
      break;
    case Kind::kNode:
      if (f == field::kNodeAttribute) return Kind::kAttribute;
      break;
    case Kind::kAttribute:
      if (f == field::kAttributeT || f == field::kAttributeTensors) {
        return Kind::kTensor;
      }
      if (f == field::kAttributeG || f == field::kAttributeGraphs) {
        return Kind::kGraph;
      }
      break;
    case Kind::kTensor:
      break;
  }
  return std::nullopt;
}

bool IsPayloadField(uint32_t f) {
  return f == field::kTensorFloatData || f == field::kTensorInt32Data ||
         f == field::kTensorInt64Data || f == field::kTensorRawData ||
         f == field::kTensorDoubleData || f == field::kTensorUint64Data;
}

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void AppendLengthDelimited(uint32_t f, std::string_view bytes,
                           std::string* out) {
  AppendVarint((uint64_t{f} << 3) | kLengthDelimited, out);
  AppendVarint(bytes.size(), out);
  out->append(bytes);
}

// Replaces input bytes [begin, end) with `replacement` in the output.
struct Edit {
  size_t begin;
  size_t end;
  std::string replacement;
};

// The bytes the pre-pass walks: a buffer in memory, or a file read with
// pread through one reused window. The window starts small where the walk
// lands after a skip and doubles while the walk reads on, so skipped
// payloads are never read and the bytes copied stay close to the message
// structure's.
class WireInput {
 public:
  explicit WireInput(std::string_view bytes)
      : data_(reinterpret_cast<const uint8_t*>(bytes.data())),
        end_(bytes.size()),
        size_(bytes.size()) {}

  WireInput(int fd, size_t size, const WireReadOptions& options)
      : size_(size),
        fd_(fd),
        min_window_(std::max<size_t>(options.min_window, 1)),
        max_window_(std::max(options.max_window, min_window_)) {}

  size_t size() const { return size_; }

  // The byte at `pos` (< size()); false if the file could not be read there
  // (then error() says why).
  bool Byte(size_t pos, uint8_t* b) {
    if (pos < begin_ || pos >= end_) {
      if (!Fill(pos)) return false;
    }
    *b = data_[pos - begin_];
    return true;
  }

  // How many bytes from `pos` on are in the window (0 if `pos` is not), and
  // where they are.
  size_t Available(size_t pos) const {
    return pos >= begin_ && pos < end_ ? end_ - pos : 0;
  }
  const uint8_t* At(size_t pos) const { return data_ + (pos - begin_); }

  // Appends bytes [begin, end) of the input to `out`.
  bool Append(size_t begin, size_t end, std::string* out) {
    if (fd_ < 0) {
      out->append(reinterpret_cast<const char*>(data_) + begin, end - begin);
      return true;
    }
    const size_t old = out->size();
    out->resize(old + (end - begin));
    return Read(begin, end - begin, reinterpret_cast<uint8_t*>(&(*out)[old]));
  }

  absl::Status error() const { return error_; }
  int64_t read_bytes() const { return read_bytes_; }

 private:
  // Reads `n` bytes at `pos` into `dst`.
  bool Read(size_t pos, size_t n, uint8_t* dst) {
    while (n > 0) {
      const ssize_t got = pread(fd_, dst, n, static_cast<off_t>(pos));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        error_ = absl::DataLossError(
            fmt::format("cannot read byte {} of the file ({})", pos,
                        got < 0 ? std::strerror(errno) : "it ended early"));
        return false;
      }
      pos += static_cast<size_t>(got);
      read_bytes_ += got;
      dst += got;
      n -= static_cast<size_t>(got);
    }
    return true;
  }

  // Moves the window to start at `pos`.
  bool Fill(size_t pos) {
    if (fd_ < 0 || pos >= size_) {
      error_ = absl::InternalError(fmt::format("read past byte {}", pos));
      return false;
    }
    // Not zero-filled: only the bytes read are used.
    if (buffer_ == nullptr) buffer_.reset(new uint8_t[max_window_]);
    // Reading on from the window's end doubles it; a jump starts small.
    window_ = pos == end_ && end_ != 0 ? std::min(2 * window_, max_window_)
                                       : min_window_;
    const size_t n = std::min(window_, size_ - pos);
    if (!Read(pos, n, buffer_.get())) return false;
    data_ = buffer_.get();
    begin_ = pos;
    end_ = pos + n;
    return true;
  }

  const uint8_t* data_ = nullptr;
  size_t begin_ = 0;  // input offsets held in data_: [begin_, end_)
  size_t end_ = 0;
  size_t size_;
  int fd_ = -1;
  size_t min_window_ = 0;
  size_t max_window_ = 0;
  size_t window_ = 0;
  std::unique_ptr<uint8_t[]> buffer_;
  int64_t read_bytes_ = 0;
  absl::Status error_;
};

class Compactor {
 public:
  explicit Compactor(WireInput* in) : in_(*in), size_(in->size()) {}

  // Walks the model; `always_copy`: fill CompactModel::bytes even if nothing
  // was skipped.
  absl::StatusOr<CompactModel> Run(bool always_copy) {
    size_t new_size = 0;
    if (absl::Status s = Message(Kind::kModel, 0, size_, 0, &new_size);
        !s.ok()) {
      return s;
    }
    CompactModel model;
    model.skipped_tensors = skipped_tensors_;
    model.skipped_bytes = skipped_bytes_;
    if (edits_.empty() && !always_copy) return model;
    model.bytes.reserve(new_size);
    size_t cursor = 0;
    for (const Edit& e : edits_) {
      if (!in_.Append(cursor, e.begin, &model.bytes)) return in_.error();
      model.bytes.append(e.replacement);
      cursor = e.end;
    }
    if (!in_.Append(cursor, size_, &model.bytes)) return in_.error();
    model.read_bytes = in_.read_bytes();
    return model;
  }

 private:
  absl::Status Error(size_t pos, std::string_view what) const {
    return absl::InvalidArgumentError(
        fmt::format("malformed protobuf at byte {}: {}", pos, what));
  }

  absl::Status ReadVarint(size_t* pos, size_t end, uint64_t* value) const {
    // Fast path: the whole varint lies in the window (almost always).
    const size_t n = *pos < end ? std::min(in_.Available(*pos),
                                           std::min<size_t>(end - *pos, 10))
                                : 0;
    uint64_t v = 0;
    if (n > 0) {
      const uint8_t* p = in_.At(*pos);
      for (size_t i = 0; i < n; ++i) {
        v |= uint64_t{p[i] & 0x7fu} << (7 * i);
        if ((p[i] & 0x80) == 0) {
          *pos += i + 1;
          *value = v;
          return absl::OkStatus();
        }
      }
    }
    v = 0;
    for (int i = 0; i < 10; ++i) {
      if (*pos >= end) return Error(*pos, "varint runs past the end");
      uint8_t b = 0;
      if (!in_.Byte(*pos, &b)) return in_.error();
      ++*pos;
      v |= uint64_t{b & 0x7fu} << (7 * i);
      if ((b & 0x80) == 0) {
        *value = v;
        return absl::OkStatus();
      }
    }
    return Error(*pos, "varint longer than 10 bytes");
  }

  absl::Status ReadTag(size_t* pos, size_t end, uint32_t* f,
                       uint32_t* wire_type) const {
    const size_t start = *pos;
    uint64_t tag = 0;
    if (absl::Status s = ReadVarint(pos, end, &tag); !s.ok()) return s;
    if (tag > 0xffffffffu || (tag >> 3) == 0) {
      return Error(start, "invalid field tag");
    }
    *f = static_cast<uint32_t>(tag >> 3);
    *wire_type = static_cast<uint32_t>(tag & 7);
    return absl::OkStatus();
  }

  // Reads a length prefix at *pos and checks that the bytes it announces lie
  // within `end`; leaves *pos at the first byte of the body.
  absl::Status ReadLength(size_t* pos, size_t end, size_t* length) const {
    const size_t start = *pos;
    uint64_t len = 0;
    if (absl::Status s = ReadVarint(pos, end, &len); !s.ok()) return s;
    if (len > end - *pos) {
      return Error(start, fmt::format("length {} runs past the end", len));
    }
    *length = static_cast<size_t>(len);
    return absl::OkStatus();
  }

  // Skips the value of a field whose tag was just read.
  absl::Status SkipField(uint32_t f, uint32_t wire_type, size_t* pos,
                         size_t end, int depth) const {
    switch (wire_type) {
      case kVarint: {
        uint64_t ignored = 0;
        return ReadVarint(pos, end, &ignored);
      }
      case kFixed64:
      case kFixed32: {
        const size_t n = wire_type == kFixed64 ? 8 : 4;
        if (n > end - *pos) return Error(*pos, "fixed field runs past the end");
        *pos += n;
        return absl::OkStatus();
      }
      case kLengthDelimited: {
        size_t len = 0;
        if (absl::Status s = ReadLength(pos, end, &len); !s.ok()) return s;
        *pos += len;
        return absl::OkStatus();
      }
      case kStartGroup: {
        if (depth + 1 > kMaxWireDepth) {
          return Error(*pos, "groups nested too deeply");
        }
        while (*pos < end) {
          const size_t tag_pos = *pos;
          uint32_t inner = 0;
          uint32_t inner_type = 0;
          if (absl::Status s = ReadTag(pos, end, &inner, &inner_type);
              !s.ok()) {
            return s;
          }
          if (inner_type == kEndGroup) {
            if (inner != f) return Error(tag_pos, "mismatched end of group");
            return absl::OkStatus();
          }
          if (absl::Status s =
                  SkipField(inner, inner_type, pos, end, depth + 1);
              !s.ok()) {
            return s;
          }
        }
        return Error(*pos, "group runs past the end");
      }
      case kEndGroup:
        return Error(*pos, "end of group without its start");
      default:
        return Error(*pos, fmt::format("invalid wire type {}", wire_type));
    }
  }

  // Walks the message body [begin, end) of `kind`; *new_size is its size in
  // the output.
  absl::Status Message(Kind kind, size_t begin, size_t end, int depth,
                       size_t* new_size) {
    if (kind == Kind::kTensor) return Tensor(begin, end, new_size);
    int64_t delta = 0;
    size_t pos = begin;
    while (pos < end) {
      uint32_t f = 0;
      uint32_t wire_type = 0;
      if (absl::Status s = ReadTag(&pos, end, &f, &wire_type); !s.ok()) {
        return s;
      }
      const std::optional<Kind> child = ChildKind(kind, f);
      if (!child.has_value() || wire_type != kLengthDelimited) {
        if (absl::Status s = SkipField(f, wire_type, &pos, end, depth);
            !s.ok()) {
          return s;
        }
        continue;
      }
      const size_t length_pos = pos;
      size_t length = 0;
      if (absl::Status s = ReadLength(&pos, end, &length); !s.ok()) return s;
      if (depth + 1 > kMaxWireDepth) {
        return Error(length_pos, "messages nested too deeply");
      }
      // The length prefix is rewritten if the child shrinks; its slot comes
      // before the child's own edits, so the edits stay in input order.
      const size_t slot = edits_.size();
      edits_.push_back({length_pos, length_pos, {}});
      size_t child_size = 0;
      if (absl::Status s =
              Message(*child, pos, pos + length, depth + 1, &child_size);
          !s.ok()) {
        return s;
      }
      if (edits_.size() == slot + 1) {
        edits_.pop_back();  // child unchanged
      } else if (child_size != length) {
        Edit& e = edits_[slot];
        e.end = pos;
        AppendVarint(child_size, &e.replacement);
        delta += static_cast<int64_t>(e.replacement.size()) -
                 static_cast<int64_t>(pos - length_pos) +
                 static_cast<int64_t>(child_size) -
                 static_cast<int64_t>(length);
      }
      pos += length;
    }
    *new_size = static_cast<size_t>(static_cast<int64_t>(end - begin) + delta);
    return absl::OkStatus();
  }

  // Element count of a tensor from its dims, saturated above
  // kMaxKeptElements; nullopt if a dim is negative or malformed.
  struct TensorScan {
    int64_t elements = 1;
    bool dims_ok = true;
    bool has_location = false;
    size_t payload_bytes = 0;
    size_t first_payload = 0;
  };

  void AddDim(uint64_t d, TensorScan* scan) const {
    const auto dim = static_cast<int64_t>(d);
    if (dim < 0) {
      scan->dims_ok = false;
    } else if (dim == 0 || scan->elements == 0) {
      scan->elements = 0;
    } else if (dim > kMaxKeptElements ||
               scan->elements * dim > kMaxKeptElements) {
      scan->elements = kMaxKeptElements + 1;
    } else {
      scan->elements *= dim;
    }
  }

  // Scans a TensorProto body: dims, where its data is, payload size.
  absl::Status ScanTensor(size_t begin, size_t end, TensorScan* scan) const {
    size_t pos = begin;
    while (pos < end) {
      const size_t field_start = pos;
      uint32_t f = 0;
      uint32_t wire_type = 0;
      if (absl::Status s = ReadTag(&pos, end, &f, &wire_type); !s.ok()) {
        return s;
      }
      const size_t value_start = pos;
      if (absl::Status s = SkipField(f, wire_type, &pos, end, 0); !s.ok()) {
        return s;
      }
      if (f == field::kTensorDims) {
        size_t p = value_start;
        uint64_t d = 0;
        if (wire_type == kVarint) {
          if (ReadVarint(&p, pos, &d).ok()) AddDim(d, scan);
        } else if (wire_type == kLengthDelimited) {
          size_t len = 0;
          if (!ReadLength(&p, pos, &len).ok()) continue;
          while (p < pos) {
            if (!ReadVarint(&p, pos, &d).ok()) {
              scan->dims_ok = false;
              break;
            }
            AddDim(d, scan);
          }
        } else {
          scan->dims_ok = false;
        }
      } else if (f == field::kTensorExternalData ||
                 f == field::kTensorDataLocation) {
        scan->has_location = true;
      } else if (IsPayloadField(f)) {
        if (scan->payload_bytes == 0) scan->first_payload = value_start;
        scan->payload_bytes += pos - field_start;
      }
    }
    return absl::OkStatus();
  }

  // A TensorProto: drops the payload fields of a large tensor and marks it.
  absl::Status Tensor(size_t begin, size_t end, size_t* new_size) {
    TensorScan scan;
    if (absl::Status s = ScanTensor(begin, end, &scan); !s.ok()) return s;
    *new_size = end - begin;
    if (!scan.dims_ok || scan.has_location || scan.payload_bytes == 0 ||
        scan.elements <= kMaxKeptElements) {
      return absl::OkStatus();
    }
    size_t pos = begin;
    while (pos < end) {
      const size_t field_start = pos;
      uint32_t f = 0;
      uint32_t wire_type = 0;
      // Already validated by ScanTensor.
      (void)ReadTag(&pos, end, &f, &wire_type);
      (void)SkipField(f, wire_type, &pos, end, 0);
      if (!IsPayloadField(f)) continue;
      if (!edits_.empty() && edits_.back().end == field_start &&
          edits_.back().replacement.empty() &&
          edits_.back().begin != edits_.back().end) {
        edits_.back().end = pos;  // adjacent payload fields: one edit
      } else {
        edits_.push_back({field_start, pos, {}});
      }
    }
    std::string entry;
    AppendLengthDelimited(1, kSkippedPayloadKey, &entry);
    AppendLengthDelimited(
        2, fmt::format("{}:{}", scan.first_payload, scan.payload_bytes),
        &entry);
    std::string marker;
    AppendVarint((uint64_t{field::kTensorDataLocation} << 3) | kVarint,
                 &marker);
    AppendVarint(onnx::TensorProto::EXTERNAL, &marker);
    AppendLengthDelimited(field::kTensorExternalData, entry, &marker);
    *new_size = *new_size - scan.payload_bytes + marker.size();
    edits_.push_back({end, end, std::move(marker)});
    ++skipped_tensors_;
    skipped_bytes_ += static_cast<int64_t>(scan.payload_bytes);
    return absl::OkStatus();
  }

  WireInput& in_;
  size_t size_;
  std::vector<Edit> edits_;
  int64_t skipped_tensors_ = 0;
  int64_t skipped_bytes_ = 0;
};

}  // namespace

absl::StatusOr<CompactModel> CompactModelBytes(std::string_view bytes) {
  WireInput input(bytes);
  return Compactor(&input).Run(/*always_copy=*/false);
}

absl::StatusOr<CompactModel> CompactModelFile(int fd, size_t size,
                                              const WireReadOptions& options) {
  if (size <= options.whole_file_limit) {
    // A small file: one read, then the walk in memory.
    CompactModel whole;
    WireInput file(fd, size, options);
    if (!file.Append(0, size, &whole.bytes)) return file.error();
    WireInput input(whole.bytes);
    absl::StatusOr<CompactModel> compact =
        Compactor(&input).Run(/*always_copy=*/false);
    if (!compact.ok()) return compact;
    compact->read_bytes = file.read_bytes();
    if (compact->bytes.empty()) compact->bytes = std::move(whole.bytes);
    return compact;
  }
  WireInput input(fd, size, options);
  return Compactor(&input).Run(/*always_copy=*/true);
}

bool HasSkippedPayload(const onnx::TensorProto& proto) {
  if (proto.data_location() != onnx::TensorProto::EXTERNAL) return false;
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == kSkippedPayloadKey) return true;
  }
  return false;
}

}  // namespace ridgeline::importers
