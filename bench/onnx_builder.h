// OnnxBuilder: builds ONNX models in memory with the protobuf classes, so that
// benchmarks and robustness tests generate their inputs instead of shipping
// them. Header-only so that tests (which link only the project libraries) can
// use it too.
//
//   bench::OnnxBuilder b("tiny", /*opset=*/17);
//   b.Input("x", onnx::TensorProto::FLOAT, {"batch", 8});
//   b.ExternalInitializer("w", onnx::TensorProto::FLOAT, {8, 8}, "w.data");
//   std::string y = b.Node("MatMul", {"x", "w"});
//   b.Output(b.Node("Relu", {y}));
//   std::string bytes = b.Serialize();
#ifndef RIDGELINE_BENCH_ONNX_BUILDER_H_
#define RIDGELINE_BENCH_ONNX_BUILDER_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "fmt/format.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::bench {

// One dim of a graph input: a number or a symbolic name (dim_param).
using DimSpec = std::variant<int64_t, std::string>;

// Attribute constructors for OnnxBuilder::Node.
inline onnx::AttributeProto IntAttr(const std::string& name, int64_t value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(value);
  return a;
}
inline onnx::AttributeProto FloatAttr(const std::string& name, float value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(value);
  return a;
}
inline onnx::AttributeProto IntsAttr(const std::string& name,
                                     const std::vector<int64_t>& values) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a.add_ints(v);
  return a;
}

class OnnxBuilder {
 public:
  // A model with one graph named `graph_name`, importing the default domain at
  // `opset`.
  OnnxBuilder(const std::string& graph_name, int64_t opset) {
    model_.set_ir_version(8);
    model_.set_producer_name("ridgeline-bench");
    AddOpset("", opset);
    model_.mutable_graph()->set_name(graph_name);
  }

  void AddOpset(const std::string& domain, int64_t version) {
    auto* o = model_.add_opset_import();
    o->set_domain(domain);
    o->set_version(version);
  }

  onnx::ModelProto& model() { return model_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }

  // A graph input of element type `elem_type` (onnx::TensorProto::DataType).
  void Input(const std::string& name, int elem_type,
             const std::vector<DimSpec>& dims) {
    FillValueInfo(graph().add_input(), name, elem_type, dims);
  }

  // A graph output; with no type information, the importer infers it.
  void Output(const std::string& name) { graph().add_output()->set_name(name); }
  void Output(const std::string& name, int elem_type,
              const std::vector<DimSpec>& dims) {
    FillValueInfo(graph().add_output(), name, elem_type, dims);
  }

  // An initializer whose bytes live in `location` (relative to the model's
  // directory) at consecutive offsets; the file need not exist.
  void ExternalInitializer(const std::string& name, int elem_type,
                           const std::vector<int64_t>& dims,
                           const std::string& location,
                           int64_t element_bytes = 2) {
    onnx::TensorProto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(elem_type);
    // Tests build tensors claiming more bytes than int64 holds: the length
    // and offsets saturate at INT64_MAX instead of overflowing here.
    int64_t length = element_bytes;
    for (int64_t d : dims) {
      t->add_dims(d);
      length = SaturatingMul(length, d);
    }
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    AddEntry(t, "location", location);
    AddEntry(t, "offset", std::to_string(external_offset_));
    AddEntry(t, "length", std::to_string(length));
    // Offsets aligned to 4 KiB like onnx.save_model's external data writer.
    const int64_t aligned = SaturatingAdd(length, 4095) / 4096 * 4096;
    external_offset_ = SaturatingAdd(external_offset_, aligned);
  }

  // An int64 initializer stored inline as raw little-endian bytes.
  void Int64Initializer(const std::string& name,
                        const std::vector<int64_t>& dims,
                        const std::vector<int64_t>& values) {
    onnx::TensorProto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    std::string raw(values.size() * sizeof(int64_t), '\0');
    std::memcpy(raw.data(), values.data(), raw.size());
    t->set_raw_data(std::move(raw));
  }

  // A float32 initializer stored inline (float_data).
  void FloatInitializer(const std::string& name,
                        const std::vector<int64_t>& dims,
                        const std::vector<float>& values) {
    onnx::TensorProto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
  }

  // Adds a node and returns the name of its first output. With `outputs`
  // empty, one output named after the node is created.
  std::string Node(const std::string& op_type,
                   const std::vector<std::string>& inputs,
                   std::vector<onnx::AttributeProto> attributes = {},
                   std::vector<std::string> outputs = {},
                   const std::string& domain = "") {
    onnx::NodeProto* n = graph().add_node();
    const std::string name = fmt::format("{}{}_{}", prefix_, op_type, ++nodes_);
    n->set_name(name);
    n->set_op_type(op_type);
    if (!domain.empty()) n->set_domain(domain);
    for (const std::string& in : inputs) n->add_input(in);
    if (outputs.empty()) outputs.push_back(name + "_out");
    for (const std::string& out : outputs) n->add_output(out);
    for (auto& a : attributes) *n->add_attribute() = std::move(a);
    return outputs.front();
  }

  // Prefix for generated node names (e.g. "layers.3/").
  void SetPrefix(std::string prefix) { prefix_ = std::move(prefix); }

  std::string Serialize() const { return model_.SerializeAsString(); }

 private:
  static int64_t SaturatingMul(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
  }
  static int64_t SaturatingAdd(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
  }

  static void AddEntry(onnx::TensorProto* t, const std::string& key,
                       const std::string& value) {
    auto* e = t->add_external_data();
    e->set_key(key);
    e->set_value(value);
  }

  static void FillValueInfo(onnx::ValueInfoProto* v, const std::string& name,
                            int elem_type, const std::vector<DimSpec>& dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem_type);
    auto* shape = tt->mutable_shape();
    for (const DimSpec& d : dims) {
      auto* dim = shape->add_dim();
      if (const auto* value = std::get_if<int64_t>(&d)) {
        dim->set_dim_value(*value);
      } else {
        dim->set_dim_param(std::get<std::string>(d));
      }
    }
  }

  onnx::ModelProto model_;
  std::string prefix_;
  int64_t nodes_ = 0;
  int64_t external_offset_ = 0;
};

}  // namespace ridgeline::bench

#endif  // RIDGELINE_BENCH_ONNX_BUILDER_H_
