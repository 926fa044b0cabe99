#include "importers/onnx_importer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "graph/fmt_absl.h"
#include "importers/onnx_convert.h"
#include "importers/onnx_wire.h"
#include "importers/shape_inference.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {
namespace {

// An open file descriptor, closed on destruction.
class OpenFile {
 public:
  OpenFile() = default;
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  ~OpenFile() {
    if (fd_ >= 0) close(fd_);
  }

  absl::Status Open(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      return absl::NotFoundError(fmt::format("{}: no such file", path));
    }
    if (std::filesystem::is_directory(path, ec)) {
      return absl::InvalidArgumentError(
          fmt::format("{}: is a directory, not an ONNX file", path));
    }
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      return absl::PermissionDeniedError(
          fmt::format("{}: cannot be opened for reading", path));
    }
    struct stat st;
    if (fstat(fd_, &st) != 0) {
      return absl::InternalError(fmt::format("{}: cannot stat", path));
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ == 0) {
      return absl::InvalidArgumentError(
          fmt::format("{}: is empty, not an ONNX model", path));
    }
    return absl::OkStatus();
  }

  int fd() const { return fd_; }
  size_t size() const { return size_; }

 private:
  int fd_ = -1;
  size_t size_ = 0;
};

absl::Status TooLarge(std::string_view display_name) {
  return absl::InvalidArgumentError(
      fmt::format("{}{}", display_name,
                  ": is larger than the 2 GiB a protobuf can hold; store "
                  "the weights as external data"));
}

absl::Status NotValid(std::string_view display_name,
                      const absl::Status& wire_error) {
  return absl::InvalidArgumentError(
      fmt::format("{}: is not a valid ONNX model ({}; truncated or not ONNX)",
                  display_name, std::string(wire_error.message())));
}

// The protobuf parse of a (compacted) ModelProto into `arena`.
absl::StatusOr<onnx::ModelProto*> Parse(std::string_view bytes,
                                        std::string_view display_name,
                                        google::protobuf::Arena* arena) {
  onnx::ModelProto& model =
      *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(arena);
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(INT_MAX);
  stream.SetRecursionLimit(512);
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    return absl::InvalidArgumentError(
        fmt::format("{}{}", display_name,
                    ": is not a valid ONNX model (protobuf parse failed; "
                    "truncated or not ONNX)"));
  }
  if (!model.has_graph() || model.ir_version() <= 0) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: is not an ONNX model (no graph or no IR version in the protobuf)",
        display_name));
  }
  return &model;
}

// One arena for a whole parse: the model's many small strings and messages
// cost a pointer bump each and are freed in one go, instead of a
// malloc/free apiece (which dominated large graphs; bench/scaling_bench).
google::protobuf::ArenaOptions ParseArenaOptions() {
  google::protobuf::ArenaOptions arena_options;
  arena_options.start_block_size = 64 << 10;
  arena_options.max_block_size = 4 << 20;
  return arena_options;
}

// The protobuf parse of a (compacted) ModelProto and its conversion.
absl::StatusOr<graph::Graph> ParseAndConvert(std::string_view bytes,
                                             std::string_view display_name,
                                             const std::string& base_dir,
                                             const ImportOptions& options) {
  google::protobuf::Arena arena(ParseArenaOptions());
  absl::StatusOr<onnx::ModelProto*> model = Parse(bytes, display_name, &arena);
  if (!model.ok()) return model.status();
  absl::StatusOr<graph::Graph> graph = ConvertModel(*model, base_dir, options);
  if (!graph.ok()) {
    return absl::Status(graph.status().code(),
                        fmt::format("{}: {}", display_name,
                                    std::string(graph.status().message())));
  }
  return graph;
}

// The main graph's declared inputs of a (compacted) ModelProto.
absl::StatusOr<std::vector<DeclaredInput>> ParseDeclaredInputs(
    std::string_view bytes, std::string_view display_name) {
  google::protobuf::Arena arena(ParseArenaOptions());
  absl::StatusOr<onnx::ModelProto*> model = Parse(bytes, display_name, &arena);
  if (!model.ok()) return model.status();
  const onnx::GraphProto& g = (*model)->graph();
  std::set<std::string> initializers;
  for (const auto& init : g.initializer()) initializers.insert(init.name());
  std::vector<DeclaredInput> inputs;
  std::map<std::string, size_t> index;
  for (const auto& input : g.input()) {
    if (initializers.contains(input.name())) continue;
    DeclaredInput d;
    d.name = input.name();
    if (input.type().has_tensor_type()) {
      const auto& tt = input.type().tensor_type();
      d.dtype = graph::DTypeFromOnnx(tt.elem_type())
                    .value_or(graph::DType::kUndefined);
      d.shape_known = tt.has_shape();
      for (const auto& dim : tt.shape().dim()) {
        if (dim.has_dim_value()) {
          d.dims.emplace_back(dim.dim_value());
        } else {
          d.dims.emplace_back(dim.dim_param());
        }
      }
    }
    index[d.name] = inputs.size();
    inputs.push_back(std::move(d));
  }
  for (const auto& node : g.node()) {
    for (const std::string& name : node.input()) {
      if (auto it = index.find(name); it != index.end()) {
        inputs[it->second].read_by.push_back(node.op_type());
      }
    }
  }
  return inputs;
}

