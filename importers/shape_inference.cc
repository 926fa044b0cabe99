#include "importers/shape_inference.h"

#include "importers/shapes/resolver.h"

namespace ridgeline::importers {

absl::Status ResolveShapes(
    const std::vector<const onnx::NodeProto*>& protos,
    const onnx::ModelProto& model,
    const absl::flat_hash_map<int, std::vector<double>>& input_floats,
    graph::Graph* graph) {
  shapes::Resolver resolver(protos, model, graph);
  resolver.SeedFloats(input_floats);
  return resolver.Run();
}

}  // namespace ridgeline::importers
