#include "importers/onnx_importer.h"

#include <fcntl.h>
#include <sys/mman.h>
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

// A read-only memory map of a whole file, unmapped on destruction.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (data_ != nullptr && data_ != MAP_FAILED) munmap(data_, size_);
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
    int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) {
      return absl::PermissionDeniedError(
          fmt::format("{}: cannot be opened for reading", path));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
      close(fd);
      return absl::InternalError(fmt::format("{}: cannot stat", path));
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ == 0) {
      close(fd);
      return absl::InvalidArgumentError(
          fmt::format("{}: is empty, not an ONNX model", path));
    }
    data_ = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (data_ == MAP_FAILED) {
      return absl::InternalError(fmt::format("{}: cannot be mapped", path));
    }
    return absl::OkStatus();
  }

  std::string_view bytes() const {
    return std::string_view(static_cast<const char*>(data_), size_);
  }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

absl::StatusOr<graph::Graph> ImportOnnxFile(const std::string& path,
                                            const ImportOptions& options) {
  MappedFile file;
  if (absl::Status s = file.Open(path); !s.ok()) return s;
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  return ImportOnnxBytes(file.bytes(), path, base_dir, options);
}

absl::StatusOr<graph::Graph> ImportOnnxBytes(std::string_view bytes,
                                             std::string_view display_name,
                                             const std::string& base_dir,
                                             const ImportOptions& options) {
  if (bytes.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: is empty, not an ONNX model", display_name));
  }
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError(
        fmt::format("{}{}", display_name,
                    ": is larger than the 2 GiB a protobuf can hold; store "
                    "the weights as external data"));
  }
  // The weights stay in the file: their payloads are skipped by length and
  // the protobuf parse sees only the compact rest (importers/onnx_wire.h).
  absl::StatusOr<CompactModel> compact = CompactModelBytes(bytes);
  if (!compact.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: is not a valid ONNX model ({}; truncated or not ONNX)",
                    display_name, std::string(compact.status().message())));
  }
  if (!compact->bytes.empty()) bytes = compact->bytes;
  // One arena for the whole parse: the model's many small strings and
  // messages cost a pointer bump each and are freed in one go, instead of a
  // malloc/free apiece (which dominated large graphs; bench/scaling_bench).
  google::protobuf::ArenaOptions arena_options;
  arena_options.start_block_size = 64 << 10;
  arena_options.max_block_size = 4 << 20;
  google::protobuf::Arena arena(arena_options);
  onnx::ModelProto& model =
      *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
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
  absl::StatusOr<graph::Graph> graph = ConvertModel(model, base_dir, options);
  if (!graph.ok()) {
    return absl::Status(graph.status().code(),
                        fmt::format("{}: {}", display_name,
                                    std::string(graph.status().message())));
  }
  return graph;
}

}  // namespace ridgeline::importers
