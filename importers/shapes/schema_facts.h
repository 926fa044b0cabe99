// What the schema check needs from libonnx's operator schemas, as a table
// generated at build time (schema_facts_main.cc) from the same libonnx: input
// and output counts, which inputs are required, the required attributes and
// whether a shape inference function exists, per op, domain and since-version.
// Looking a node up here costs a binary search; asking libonnx's
// OpSchemaRegistry builds its whole registry (every schema of every opset,
// about 15 ms and 2 MB) on first use, which a run needs only when it hands a
// node to libonnx's own inference (onnx_fallback.cc).
//
//   const OpFacts* facts = FindOpFacts("Conv", 11, "");  // Conv-11
#ifndef RIDGELINE_IMPORTERS_SHAPES_SCHEMA_FACTS_H_
#define RIDGELINE_IMPORTERS_SHAPES_SCHEMA_FACTS_H_

#include <optional>
#include <span>
#include <string_view>

namespace ridgeline::importers::shapes {

// One formal input of a schema; `single` is OpSchema::Single (required, not
// optional or variadic).
struct FormalInput {
  std::string_view name;
  bool single;
};

// A required attribute and its onnx::AttributeProto::AttributeType.
struct RequiredAttribute {
  std::string_view name;
  int type;
};

// One schema: `domain` "" is the default ONNX domain, as in libonnx's map.
struct OpFacts {
  std::string_view domain;
  std::string_view op_type;
  int since_version;
  int min_input;
  int max_input;
  int min_output;
  int max_output;
  bool has_inference;
  std::span<const FormalInput> inputs;
  std::span<const RequiredAttribute> required_attributes;  // sorted by name
};

// The schema libonnx's OpSchemaRegistry::Schema(op_type, opset, domain)
// returns: the one with the largest since-version not above `opset`; null
// when the op is unknown in that domain or all its versions are newer.
const OpFacts* FindOpFacts(std::string_view op_type, int opset,
                           std::string_view domain);

// The newest opset libonnx knows for `domain` (its DomainToVersionRange);
// nullopt for a domain it does not know.
std::optional<int> MaxKnownOpset(std::string_view domain);

// Every schema, sorted by (domain, op_type, since_version).
std::span<const OpFacts> AllOpFacts();

namespace internal {
// Defined in the generated schema_facts_data.cc.
struct DomainRange {
  std::string_view domain;
  int max_version;
};
std::span<const OpFacts> GeneratedOpFacts();
std::span<const DomainRange> GeneratedDomainRanges();
}  // namespace internal

}  // namespace ridgeline::importers::shapes

#endif  // RIDGELINE_IMPORTERS_SHAPES_SCHEMA_FACTS_H_
