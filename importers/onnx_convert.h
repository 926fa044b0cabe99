// Converts a parsed onnx::ModelProto into a graph::Graph (internal to
// importers/).
#ifndef RIDGELINE_IMPORTERS_ONNX_CONVERT_H_
#define RIDGELINE_IMPORTERS_ONNX_CONVERT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "importers/onnx_importer.h"
#include "importers/shape_inference.h"
#include "importers/tensor_proto.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {

// Builds the graph: first expands the calls of model-local functions in
// `model` (function_inliner.h), then tensors for graph inputs (symbolic
// dims bound from `options`), initializers (weights; external data only
// checked for existence), node outputs, and nodes of subgraphs with their
// parent. Then resolves every shape (shape_inference.h) and finalizes the
// graph.
absl::StatusOr<graph::Graph> ConvertModel(onnx::ModelProto* model,
                                          const std::string& base_dir,
                                          const ImportOptions& options);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_ONNX_CONVERT_H_
