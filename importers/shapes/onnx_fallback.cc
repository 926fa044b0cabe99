#include "importers/shapes/onnx_fallback.h"

#include <dlfcn.h>

#include <exception>
#include <iterator>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "importers/shapes/schema_check.h"
#include "importers/shapes/schema_facts.h"
#include "onnx/defs/schema.h"
#include "onnx/defs/shape_inference.h"

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

// Handed out for graph attributes: refuses, so the caller's inference fails
// with a message (caught below) rather than a null dereference.
class NoSubgraphInferencer final : public onnx::GraphInferencer {
 public:
  std::vector<const onnx::TypeProto*> doInferencing(
      const std::vector<const onnx::TypeProto*>&,
      const std::vector<const onnx::TensorProto*>&) override {
    throw onnx::InferenceError("subgraph inference is not run here");
  }
};

// Serves one node to an ONNX inference function.
class NodeInferenceContext final : public onnx::InferenceContext {
 public:
  explicit NodeInferenceContext(const InferContext& ctx)
      : ctx_(ctx),
        proto_(*ctx.proto()),
        input_types_(proto_.input_size()),
        has_input_type_(proto_.input_size(), false),
        input_data_(proto_.input_size()),
        has_input_data_(proto_.input_size(), false),
        output_types_(proto_.output_size()) {
    for (int i = 0; i < proto_.input_size(); ++i) {
      if (!ctx.has_input(i)) continue;
      const graph::Tensor& t = ctx.input(i);
      if (const SequenceInfo* seq = ctx.sequence(i)) {
        auto* elem =
            seq->is_optional
                ? input_types_[i].mutable_optional_type()->mutable_elem_type()
                : input_types_[i].mutable_sequence_type()->mutable_elem_type();
        FillTensorType(seq->dtype,
                       seq->elem_dims_known ? &seq->elem_dims : nullptr,
                       elem->mutable_tensor_type());
        has_input_type_[i] = true;
        continue;
      }
      if (!t.shape_known) continue;
      FillTensorType(t.dtype, &t.dims, input_types_[i].mutable_tensor_type());
      has_input_type_[i] = true;
      has_input_data_[i] = FillData(i, t);
    }
  }

