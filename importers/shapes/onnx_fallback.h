// Fallback for ops without a shape function of ours: runs the op schema's own
// type-and-shape inference from Debian's libonnx on one node, in the helper
// module ridgeline_onnx_infer (onnx_infer_main.cc), which is handed the node,
// our dtypes, dims and folded values as a serialized request
// (onnx_infer_abi.h; internal to importers/).
#ifndef RIDGELINE_IMPORTERS_SHAPES_ONNX_FALLBACK_H_
#define RIDGELINE_IMPORTERS_SHAPES_ONNX_FALLBACK_H_

#include "absl/status/status.h"
#include "importers/shapes/context.h"

namespace ridgeline::importers::shapes {

// Sets the node's output dtypes and dims from ONNX's schema inference, or
// returns Unresolved with the reason ("no shape function for DOMAIN:OP" when
// libonnx has no schema either).
absl::Status InferWithOnnxSchema(InferContext& ctx);

}  // namespace ridgeline::importers::shapes

#endif  // RIDGELINE_IMPORTERS_SHAPES_ONNX_FALLBACK_H_
