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
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {

// Builds the graph: tensors for graph inputs (symbolic dims bound from
// `options`), initializers (weights; external data only checked for
// existence), node outputs, and nodes of subgraphs with their parent. Then
// resolves every shape (shape_inference.h) and finalizes the graph.
absl::StatusOr<graph::Graph> ConvertModel(const onnx::ModelProto& model,
                                          const std::string& base_dir,
                                          const ImportOptions& options);

// Dims and dtype of a TensorProto (initializer or Constant value).
absl::Status TensorProtoInfo(const onnx::TensorProto& proto,
                             graph::DType* dtype, graph::Dims* dims);

// Values of a small integer TensorProto (int32/int64/int8/.../bool), or
// nullopt if it is not integer, too large (> max_elements), or external.
std::optional<std::vector<int64_t>> TensorProtoInts(
    const onnx::TensorProto& proto, int64_t max_elements);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_ONNX_CONVERT_H_
