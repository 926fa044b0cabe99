// The C interface between the importer and the helper module that runs
// libonnx's type-and-shape inference (shapes/onnx_infer_main.cc, built as
// ridgeline_onnx_infer and opened at the first node that needs it).
//
// Only bytes cross it: analyze links ONNX's protobuf classes and libprotobuf
// statically (importers/onnx_proto.cmake), libonnx the shared ones, so a
// message object of one side must never reach the other. Both sides
// serialize onnx::ModelProto messages with the same onnx-ml.proto.
#ifndef RIDGELINE_IMPORTERS_SHAPES_ONNX_INFER_ABI_H_
#define RIDGELINE_IMPORTERS_SHAPES_ONNX_INFER_ABI_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// The exported symbol's name, for dlsym.
#define RIDGELINE_ONNX_INFER_SYMBOL "ridgeline_onnx_infer"

// Return values of ridgeline_onnx_infer.
enum RidgelineOnnxInferResult {
  // *response is a serialized ModelProto whose graph.output[i] holds the
  // inferred type of the node's output i (no type: not inferred).
  RIDGELINE_ONNX_INFER_OK = 0,
  // libonnx has no schema for the op at that opset; *response is empty.
  RIDGELINE_ONNX_INFER_NO_SCHEMA = 1,
  // The inference function failed, or the request was malformed; *response
  // is the message (not NUL-terminated).
  RIDGELINE_ONNX_INFER_FAILED = 2,
};

// Runs the inference function of the schema of one node. `request` is a
// serialized ModelProto:
//   opset_import[0]   the node's domain and opset;
//   graph.node[0]     the node;
//   graph.input[i]    the node's input i, with its type when known;
//   graph.initializer the folded values of inputs, each named by the
//                     decimal index of its input.
// *response is allocated with malloc; the caller frees it (also when empty).
typedef int (*RidgelineOnnxInferFunction)(const char* request,
                                          size_t request_size, char** response,
                                          size_t* response_size);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // RIDGELINE_IMPORTERS_SHAPES_ONNX_INFER_ABI_H_
