// The constant evaluator on values an adversarial model can hold: integer
// Pow with a huge exponent folds at once (exponentiation by squaring) or
// gives up on overflow; it never spins.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "importers/onnx_importer.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {
namespace {

// out = Pow(base, exponent) of two int64 Constants: the graph output's
// value, folded when it fits in an int64.
std::string PowModel(int64_t base, int64_t exponent) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("pow");
  auto constant = [&](const std::string& name, int64_t value) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type("Constant");
    n->set_name(name + "_node");
    n->add_output(name);
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
    a->mutable_t()->add_int64_data(value);
  };
  constant("base", base);
  constant("exponent", exponent);
  onnx::NodeProto* pow = g->add_node();
  pow->set_op_type("Pow");
  pow->set_name("pow");
  pow->add_input("base");
  pow->add_input("exponent");
  pow->add_output("out");
  onnx::ValueInfoProto* out = g->add_output();
  out->set_name("out");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::INT64);
  return m.SerializeAsString();
}

std::optional<std::vector<int64_t>> Folded(int64_t base, int64_t exponent) {
  absl::StatusOr<graph::Graph> g =
      ImportOnnxBytes(PowModel(base, exponent), "pow.onnx", "", {});
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return std::nullopt;
  return g->tensor(*g->FindTensor("out")).int_values;
}

TEST(ImporterConstEvalTest, IntegerPowFoldsByRepeatedSquaring) {
  EXPECT_EQ(Folded(3, 4), std::vector<int64_t>{81});
  EXPECT_EQ(Folded(-2, 3), std::vector<int64_t>{-8});
  EXPECT_EQ(Folded(7, 0), std::vector<int64_t>{1});
  // 2^62 fits, 2^63 does not; 1 and -1 to a huge power fold at once.
  EXPECT_EQ(Folded(2, 62), std::vector<int64_t>{int64_t{1} << 62});
  EXPECT_FALSE(Folded(2, 63).has_value());
  EXPECT_EQ(Folded(1, 1'000'000'000'000'000'000), std::vector<int64_t>{1});
  EXPECT_EQ(Folded(-1, 1'000'000'000'000'000'001), std::vector<int64_t>{-1});
  EXPECT_EQ(Folded(0, 1'000'000'000'000'000'000), std::vector<int64_t>{0});
  EXPECT_FALSE(Folded(3, 1'000'000'000'000'000'000).has_value());
}

}  // namespace
}  // namespace ridgeline::importers
