#include "importers/shapes/onnx_fallback.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "importers/shapes/onnx_infer_abi.h"
#include "importers/shapes/schema_check.h"
#include "importers/shapes/schema_facts.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::DType;

void FillTensorType(DType dtype, const graph::Dims* dims,
                    onnx::TypeProto_Tensor* t) {
  t->set_elem_type(static_cast<int32_t>(dtype));
  if (dims == nullptr) return;
  auto* shape = t->mutable_shape();
  for (int64_t d : *dims) shape->add_dim()->set_dim_value(d);
}

// Folded values of input i as a TensorProto of the input's dtype; false if
// there are none of a type the TensorProto can carry.
bool FillData(const InferContext& ctx, size_t i, const graph::Tensor& t,
              onnx::TensorProto* p) {
  p->set_data_type(static_cast<int32_t>(t.dtype));
  for (int64_t d : t.dims) p->add_dims(d);
  if (const std::vector<int64_t>* v = ctx.ints(i)) {
    switch (t.dtype) {
      case DType::kInt64:
        for (int64_t x : *v) p->add_int64_data(x);
        return true;
      case DType::kInt32:
      case DType::kInt16:
      case DType::kInt8:
      case DType::kUInt16:
      case DType::kUInt8:
      case DType::kBool:
        for (int64_t x : *v) p->add_int32_data(static_cast<int32_t>(x));
        return true;
      case DType::kUInt32:
      case DType::kUInt64:
        for (int64_t x : *v) p->add_uint64_data(static_cast<uint64_t>(x));
        return true;
      default:
        return false;
    }
  }
  if (const std::vector<double>* f = ctx.floats(i)) {
    if (t.dtype == DType::kFloat32) {
      for (double x : *f) p->add_float_data(static_cast<float>(x));
      return true;
    }
    if (t.dtype == DType::kFloat64) {
      for (double x : *f) p->add_double_data(x);
      return true;
    }
  }
  return false;
}

// The request of onnx_infer_abi.h for the node of `ctx` at `opset`: the
// node, each input's type when known (sequences and optionals by their
// element type) and its folded values.
onnx::ModelProto InferenceRequest(const InferContext& ctx, int opset) {
  onnx::ModelProto request;
  onnx::OperatorSetIdProto* id = request.add_opset_import();
  id->set_domain(ctx.node().domain);
  id->set_version(opset);
  onnx::GraphProto* graph = request.mutable_graph();
  *graph->add_node() = *ctx.proto();
  for (int i = 0; i < ctx.proto()->input_size(); ++i) {
    onnx::ValueInfoProto* input = graph->add_input();
    if (!ctx.has_input(i)) continue;
    const graph::Tensor& t = ctx.input(i);
    if (const SequenceInfo* seq = ctx.sequence(i)) {
      onnx::TypeProto* type = input->mutable_type();
      auto* elem = seq->is_optional
                       ? type->mutable_optional_type()->mutable_elem_type()
                       : type->mutable_sequence_type()->mutable_elem_type();
      FillTensorType(seq->dtype,
                     seq->elem_dims_known ? &seq->elem_dims : nullptr,
                     elem->mutable_tensor_type());
      continue;
    }
    if (!t.shape_known) continue;
    FillTensorType(t.dtype, &t.dims,
                   input->mutable_type()->mutable_tensor_type());
    onnx::TensorProto data;
    if (FillData(ctx, i, t, &data)) {
      data.set_name(std::to_string(i));
      *graph->add_initializer() = std::move(data);
    }
  }
  return request;
}

// The helper module (onnx_infer_main.cc) is opened at the first node that
// needs libonnx's inference (most models never do), and with it libonnx:
// linked, every start of analyze paid libonnx's loading, relocation and
// static initializers (bench/README.md, "Whole process"). `infer` is null,
// with the reason, if it cannot be opened.
struct InferModule {
  RidgelineOnnxInferFunction infer = nullptr;
  std::string error;
};

