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
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace ridgeline::importers {

// One dim of an --input binding: a value, "?" (keep the model's dim) or a
// name given to the dim (bound like a dim_param; "batch" joins the batch).
using InputDim = std::variant<int64_t, std::string>;

struct ImportOptions {
  // Values for symbolic input dims, by dim_param name (--dim NAME=VALUE).
  // A name that matches no symbolic input dim is an error.
  absl::flat_hash_map<std::string, int64_t> dims;
  // Binds the batch dims (Graph::batch: dims named like "batch" and the
  // symbolic leading dim of every input) (--batch N). Explicit `dims`
  // entries win over it.
  std::optional<int64_t> batch;
  // Every dim of one input, by input name (--input NAME=D0xD1x...).
  absl::flat_hash_map<std::string, std::vector<InputDim>> inputs;
  // Values of small inputs, fed to the constant evaluator
  // (--input-value NAME=V,...): integer and bool inputs get int_values,
  // floating ones folded floats.
  absl::flat_hash_map<std::string, std::vector<double>> input_values;
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

// As ImportOnnxBytes, for a serialized ModelProto that holds no weight
// payload (a weightless graph, exported with export_params=False: the zoo's,
// which zoo_test checks): parsed as it is, without the wire pre-pass that
// looks for payloads to leave out (a tenth of a 70B zoo import). A payload
// the bytes do hold is parsed with them, so this is for trusted bytes only.
absl::StatusOr<graph::Graph> ImportWeightlessOnnxBytes(
    std::string_view bytes, std::string_view display_name,
    const ImportOptions& options);

// A main-graph input as the model declares it, before any binding (what
// --serve reads to find a decoder's KV, length and branch inputs).
struct DeclaredInput {
  std::string name;
  graph::DType dtype = graph::DType::kUndefined;
  bool shape_known = false;
  // Per dim: its value, or its dim_param ("" for an anonymous dim).
  std::vector<InputDim> dims;
  // Op types of the main-graph nodes that read it, in node order.
  std::vector<std::string> read_by;
};

// Whether a symbolic dim belongs to the batch (ImportOptions::batch binds
// it): a dim named like "batch" (any case) or the leading dim of an input
// of rank >= 2.
bool IsBatchDim(std::string_view name, size_t axis, size_t rank);

// The main graph's inputs (initializers excluded), in order, without
// importing the graph. Errors name the model and the problem.
absl::StatusOr<std::vector<DeclaredInput>> ReadDeclaredInputsFile(
    const std::string& path);
absl::StatusOr<std::vector<DeclaredInput>> ReadDeclaredInputsBytes(
    std::string_view bytes, std::string_view display_name);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_ONNX_IMPORTER_H_
