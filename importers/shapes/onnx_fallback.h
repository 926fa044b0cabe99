// Fallback for ops without a shape function of ours: runs the op schema's own
// type-and-shape inference from Debian's libonnx on one node, through an
// onnx::InferenceContext that serves our dtypes, dims and folded values
// (internal to importers/).
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