  const onnx::AttributeProto* getAttribute(
      const std::string& name) const override {
    for (const auto& a : proto_.attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }
  size_t getNumInputs() const override { return proto_.input_size(); }
  const onnx::TypeProto* getInputType(size_t index) const override {
    return index < has_input_type_.size() && has_input_type_[index]
               ? &input_types_[index]
               : nullptr;
  }
  const onnx::TensorProto* getInputData(size_t index) const override {
    return index < has_input_data_.size() && has_input_data_[index]
               ? &input_data_[index]
               : nullptr;
  }
  size_t getNumOutputs() const override { return output_types_.size(); }
  onnx::TypeProto* getOutputType(size_t index) override {
    return &output_types_[index];
  }
  // Subgraphs are resolved by the resolver itself (If, Loop, Scan,
  // SequenceMap); a schema function that asks for one fails cleanly instead
  // of dereferencing a null inferencer.
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

  const onnx::TypeProto& output_type(size_t i) const {
    return output_types_[i];
  }

 private:
  // Folded values of input i as a TensorProto of the input's dtype.
  bool FillData(size_t i, const graph::Tensor& t) {
    onnx::TensorProto& p = input_data_[i];
    p.set_data_type(static_cast<int32_t>(t.dtype));
    for (int64_t d : t.dims) p.add_dims(d);
    if (const std::vector<int64_t>* v = ctx_.ints(i)) {
      switch (t.dtype) {
        case DType::kInt64:
          for (int64_t x : *v) p.add_int64_data(x);
          return true;
        case DType::kInt32:
        case DType::kInt16:
        case DType::kInt8:
        case DType::kUInt16:
        case DType::kUInt8:
        case DType::kBool:
          for (int64_t x : *v) p.add_int32_data(static_cast<int32_t>(x));
          return true;
        case DType::kUInt32:
        case DType::kUInt64:
          for (int64_t x : *v) p.add_uint64_data(static_cast<uint64_t>(x));
          return true;
        default:
          return false;
      }
    }
    if (const std::vector<double>* f = ctx_.floats(i)) {
      if (t.dtype == DType::kFloat32) {
        for (double x : *f) p.add_float_data(static_cast<float>(x));
        return true;
      }
      if (t.dtype == DType::kFloat64) {
        for (double x : *f) p.add_double_data(x);
        return true;
      }
    }
    return false;
  }

  const InferContext& ctx_;
  const onnx::NodeProto& proto_;
  std::vector<onnx::TypeProto> input_types_;
  std::vector<bool> has_input_type_;
  std::vector<onnx::TensorProto> input_data_;
  std::vector<bool> has_input_data_;
  std::vector<onnx::TypeProto> output_types_;
  NoSubgraphInferencer no_subgraphs_;
};

// libonnx is opened at the first node that needs its inference (most models
// never do), not linked: linked, every start of analyze paid its loading,
// relocation and static initializers (bench/README.md, "Whole process").
// The one symbol looked up is OpSchemaRegistry::map(), the registry's table
// (built on its first call); a schema's inference function is reached through
// the schema. `schemas` is null, with the reason, if it cannot be found.
struct OnnxLibrary {
  onnx::OpName_Domain_Version_Schema_Map* schemas = nullptr;
  std::string error;
};

const OnnxLibrary& Onnx() {
  static const OnnxLibrary* const library = [] {
    auto* lib = new OnnxLibrary;
    void* handle = dlopen(RIDGELINE_LIBONNX, RTLD_NOW | RTLD_LOCAL);
    void* map = handle == nullptr
                    ? nullptr
                    : dlsym(handle, "_ZN4onnx16OpSchemaRegistry3mapB5cxx11Ev");
    if (map == nullptr) {
      const char* why = dlerror();
      lib->error = why != nullptr ? why : RIDGELINE_LIBONNX;
      return lib;
    }
    using MapFunction = onnx::OpName_Domain_Version_Schema_Map& (*)();
    lib->schemas = &reinterpret_cast<MapFunction>(map)();
    return lib;
  }();
  return *library;
}

// What OpSchemaRegistry::Schema(op_type, opset, domain) returns: the newest
// version of the op's schema in the domain that is not newer than `opset`.
const onnx::OpSchema* FindSchema(
    const onnx::OpName_Domain_Version_Schema_Map& schemas,
    const std::string& op_type, int opset, const std::string& domain) {
  const auto op = schemas.find(op_type);
  if (op == schemas.end()) return nullptr;
  const auto versions = op->second.find(domain);
  if (versions == op->second.end()) return nullptr;
  auto newer = versions->second.upper_bound(opset);
  if (newer == versions->second.begin()) return nullptr;
  return &std::prev(newer)->second;
}

std::string FirstLine(const char* what) {
  std::string s(what);
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
  const OnnxLibrary& onnx_library = Onnx();
  if (onnx_library.schemas == nullptr) {
    return Unresolved(fmt::format("ONNX shape inference not available: {}",
                                  onnx_library.error));
  }
  const onnx::OpSchema* schema =
      FindSchema(*onnx_library.schemas, node.op_type, opset, node.domain);
  if (schema == nullptr) return Unresolved(missing);
  NodeInferenceContext onnx_ctx(ctx);
  try {
    schema->GetTypeAndShapeInferenceFunction()(onnx_ctx);
  } catch (const std::exception& e) {
    return Unresolved(
        fmt::format("ONNX shape inference failed: {}", FirstLine(e.what())));
  }
  std::string problem;
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    if (!ctx.has_output(i)) continue;
    const onnx::TypeProto& type = onnx_ctx.output_type(i);
    if (!type.has_tensor_type()) {
      if (type.has_sequence_type()) {
        problem = "the output is a sequence, not a tensor";
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