const InferModule& Module() {
  static const InferModule* const module = [] {
    auto* m = new InferModule;
    void* handle = dlopen(RIDGELINE_ONNX_INFER, RTLD_NOW | RTLD_LOCAL);
    void* infer = handle == nullptr
                      ? nullptr
                      : dlsym(handle, RIDGELINE_ONNX_INFER_SYMBOL);
    if (infer == nullptr) {
      const char* why = dlerror();
      m->error = why != nullptr ? why : RIDGELINE_ONNX_INFER;
      return m;
    }
    m->infer = reinterpret_cast<RidgelineOnnxInferFunction>(infer);
    return m;
  }();
  return *module;
}

std::string FirstLine(std::string s) {
  const size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

absl::Status InferWithOnnxSchema(InferContext& ctx) {
  const graph::Node& node = ctx.node();
  const std::string shown_domain =
      node.domain.empty() ? std::string("ai.onnx") : node.domain;
  const std::string missing =
      fmt::format("no shape function for {}:{}", shown_domain, node.op_type);
  if (ctx.proto() == nullptr) return Unresolved(missing);
  const int opset = node.opset > 0 ? static_cast<int>(node.opset) : 1;
  // The table first: libonnx's registry is built (on first use) only when
  // its inference function will run.
  const OpFacts* facts = FindOpFacts(node.op_type, opset, node.domain);
  if (facts == nullptr || !facts->has_inference) return Unresolved(missing);
  // At opsets newer than libonnx knows, the schema found is an older one
  // the node need not conform to: its shape is then unknown, not an error.
  if (absl::Status conforms = CheckAgainstOpSchema(*facts, node, ctx.proto());
      !conforms.ok()) {
    return Unresolved(
        fmt::format("ONNX shape inference not run: {}", conforms.message()));
  }
  const InferModule& module = Module();
  if (module.infer == nullptr) {
    return Unresolved(
        fmt::format("ONNX shape inference not available: {}", module.error));
  }
  const std::string request = InferenceRequest(ctx, opset).SerializeAsString();
  char* response = nullptr;
  size_t response_size = 0;
  const int result =
      module.infer(request.data(), request.size(), &response, &response_size);
  std::string bytes(response != nullptr ? response : "",
                    response != nullptr ? response_size : 0);
  std::free(response);
  if (result == RIDGELINE_ONNX_INFER_NO_SCHEMA) return Unresolved(missing);
  if (result != RIDGELINE_ONNX_INFER_OK) {
    return Unresolved(
        fmt::format("ONNX shape inference failed: {}", FirstLine(bytes)));
  }
  onnx::ModelProto reply;
  if (!reply.ParseFromString(bytes)) {
    return Unresolved("ONNX shape inference gave an unreadable reply");
  }
  std::string problem;
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    if (!ctx.has_output(i)) continue;
    if (static_cast<int>(i) >= reply.graph().output_size()) continue;
    const onnx::TypeProto& type = reply.graph().output(i).type();
    if (!type.has_tensor_type()) {
      if (type.has_sequence_type() || type.has_optional_type() ||
          type.has_map_type()) {
        // A sequence (ZipMap's list of maps), optional or map: known as a
        // value that is not a tensor (graph::Tensor::non_tensor).
        SequenceInfo info;
        info.is_optional = type.has_optional_type();
        ctx.SetSequence(i, std::move(info));
      } else if (problem.empty()) {
        problem = "ONNX shape inference gave no type";
      }
      continue;
    }
    const auto& tt = type.tensor_type();
    const DType dtype = static_cast<DType>(tt.elem_type());
    ctx.SetDType(i, dtype);
    if (!tt.has_shape()) {
      problem = "ONNX shape inference gave no shape";
      continue;
    }
    graph::Dims dims;
    bool concrete = true;
    for (const auto& d : tt.shape().dim()) {
      if (!d.has_dim_value()) {
        concrete = false;
        break;
      }
      dims.push_back(d.dim_value());
    }
    if (!concrete) {
      problem = "ONNX shape inference left a dim unknown";
      continue;
    }
    ctx.Set(i, dtype, std::move(dims));
  }
  if (!problem.empty()) return Unresolved(problem);
  return absl::OkStatus();
}

}  // namespace ridgeline::importers::shapes
