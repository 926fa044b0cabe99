// Resolves the shape and dtype of every tensor of a graph (internal to
// importers/): per-op shape functions registered by op type, a small constant
// evaluator over int64 tensors for shape computations (Shape -> Gather ->
// Concat -> Reshape chains), and ONNX's own per-op inference as a fallback.
#ifndef RIDGELINE_IMPORTERS_SHAPE_INFERENCE_H_
#define RIDGELINE_IMPORTERS_SHAPE_INFERENCE_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "graph/graph.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {

// `protos[i]` is the NodeProto of graph node i (same order). Fills dims,
// dtype and shape_known of each node output, and int_values of small integer
// tensors it can fold; tensors it cannot resolve are appended to
// graph->unresolved with the node and the reason. Errors only on contradictions
// that make the model invalid (e.g. a dim product overflow). `input_floats`
// holds the given values of floating graph inputs (--input-value), by
// tensor index.
absl::Status ResolveShapes(
    const std::vector<const onnx::NodeProto*>& protos,
    const onnx::ModelProto& model,
    const absl::flat_hash_map<int, std::vector<double>>& input_floats,
    graph::Graph* graph);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_SHAPE_INFERENCE_H_
