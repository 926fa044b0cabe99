#include "importers/shape_inference.h"

#include "importers/shapes/resolver.h"

namespace ridgeline::importers {

absl::Status ResolveShapes(const std::vector<const onnx::NodeProto*>& protos,
                           const onnx::ModelProto& model, graph::Graph* graph) {
  return shapes::Resolver(protos, model, graph).Run();
}

}  // namespace ridgeline::importers
