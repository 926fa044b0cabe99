#include "importers/shape_inference.h"

namespace ridgeline::importers {

// Placeholder: shapes come from the model's value_info only.
absl::Status ResolveShapes(const std::vector<const onnx::NodeProto*>& protos,
                           const onnx::ModelProto& model, graph::Graph* graph) {
  (void)protos;
  (void)model;
  for (int n : graph->topological_order()) {
    const graph::Node& node = graph->node(n);
    for (int out : node.outputs) {
      if (out < 0) continue;
      graph::Tensor& t = graph->mutable_tensor(out);
      if (!t.shape_known) {
        graph->unresolved.push_back({t.name, node.name, "not implemented"});
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace ridgeline::importers
