// The helper module ridgeline_onnx_infer (importers/shapes/onnx_infer_abi.h),
// opened as the importer opens it: serialized requests in, serialized types
// or a message out. Expected shapes follow the ONNX operator spec
// (docs/Operators.md): Relu keeps its input's shape; Reshape takes its
// output shape from its second input's values; Add broadcasts
// numpy-style, so [2,3] + [4] is an error (libonnx: "Incompatible
// dimensions").
#include "importers/shapes/onnx_infer_abi.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"

namespace {

RidgelineOnnxInferFunction Infer() {
  static RidgelineOnnxInferFunction infer = [] {
    void* handle = dlopen(RIDGELINE_ONNX_INFER, RTLD_NOW | RTLD_LOCAL);
    return handle == nullptr ? nullptr
                             : reinterpret_cast<RidgelineOnnxInferFunction>(
                                   dlsym(handle, RIDGELINE_ONNX_INFER_SYMBOL));
  }();
  return infer;
}

struct Reply {
  int result = -1;
  std::string bytes;
};

Reply Call(const std::string& request) {
  char* response = nullptr;
  size_t size = 0;
  Reply r;
  r.result = Infer()(request.data(), request.size(), &response, &size);
  r.bytes.assign(response, size);
  std::free(response);
  return r;
}

onnx::ModelProto Request(const std::string& op, int opset) {
  onnx::ModelProto m;
  onnx::OperatorSetIdProto* id = m.add_opset_import();
  id->set_domain("");
  id->set_version(opset);
  onnx::NodeProto* node = m.mutable_graph()->add_node();
  node->set_op_type(op);
  const std::string output = "y";
  node->add_output(output);
  return m;
}

void AddInput(onnx::ModelProto* m, const std::vector<int64_t>& dims,
              int32_t elem_type) {
  m->mutable_graph()->mutable_node(0)->add_input(
      absl::StrCat("x", m->graph().input_size()));
  auto* t =
      m->mutable_graph()->add_input()->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

std::vector<int64_t> OutputDims(const Reply& r) {
  onnx::ModelProto reply;
  EXPECT_TRUE(reply.ParseFromString(r.bytes));
  std::vector<int64_t> dims;
  if (reply.graph().output_size() < 1) return dims;
  for (const auto& d :
       reply.graph().output(0).type().tensor_type().shape().dim()) {
    dims.push_back(d.dim_value());
  }
  return dims;
}

TEST(OnnxInferAbi, ModuleOpens) { ASSERT_NE(Infer(), nullptr) << dlerror(); }

TEST(OnnxInferAbi, ReluKeepsTheShape) {
  ASSERT_NE(Infer(), nullptr);
  onnx::ModelProto m = Request("Relu", 14);
  AddInput(&m, {2, 3}, onnx::TensorProto::FLOAT);
  const Reply r = Call(m.SerializeAsString());
  ASSERT_EQ(r.result, RIDGELINE_ONNX_INFER_OK) << r.bytes;
  EXPECT_EQ(OutputDims(r), (std::vector<int64_t>{2, 3}));
}

TEST(OnnxInferAbi, ReshapeReadsTheFoldedShape) {
  ASSERT_NE(Infer(), nullptr);
  onnx::ModelProto m = Request("Reshape", 14);
  AddInput(&m, {2, 3}, onnx::TensorProto::FLOAT);
  AddInput(&m, {2}, onnx::TensorProto::INT64);
  onnx::TensorProto* shape = m.mutable_graph()->add_initializer();
  shape->set_name("1");  // the input's index
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(3);
  shape->add_int64_data(-1);
  const Reply r = Call(m.SerializeAsString());
  ASSERT_EQ(r.result, RIDGELINE_ONNX_INFER_OK) << r.bytes;
  EXPECT_EQ(OutputDims(r), (std::vector<int64_t>{3, 2}));
}

TEST(OnnxInferAbi, InferenceErrorIsAMessage) {
  ASSERT_NE(Infer(), nullptr);
  onnx::ModelProto m = Request("Add", 14);
  AddInput(&m, {2, 3}, onnx::TensorProto::FLOAT);
  AddInput(&m, {4}, onnx::TensorProto::FLOAT);
  const Reply r = Call(m.SerializeAsString());
  EXPECT_EQ(r.result, RIDGELINE_ONNX_INFER_FAILED);
  EXPECT_NE(r.bytes.find("Incompatible dimensions"), std::string::npos)
      << r.bytes;
}

TEST(OnnxInferAbi, UnknownOpHasNoSchema) {
  ASSERT_NE(Infer(), nullptr);
  onnx::ModelProto m = Request("NoSuchOp", 14);
  const Reply r = Call(m.SerializeAsString());
  EXPECT_EQ(r.result, RIDGELINE_ONNX_INFER_NO_SCHEMA);
  EXPECT_TRUE(r.bytes.empty());
}

TEST(OnnxInferAbi, MalformedRequestIsRefused) {
  ASSERT_NE(Infer(), nullptr);
  EXPECT_EQ(Call("\xff\xff\xff").result, RIDGELINE_ONNX_INFER_FAILED);
  onnx::ModelProto no_node;
  no_node.add_opset_import()->set_version(14);
  const Reply r = Call(no_node.SerializeAsString());
  EXPECT_EQ(r.result, RIDGELINE_ONNX_INFER_FAILED);
  EXPECT_EQ(r.bytes, "malformed inference request");
}

}  // namespace
