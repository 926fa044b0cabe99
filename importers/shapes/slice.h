// Slice parameters shared by the Slice shape function and its folding
// (internal to importers/).
#ifndef RIDGELINE_IMPORTERS_SHAPES_SLICE_H_
#define RIDGELINE_IMPORTERS_SHAPES_SLICE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph.h"
#include "importers/shapes/context.h"

namespace ridgeline::importers::shapes {

// Per input axis: the first index read, the step, and the count of elements
// read (the output dim). Axes that are not sliced read all with step 1.
struct SliceSpec {
  std::vector<int64_t> start;
  std::vector<int64_t> step;
  graph::Dims out_dims;
};

// Reads starts/ends/axes/steps (attributes before opset 10, inputs from 10)
// and clamps them as the ONNX spec says.
absl::Status ComputeSlice(const InferContext& ctx, SliceSpec* spec);

}  // namespace ridgeline::importers::shapes

#endif  // RIDGELINE_IMPORTERS_SHAPES_SLICE_H_
