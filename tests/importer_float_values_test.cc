// The floating values the importer publishes on the graph
// (graph::Tensor::float_values): a Constant's and a folded scalar, a scalar
// initializer; never a larger initializer the folds did not read (weights
// are not decoded).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "importers/onnx_importer.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {
namespace {

// x [4] -> Dropout(x, ratio = Constant 0.0, training_mode = Constant true)
// -> y; Mul(y, scale: a scalar initializer 2.5) -> z; Add(z, bias: an
// initializer of 4) -> out; half = Div(scale, two: Constant 2.0) folds to
// 1.25 and scales out.
onnx::ModelProto DropoutModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("float_values");
  auto value_info = [](onnx::ValueInfoProto* v, const std::string& name) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(4);
  };
  value_info(g->add_input(), "x");
  onnx::TensorProto* scale = g->add_initializer();
  scale->set_name("scale");
  scale->set_data_type(onnx::TensorProto::FLOAT);
  scale->add_float_data(2.5f);
  onnx::TensorProto* bias = g->add_initializer();
  bias->set_name("bias");
  bias->set_data_type(onnx::TensorProto::FLOAT);
  bias->add_dims(4);
  for (int i = 0; i < 4; ++i) bias->add_float_data(1.0f);
  auto node = [&](const std::string& op, std::vector<std::string> in,
                  std::vector<std::string> out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(out[0] + "_node");
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return n;
  };
  auto constant = [&](const std::string& name, int type, float value) {
    onnx::AttributeProto* a = node("Constant", {}, {name})->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(type);
    if (type == onnx::TensorProto::BOOL) {
      a->mutable_t()->add_int32_data(static_cast<int>(value));
    } else {
      a->mutable_t()->add_float_data(value);
    }
  };
  constant("ratio", onnx::TensorProto::FLOAT, 0.0f);
  constant("training", onnx::TensorProto::BOOL, 1.0f);
  constant("two", onnx::TensorProto::FLOAT, 2.0f);
  node("Dropout", {"x", "ratio", "training"}, {"y", "mask"});
  node("Mul", {"y", "scale"}, {"z"});
  node("Add", {"z", "bias"}, {"w"});
  node("Div", {"scale", "two"}, {"half"});
  node("Mul", {"w", "half"}, {"out"});
  value_info(g->add_output(), "out");
  return m;
}

TEST(ImporterFloatValuesTest, ScalarsAndFoldedValuesArePublished) {
  absl::StatusOr<graph::Graph> g = ImportOnnxBytes(
      DropoutModel().SerializeAsString(), "float_values.onnx", "", {});
  ASSERT_TRUE(g.ok()) << g.status();
  auto values = [&](const std::string& name) {
    std::optional<int> t = g->FindTensor(name);
    EXPECT_TRUE(t.has_value()) << name;
    return t.has_value() ? g->tensor(*t).float_values : std::nullopt;
  };
  EXPECT_EQ(values("ratio"), std::vector<double>{0.0});
  EXPECT_EQ(values("scale"), std::vector<double>{2.5});
  EXPECT_EQ(values("half"), std::vector<double>{1.25});
  EXPECT_FALSE(values("bias").has_value());  // 4 values no fold read
  EXPECT_FALSE(values("x").has_value());
}

}  // namespace
}  // namespace ridgeline::importers
