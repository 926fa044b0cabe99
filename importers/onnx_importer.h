// Reads an ONNX model into a graph::Graph with every tensor's shape resolved
// (or listed in Graph::unresolved with the reason).
//
//   importers::ImportOptions options;
//   options.dims["batch"] = 8;
//   absl::StatusOr<graph::Graph> g = importers::ImportOnnxFile("m.onnx",
//   options);
#ifndef RIDGELINE_IMPORTERS_ONNX_IMPORTER_H_
#define RIDGELINE_IMPORTERS_ONNX_IMPORTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace ridgeline::importers {

struct ImportOptions {
  // Values for symbolic input dims, by dim_param name (--dim NAME=VALUE).
  absl::flat_hash_map<std::string, int64_t> dims;
  // Binds the first dim of every graph input whose first dim is symbolic
  // (--batch N). Explicit `dims` entries win over it.
  std::optional<int64_t> batch;
};

// Imports the model at `path`. Errors name the file and the problem.
absl::StatusOr<graph::Graph> ImportOnnxFile(const std::string& path,
                                            const ImportOptions& options);

// Imports a serialized ModelProto held in memory; `display_name` is used in
// error messages. External data files are resolved relative to `base_dir`
// (only checked for existence, never read).
absl::StatusOr<graph::Graph> ImportOnnxBytes(std::string_view bytes,
                                             std::string_view display_name,
                                             const std::string& base_dir,
                                             const ImportOptions& options);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_ONNX_IMPORTER_H_