// The (compacted) bytes of the model file at `path`, as ImportOnnxFile reads
// them.
absl::StatusOr<std::string> ReadCompactFile(const std::string& path) {
  OpenFile file;
  if (absl::Status s = file.Open(path); !s.ok()) return s;
  if (file.size() > static_cast<size_t>(INT_MAX)) return TooLarge(path);
  // The file is read, not mapped: the weights' payloads are skipped by
  // length and never enter the process (importers/onnx_wire.h).
  absl::StatusOr<CompactModel> compact =
      CompactModelFile(file.fd(), file.size());
  if (!compact.ok()) {
    if (absl::IsDataLoss(compact.status())) {
      return absl::DataLossError(
          fmt::format("{}: {}", path, std::string(compact.status().message())));
    }
    return NotValid(path, compact.status());
  }
  return std::move(compact->bytes);
}

// A serialized model held in memory is not empty and within protobuf's
// 2 GiB message limit.
absl::Status CheckModelBytesSize(std::string_view bytes,
                                 std::string_view display_name) {
  if (bytes.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: is empty, not an ONNX model", display_name));
  }
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return TooLarge(display_name);
  }
  return absl::OkStatus();
}

// The bytes to parse of a serialized model held in memory: `bytes` itself,
// or its compacted copy (kept in `*storage`).
absl::StatusOr<std::string_view> CompactBytes(std::string_view bytes,
                                              std::string_view display_name,
                                              std::string* storage) {
  if (absl::Status s = CheckModelBytesSize(bytes, display_name); !s.ok()) {
    return s;
  }
  // The weights stay where they are: their payloads are skipped by length
  // and the protobuf parse sees only the compact rest
  // (importers/onnx_wire.h).
  absl::StatusOr<CompactModel> compact = CompactModelBytes(bytes);
  if (!compact.ok()) return NotValid(display_name, compact.status());
  if (compact->bytes.empty()) return bytes;
  *storage = std::move(compact->bytes);
  return std::string_view(*storage);
}

}  // namespace

absl::StatusOr<graph::Graph> ImportOnnxFile(const std::string& path,
                                            const ImportOptions& options) {
  absl::StatusOr<std::string> bytes = ReadCompactFile(path);
  if (!bytes.ok()) return bytes.status();
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  return ParseAndConvert(*bytes, path, base_dir, options);
}

absl::StatusOr<graph::Graph> ImportOnnxBytes(std::string_view bytes,
                                             std::string_view display_name,
                                             const std::string& base_dir,
                                             const ImportOptions& options) {
  std::string storage;
  absl::StatusOr<std::string_view> compact =
      CompactBytes(bytes, display_name, &storage);
  if (!compact.ok()) return compact.status();
  return ParseAndConvert(*compact, display_name, base_dir, options);
}

absl::StatusOr<graph::Graph> ImportWeightlessOnnxBytes(
    std::string_view bytes, std::string_view display_name,
    const ImportOptions& options) {
  if (absl::Status s = CheckModelBytesSize(bytes, display_name); !s.ok()) {
    return s;
  }
  return ParseAndConvert(bytes, display_name, "", options);
}

absl::StatusOr<std::vector<DeclaredInput>> ReadDeclaredInputsFile(
    const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadCompactFile(path);
  if (!bytes.ok()) return bytes.status();
  return ParseDeclaredInputs(*bytes, path);
}

absl::StatusOr<std::vector<DeclaredInput>> ReadDeclaredInputsBytes(
    std::string_view bytes, std::string_view display_name) {
  std::string storage;
  absl::StatusOr<std::string_view> compact =
      CompactBytes(bytes, display_name, &storage);
  if (!compact.ok()) return compact.status();
  return ParseDeclaredInputs(*compact, display_name);
}

}  // namespace ridgeline::importers
