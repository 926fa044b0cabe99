// importers/shapes/schema_facts.h: the build-time table of ONNX schema facts
// against libonnx's registry (every schema, every lookup) and against the
// ONNX operator spec (docs/Operators.md, ONNX 1.12) for a few ops.
#include "importers/shapes/schema_facts.h"

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "onnx/defs/schema.h"

namespace ridgeline::importers::shapes {
namespace {

TEST(SchemaFacts, SpecFacts) {
  // Conv: versions 1 and 11; inputs X, W, optional B; one output Y.
  const OpFacts* conv = FindOpFacts("Conv", 13, "");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->since_version, 11);
  EXPECT_EQ(conv->min_input, 2);
  EXPECT_EQ(conv->max_input, 3);
  EXPECT_EQ(conv->min_output, 1);
  EXPECT_EQ(conv->max_output, 1);
  ASSERT_EQ(conv->inputs.size(), 3u);
  EXPECT_EQ(conv->inputs[0].name, "X");
  EXPECT_TRUE(conv->inputs[1].single);
  EXPECT_FALSE(conv->inputs[2].single);
  EXPECT_TRUE(conv->has_inference);
  EXPECT_EQ(FindOpFacts("Conv", 10, "")->since_version, 1);
  // Relu: versions 1, 6, 13, 14.
  EXPECT_EQ(FindOpFacts("Relu", 13, "")->since_version, 13);
  EXPECT_EQ(FindOpFacts("Relu", 17, "")->since_version, 14);
  // Cast requires 'to', an INT (AttributeProto.AttributeType 2).
  const OpFacts* cast = FindOpFacts("Cast", 13, "");
  ASSERT_NE(cast, nullptr);
  ASSERT_EQ(cast->required_attributes.size(), 1u);
  EXPECT_EQ(cast->required_attributes[0].name, "to");
  EXPECT_EQ(cast->required_attributes[0].type, 2);
  // Scan-16 requires 'body' (GRAPH, 5) and 'num_scan_inputs' (INT), by name.
  const OpFacts* scan = FindOpFacts("Scan", 16, "");
  ASSERT_NE(scan, nullptr);
  ASSERT_EQ(scan->required_attributes.size(), 2u);
  EXPECT_EQ(scan->required_attributes[0].name, "body");
  EXPECT_EQ(scan->required_attributes[0].type, 5);
  EXPECT_EQ(scan->required_attributes[1].name, "num_scan_inputs");
  // ONNX 1.12 defines opsets up to 17 for the default domain, 3 for ai.onnx.ml.
  EXPECT_EQ(MaxKnownOpset(""), 17);
  EXPECT_EQ(MaxKnownOpset("ai.onnx.ml"), 3);
  EXPECT_EQ(MaxKnownOpset("com.microsoft"), std::nullopt);
  EXPECT_EQ(FindOpFacts("Conv", 0, ""), nullptr);
  EXPECT_EQ(FindOpFacts("NoSuchOp", 13, ""), nullptr);
  EXPECT_EQ(FindOpFacts("Conv", 13, "ai.onnx.ml"), nullptr);
}

void ExpectSame(const OpFacts& f, const onnx::OpSchema& s) {
  const std::string where =
      s.domain() + ":" + s.Name() + "-" + std::to_string(s.SinceVersion());
  EXPECT_EQ(f.domain, s.domain()) << where;
  EXPECT_EQ(f.op_type, s.Name()) << where;
  EXPECT_EQ(f.since_version, s.SinceVersion()) << where;
  EXPECT_EQ(f.min_input, s.min_input()) << where;
  EXPECT_EQ(f.max_input, s.max_input()) << where;
  EXPECT_EQ(f.min_output, s.min_output()) << where;
  EXPECT_EQ(f.max_output, s.max_output()) << where;
  EXPECT_EQ(f.has_inference, s.has_type_and_shape_inference_function())
      << where;
  ASSERT_EQ(f.inputs.size(), s.inputs().size()) << where;
  for (size_t i = 0; i < f.inputs.size(); ++i) {
    EXPECT_EQ(f.inputs[i].name, s.inputs()[i].GetName()) << where;
    EXPECT_EQ(f.inputs[i].single,
              s.inputs()[i].GetOption() == onnx::OpSchema::Single)
        << where;
  }
  size_t k = 0;
  for (const auto& [name, attr] : s.attributes()) {
    if (!attr.required) continue;
    ASSERT_LT(k, f.required_attributes.size()) << where;
    EXPECT_EQ(f.required_attributes[k].name, name) << where;
    EXPECT_EQ(f.required_attributes[k].type, static_cast<int>(attr.type))
        << where;
    ++k;
  }
  EXPECT_EQ(k, f.required_attributes.size()) << where;
}

// Every lookup the importer can make (each op and domain, opsets 0 to one
// past the domain's newest) finds what OpSchemaRegistry::Schema finds.
TEST(SchemaFacts, MatchesLibonnxRegistry) {
  const auto schemas = onnx::OpSchemaRegistry::get_all_schemas_with_history();
  EXPECT_EQ(AllOpFacts().size(), schemas.size());
  std::set<std::pair<std::string, std::string>> ops;
  for (const onnx::OpSchema& s : schemas) ops.emplace(s.domain(), s.Name());
  const auto& ranges =
      onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  for (const auto& [domain, range] : ranges) {
    EXPECT_EQ(MaxKnownOpset(domain), range.second) << domain;
  }
  for (const auto& [domain, op] : ops) {
    const auto range = ranges.find(domain);
    const int newest = range == ranges.end() ? 30 : range->second.second;
    for (int opset = 0; opset <= newest + 1; ++opset) {
      const onnx::OpSchema* s =
          onnx::OpSchemaRegistry::Schema(op, opset, domain);
      const OpFacts* f = FindOpFacts(op, opset, domain);
      ASSERT_EQ(f == nullptr, s == nullptr)
          << domain << ":" << op << "-" << opset;
      if (s != nullptr) ExpectSame(*f, *s);
    }
  }
}

}  // namespace
}  // namespace ridgeline::importers::shapes
