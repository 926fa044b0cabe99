// The helper module ridgeline_onnx_infer (importers/shapes/onnx_infer_abi.h):
// libonnx's type-and-shape inference of one node, behind a C function that
// takes and returns serialized messages. Linked against the shared libonnx,
// libonnx_proto and libprotobuf; opened by shapes/onnx_fallback.cc at the
// first node that needs it, so that a run without such a node (most models)
// never loads libonnx, and a process whose own protobuf classes are linked
// statically (analyze) never hands them to libonnx.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "importers/shapes/onnx_infer_abi.h"
#include "onnx/defs/schema.h"
#include "onnx/defs/shape_inference.h"

namespace {

// Handed out for graph attributes: refuses, so the inference fails with a
// message rather than a null dereference (the importer resolves subgraphs of
// If, Loop, Scan and SequenceMap itself).
class NoSubgraphInferencer final : public onnx::GraphInferencer {
 public:
  std::vector<const onnx::TypeProto*> doInferencing(
      const std::vector<const onnx::TypeProto*>&,
      const std::vector<const onnx::TensorProto*>&) override {
    throw onnx::InferenceError("subgraph inference is not run here");
  }
};

// Serves the request's node, input types and folded input values to an ONNX
// inference function.
class RequestContext final : public onnx::InferenceContext {
 public:
  explicit RequestContext(const onnx::GraphProto& graph)
      : node_(graph.node(0)),
        input_types_(node_.input_size(), nullptr),
        input_data_(node_.input_size(), nullptr),
        output_types_(node_.output_size()) {
    for (int i = 0; i < node_.input_size() && i < graph.input_size(); ++i) {
      if (graph.input(i).has_type()) input_types_[i] = &graph.input(i).type();
    }
    for (const onnx::TensorProto& data : graph.initializer()) {
      char* end = nullptr;
      const long index = std::strtol(data.name().c_str(), &end, 10);
      if (end != data.name().c_str() && *end == '\0' && index >= 0 &&
          index < node_.input_size()) {
        input_data_[index] = &data;
      }
    }
  }

  const onnx::AttributeProto* getAttribute(
      const std::string& name) const override {
    for (const auto& a : node_.attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }
  size_t getNumInputs() const override { return node_.input_size(); }
  const onnx::TypeProto* getInputType(size_t index) const override {
    return index < input_types_.size() ? input_types_[index] : nullptr;
  }
  const onnx::TensorProto* getInputData(size_t index) const override {
    return index < input_data_.size() ? input_data_[index] : nullptr;
  }
  size_t getNumOutputs() const override { return output_types_.size(); }
  onnx::TypeProto* getOutputType(size_t index) override {
    return &output_types_[index];
  }
  onnx::GraphInferencer* getGraphAttributeInferencer(
      const std::string&) override {
    return &no_subgraphs_;
  }
  const onnx::SparseTensorProto* getInputSparseData(size_t) const override {
    return nullptr;
  }
  const onnx::TensorShapeProto* getSymbolicInput(size_t) const override {
    return nullptr;
  }

  const std::vector<onnx::TypeProto>& output_types() const {
    return output_types_;
  }

 private:
  const onnx::NodeProto& node_;
  std::vector<const onnx::TypeProto*> input_types_;
  std::vector<const onnx::TensorProto*> input_data_;
  std::vector<onnx::TypeProto> output_types_;
  NoSubgraphInferencer no_subgraphs_;
};

int Reply(int result, const std::string& bytes, char** response,
          size_t* response_size) {
  *response = static_cast<char*>(std::malloc(bytes.empty() ? 1 : bytes.size()));
  *response_size = 0;
  if (*response == nullptr) return RIDGELINE_ONNX_INFER_FAILED;
  std::memcpy(*response, bytes.data(), bytes.size());
  *response_size = bytes.size();
  return result;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int ridgeline_onnx_infer(
    const char* request, size_t request_size, char** response,
    size_t* response_size) {
  try {
    onnx::ModelProto model;
    if (!model.ParseFromArray(request, static_cast<int>(request_size)) ||
        model.graph().node_size() != 1 || model.opset_import_size() != 1) {
      return Reply(RIDGELINE_ONNX_INFER_FAILED, "malformed inference request",
                   response, response_size);
    }
    const onnx::NodeProto& node = model.graph().node(0);
    const onnx::OperatorSetIdProto& opset = model.opset_import(0);
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(
        node.op_type(), static_cast<int>(opset.version()), opset.domain());
    if (schema == nullptr) {
      return Reply(RIDGELINE_ONNX_INFER_NO_SCHEMA, "", response, response_size);
    }
    RequestContext ctx(model.graph());
    schema->GetTypeAndShapeInferenceFunction()(ctx);
    onnx::ModelProto reply;
    for (const onnx::TypeProto& type : ctx.output_types()) {
      onnx::ValueInfoProto* output = reply.mutable_graph()->add_output();
      if (type.value_case() != onnx::TypeProto::VALUE_NOT_SET) {
        *output->mutable_type() = type;
      }
    }
    return Reply(RIDGELINE_ONNX_INFER_OK, reply.SerializeAsString(), response,
                 response_size);
  } catch (const std::exception& e) {
    return Reply(RIDGELINE_ONNX_INFER_FAILED, e.what(), response,
                 response_size);
  } catch (...) {
    return Reply(RIDGELINE_ONNX_INFER_FAILED, "unknown exception", response,
                 response_size);
  }
}
