// A node checked against its ONNX operator schema (internal to importers/):
// input and output counts and required attributes, before any shape function
// (ours or libonnx's) relies on them.
#ifndef RIDGELINE_IMPORTERS_SHAPES_SCHEMA_CHECK_H_
#define RIDGELINE_IMPORTERS_SHAPES_SCHEMA_CHECK_H_

#include "absl/status/status.h"
#include "graph/graph.h"
#include "importers/shapes/schema_facts.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers::shapes {

// InvalidArgument naming the problem ("has 1 input; ConvTranspose-11 takes 2
// to 3") when the node has fewer or more inputs or outputs than the schema
// of its op at its opset allows, omits a required input, or lacks a required
// attribute or gives it the wrong type (checked on `proto` when not null,
// else on the node's scalar and list attributes). Ok when it conforms or
// when libonnx has no schema for the op (custom and contrib domains), whose
// shape functions treat missing inputs as absent.
absl::Status CheckAgainstSchema(const graph::Node& node,
                                const onnx::NodeProto* proto);

// The same checks against a given schema, whatever the node's opset: for
// handing a node to that schema's own inference function, which trusts that
// its inputs and required attributes are there (libonnx's Scan inference
// dereferences a missing 'num_scan_inputs').
absl::Status CheckAgainstOpSchema(const OpFacts& schema,
                                  const graph::Node& node,
                                  const onnx::NodeProto* proto);

}  // namespace ridgeline::importers::shapes

#endif  // RIDGELINE_IMPORTERS_SHAPES_SCHEMA_CHECK_H_
