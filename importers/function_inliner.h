// Expansion of model-local functions (ModelProto.functions) into the graph
// (internal to importers/).
//
// torch.onnx's export_modules_as_functions and the dynamo exporters of
// torch 2.1-2.4 write each module as a FunctionProto and the graph as calls
// of it (op_type = the function's name, domain = its domain). The analysis
// needs operators, so every call is replaced by the function's nodes: its
// formal inputs and outputs become the call's, its other values and nodes
// are named "<call>/<name>", attributes referenced by ref_attr_name take the
// call's value, else the function's declared default (IR 9's
// attribute_proto), else are dropped so that the operator's default
// applies, and subgraphs inside a body see the renamed values. Calls inside
// functions, subgraphs and expanded bodies are expanded too.
//
// The input is untrusted: nesting deeper than kMaxFunctionDepth (a
// function that calls itself) or more than kMaxInlinedNodes nodes in all is
// an error that names the function, never a crash or an endless loop.
#ifndef RIDGELINE_IMPORTERS_FUNCTION_INLINER_H_
#define RIDGELINE_IMPORTERS_FUNCTION_INLINER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {

inline constexpr int kMaxFunctionDepth = 64;
inline constexpr int64_t kMaxInlinedNodes = 10'000'000;

struct InlineResult {
  int64_t calls = 0;      // calls expanded, nested ones included
  int64_t functions = 0;  // distinct functions called
  // Opset imports a function declares at another version than the model's
  // (its nodes are read at the model's version).
  std::vector<std::string> warnings;
};

// Expands every call of a function of `model` in place; a model without
// functions is left untouched.
absl::StatusOr<InlineResult> InlineLocalFunctions(onnx::ModelProto* model);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_FUNCTION_INLINER_H_
