// Helpers shared by the counter families: element counts, the default byte
// traffic of a node, and errors that name the node.
#ifndef RIDGELINE_ENGINE_COUNTERS_COMMON_H_
#define RIDGELINE_ENGINE_COUNTERS_COMMON_H_

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/cost.h"
#include "engine/counter_registry.h"
#include "graph/graph.h"

namespace ridgeline::engine::counters {

// Number of elements of a (shape-known) tensor, as a double.
double Elements(const graph::Tensor& tensor);

// True for weights (graph::Graph::IsWeight: initializers and floating or
// quantized Constant outputs).
bool IsWeight(const graph::Graph& graph, const graph::Tensor& tensor);

// Adds `elements` elements of `tensor`, priced by ctx.pricer at the tensor's
// element size, to bytes_read (and to weight_bytes when it is a weight).
void AddRead(const CountContext& ctx, const graph::Tensor& tensor,
             double elements, Cost* cost);
// Adds the whole tensor as read / as written.
void AddReadAll(const CountContext& ctx, const graph::Tensor& tensor,
                Cost* cost);
void AddWritten(const CountContext& ctx, const graph::Tensor& tensor,
                Cost* cost);

// The default traffic of a node: every distinct present input read once in
// full, every present output written once in full.
Cost DefaultTraffic(const CountContext& ctx);
// Only the listed inputs (by position; absent ones skipped) are read, every
// present output is written.
Cost TrafficOf(const CountContext& ctx, std::initializer_list<size_t> inputs);

// A counter of `flops` per element of output 0, with the default traffic
// (the elementwise ops, table lookups).
CounterFn PerOutputElement(double flops);

// The error for a node whose tensors do not fit the op:
// "node 'NAME' (OP): WHAT".
absl::Status NodeError(const CountContext& ctx, std::string_view what);

// Input/output i, or an error naming the node when it is absent.
absl::StatusOr<const graph::Tensor*> RequireInput(const CountContext& ctx,
                                                  size_t i);
absl::StatusOr<const graph::Tensor*> RequireOutput(const CountContext& ctx,
                                                   size_t i);
// Like RequireInput, and the rank must be at least `min_rank`.
absl::StatusOr<const graph::Tensor*> RequireInputRank(const CountContext& ctx,
                                                      size_t i,
                                                      size_t min_rank);

// Normalizes a possibly negative axis for `rank`; error if out of range.
absl::StatusOr<size_t> NormalizeAxis(const CountContext& ctx, int64_t axis,
                                     size_t rank);

// Product of dims[begin, end) as a double (1 for an empty range).
double DimProduct(const graph::Dims& dims, size_t begin, size_t end);

// The folded scalar value of an integer tensor (int_values with one element),
// if known.
std::optional<int64_t> FoldedScalar(const graph::Tensor* tensor);
// The folded scalar value of a floating tensor (float_values with one
// element), if known.
std::optional<double> FoldedFloatScalar(const graph::Tensor* tensor);

// True for a Dropout that passes its input through: training_mode absent or
// folded to false (inference), or a ratio folded to 0 (the ONNX spec: "a
// simple copy of the input"), as torchvision's Swin exports it.
bool DropoutIsIdentity(const graph::Graph& graph, const graph::Node& node);

// Multiplies every count of `cost` by `factor` (flags and note kept).
void ScaleCost(double factor, Cost* cost);

}  // namespace ridgeline::engine::counters

#endif  // RIDGELINE_ENGINE_COUNTERS_COMMON_H_
