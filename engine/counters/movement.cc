// Views, metadata and data movement.
//  - Pure views (Reshape, Squeeze, Unsqueeze, Flatten, Identity, Dropout
//    unless training_mode is a folded true) and metadata ops (Shape, Size,
//    Constant, Optional*) move no bytes: view = true.
//  - Data movement reads and writes what it touches: Transpose, Concat, Split,
//    DepthToSpace, SpaceToDepth, Scatter* read their inputs and write their
//    outputs in full; Slice reads only the sliced region; Gather,
//    GatherElements and GatherND read only the gathered elements of `data`
//    (for an embedding table: the looked-up rows) plus the indices; Expand,
//    Tile and Pad read their input once and write the output. Small
//    parameter inputs (starts/ends/axes/steps, shape, repeats, pads) are not
//    counted.
#include <algorithm>
#include <string>

#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"

namespace ridgeline::engine::counters {
namespace {

absl::StatusOr<Cost> CountView(const CountContext& ctx) {
  (void)ctx;
  Cost cost;
  cost.view = true;
  return cost;
}

// Dropout is a view in inference; only a training_mode input folded to true
// with a ratio not folded to 0 makes it draw a mask and multiply (2 per
// element). An unfolded training_mode is taken as inference, the case this
// analyzer models (DropoutIsIdentity).
absl::StatusOr<Cost> CountDropout(const CountContext& ctx) {
  if (DropoutIsIdentity(ctx.graph, ctx.node)) return CountView(ctx);
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = Elements(**y) * (cost::kCmp + cost::kMul);
  return cost;
}

absl::StatusOr<Cost> CountCopy(const CountContext& ctx) {
  return DefaultTraffic(ctx);
}

// Reads input 0 once and writes the outputs (Expand, Tile, Pad, OneHot).
absl::StatusOr<Cost> CountFirstInputOnly(const CountContext& ctx) {
  return TrafficOf(ctx, {0});
}

// Slice: only the region it keeps (the output's element count) is read.
absl::StatusOr<Cost> CountSlice(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> data = RequireInput(ctx, 0);
  if (!data.ok()) return data.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  Cost cost;
  AddRead(ctx, **data, std::min(Elements(**data), Elements(**y)), &cost);
  AddWritten(ctx, **y, &cost);
  return cost;
}

// Gather family: the gathered elements of data (at most all of it) and all
// the indices are read, the output written.
absl::StatusOr<Cost> CountGather(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> data = RequireInput(ctx, 0);
  if (!data.ok()) return data.status();
  absl::StatusOr<const graph::Tensor*> indices = RequireInput(ctx, 1);
  if (!indices.ok()) return indices.status();
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  Cost cost;
  AddRead(ctx, **data, std::min(Elements(**data), Elements(**y)), &cost);
  if (*indices != *data) AddReadAll(ctx, **indices, &cost);
  AddWritten(ctx, **y, &cost);
  return cost;
}

// com.microsoft QLinearConcat: a copy that requantizes every element.
absl::StatusOr<Cost> CountQLinearConcat(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = Elements(**y) * (cost::kDequantize + cost::kRequantize);
  return cost;
}

// Col2Im: input [N, C * prod(block), L] summed into the image
// [N, C, image...]: one add per input element (overlapping blocks
// accumulate); image_shape and block_shape are parameters.
absl::StatusOr<Cost> CountCol2Im(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInput(ctx, 0);
  if (!x.ok()) return x.status();
  Cost cost = TrafficOf(ctx, {0});
  cost.other_flops = Elements(**x) * cost::kAdd;
  return cost;
}

// Sequence ops (a sequence is a list of tensors, graph::Tensor::non_tensor):
// what they copy. SplitToSequence and SequenceConstruct copy their tensors
// into the list, SequenceInsert the inserted tensor, SequenceAt the element
// it returns, ConcatFromSequence every element into its output: each reads
// and writes those bytes. SequenceErase, SequenceEmpty and SequenceLength
// touch no element (views).
absl::StatusOr<Cost> CountIntoSequence(const CountContext& ctx) {
  Cost cost;
  for (size_t i = 0; i < ctx.node.inputs.size(); ++i) {
    const graph::Tensor* t = ctx.input(i);
    if (t == nullptr || t->non_tensor) continue;
    AddReadAll(ctx, *t, &cost);
    // What goes into the list: SplitToSequence's input 0 (not its split
    // sizes), SequenceInsert's input 1 (not its position), every input of
    // SequenceConstruct.
    const std::string& op = ctx.node.op_type;
    const bool copied = op == "SplitToSequence"  ? i == 0
                        : op == "SequenceInsert" ? i == 1
                                                 : true;
    if (copied) cost.bytes_written += ctx.pricer.TensorBytes(ctx.graph, *t);
  }
  return cost;
}

absl::StatusOr<Cost> CountOutOfSequence(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
  if (!y.ok()) return y.status();
  Cost cost;
  const double bytes = ctx.pricer.TensorBytes(ctx.graph, **y);
  cost.bytes_read = bytes;
  cost.bytes_written = bytes;
  for (size_t i = 1; i < ctx.node.inputs.size(); ++i) {
    if (const graph::Tensor* t = ctx.input(i); t != nullptr && !t->non_tensor) {
      AddReadAll(ctx, *t, &cost);  // SequenceAt's position
    }
  }
  return cost;
}

// ai.onnx.ml ZipMap: scores [N, C] into N maps of C (label, score) entries,
// each entry its key (8 B: int64 or a string handle) and its float score.
absl::StatusOr<Cost> CountZipMap(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInput(ctx, 0);
  if (!x.ok()) return x.status();
  Cost cost = TrafficOf(ctx, {0});
  cost.bytes_written += Elements(**x) * (8 + 4);
  return cost;
}

}  // namespace

void RegisterMovementCounters(CounterRegistry& registry) {
  for (const char* op : {"Reshape", "Squeeze", "Unsqueeze", "Flatten",
                         "Identity", "Shape", "Size", "Constant", "Optional",
                         "OptionalGetElement", "OptionalHasElement",
                         "SequenceErase", "SequenceEmpty", "SequenceLength"}) {
    registry.Register("", op, CountView);
  }
  for (const char* op :
       {"SplitToSequence", "SequenceConstruct", "SequenceInsert"}) {
    registry.Register("", op, CountIntoSequence);
  }
  registry.Register("", "SequenceAt", CountOutOfSequence);
  registry.Register("", "ConcatFromSequence", CountOutOfSequence);
  registry.Register("ai.onnx.ml", "ZipMap", CountZipMap);
  // ai.onnx.ml's gather and concatenation.
  registry.Register("ai.onnx.ml", "ArrayFeatureExtractor", CountGather);
  registry.Register("ai.onnx.ml", "FeatureVectorizer", CountCopy);
  registry.Register("", "Dropout", CountDropout);
  for (const char* op :
       {"Transpose", "Concat", "Split", "DepthToSpace", "SpaceToDepth",
        "ScatterND", "ScatterElements", "Scatter", "Compress",
        "ReverseSequence", "MaxUnpool", "CenterCropPad"}) {
    registry.Register("", op, CountCopy);
  }
  for (const char* op : {"Expand", "Tile", "Pad", "OneHot"}) {
    registry.Register("", op, CountFirstInputOnly);
  }
  registry.Register("", "Slice", CountSlice);
  for (const char* op : {"Gather", "GatherElements", "GatherND"}) {
    registry.Register("", op, CountGather);
  }
  registry.Register("com.microsoft", "QLinearConcat", CountQLinearConcat);
  registry.Register("", "Col2Im", CountCol2Im);
}

}  // namespace ridgeline::engine::counters
