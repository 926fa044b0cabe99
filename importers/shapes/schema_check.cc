#include "importers/shapes/schema_check.h"

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>

#include "fmt/format.h"

namespace ridgeline::importers::shapes {
namespace {

std::string Range(int lo, int hi) {
  if (lo == hi) return std::to_string(lo);
  if (hi == std::numeric_limits<int>::max())
    return fmt::format("{} or more", lo);
  return fmt::format("{} to {}", lo, hi);
}

absl::Status MissingAttribute(const std::string& name, const std::string& op) {
  return absl::InvalidArgumentError(
      fmt::format("required attribute '{}' of {} is missing", name, op));
}

std::string Plural(size_t n, const char* what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

}  // namespace

absl::Status CheckAgainstSchema(const graph::Node& node,
                                const onnx::NodeProto* proto) {
  const int opset = node.opset > 0 ? static_cast<int>(node.opset) : 1;
  // Debian's libonnx (1.12) knows opsets up to 17; at a newer opset its
  // latest schema may be the wrong one (ReduceMean-18 moved axes to an
  // input), and our own shape functions judge such nodes.
  const std::optional<int> newest = MaxKnownOpset(node.domain);
  if (!newest.has_value() || opset > *newest) return absl::OkStatus();
  const OpFacts* schema = FindOpFacts(node.op_type, opset, node.domain);
  if (schema == nullptr) return absl::OkStatus();
  return CheckAgainstOpSchema(*schema, node, proto);
}

absl::Status CheckAgainstOpSchema(const OpFacts& schema,
                                  const graph::Node& node,
                                  const onnx::NodeProto* proto) {
  // Named in the errors only: formatted when one is returned.
  const auto op_name = [&] {
    return fmt::format("{}-{}", node.op_type, schema.since_version);
  };
  const size_t n_in = node.inputs.size();
  const size_t n_out = node.outputs.size();
  if (n_in < static_cast<size_t>(schema.min_input) ||
      n_in > static_cast<size_t>(schema.max_input)) {
    return absl::InvalidArgumentError(
        fmt::format("has {}; {} takes {}", Plural(n_in, "input"), op_name(),
                    Range(schema.min_input, schema.max_input)));
  }
  if (n_out < static_cast<size_t>(schema.min_output) ||
      n_out > static_cast<size_t>(schema.max_output)) {
    return absl::InvalidArgumentError(
        fmt::format("has {}; {} produces {}", Plural(n_out, "output"),
                    op_name(), Range(schema.min_output, schema.max_output)));
  }
  const std::span<const FormalInput> formals = schema.inputs;
  for (size_t i = 0; i < n_in && i < formals.size(); ++i) {
    if (formals[i].single && node.inputs[i] < 0) {
      return absl::InvalidArgumentError(
          fmt::format("input {} ('{}') of {} is required but empty", i,
                      formals[i].name, op_name()));
    }
  }
  for (const RequiredAttribute& attr : schema.required_attributes) {
    const std::string name(attr.name);
    if (proto == nullptr) {
      if (attr.type != onnx::AttributeProto::GRAPH &&
          attr.type != onnx::AttributeProto::GRAPHS &&
          !node.attributes.contains(name)) {
        return MissingAttribute(name, op_name());
      }
      continue;
    }
    const onnx::AttributeProto* found = nullptr;
    for (const onnx::AttributeProto& a : proto->attribute()) {
      if (a.name() == name) found = &a;
    }
    if (found == nullptr) return MissingAttribute(name, op_name());
    if (found->has_type() && found->type() != attr.type) {
      return absl::InvalidArgumentError(fmt::format(
          "attribute '{}' of {} is a {}, not a {}", name, op_name(),
          onnx::AttributeProto::AttributeType_Name(found->type()),
          onnx::AttributeProto::AttributeType_Name(
              static_cast<onnx::AttributeProto::AttributeType>(attr.type))));
    }
    if (attr.type == onnx::AttributeProto::GRAPH && !found->has_g()) {
      return absl::InvalidArgumentError(
          fmt::format("attribute '{}' of {} holds no graph", name, op_name()));
    }
  }
  return absl::OkStatus();
}

}  // namespace ridgeline::importers::shapes
