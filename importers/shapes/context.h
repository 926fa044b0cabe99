// The view a per-op shape function gets of one node: its inputs' dtypes,
// dims and folded values, and setters for its outputs (internal to
// importers/).
//
//   absl::Status ReluShape(InferContext& ctx) {
//     ctx.Set(0, ctx.dtype(0), ctx.dims(0));
//     return absl::OkStatus();
//   }
#ifndef RIDGELINE_IMPORTERS_SHAPES_CONTEXT_H_
#define RIDGELINE_IMPORTERS_SHAPES_CONTEXT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "graph/graph.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers::shapes {

// Most elements a folded value may have; larger tensors are never folded.
inline constexpr int64_t kMaxFoldedElements = 4096;

// What is known about a sequence value (SequenceConstruct, ...), which is not
// a tensor: the element dtype, the common element dims when all elements
// share them, and the length when it is known.
// Optional values are tracked the same way, as at most one element.
struct SequenceInfo {
  bool is_optional = false;
  graph::DType dtype = graph::DType::kUndefined;
  bool elem_dims_known = false;
  graph::Dims elem_dims;
  int64_t length = -1;  // -1 when unknown
  // Dims of each element, when the length and every element are known.
  bool elems_known = false;
  std::vector<graph::Dims> elems;
};

// Side tables of the resolver that graph::Tensor has no field for. Node maps
// keep pointers to values valid while other entries are added.
struct FoldedState {
  // Folded values of small floating-point tensors, by tensor index (integer
  // and bool tensors keep theirs in Tensor::int_values).
  absl::node_hash_map<int, std::vector<double>> floats;
  // Small floating-point initializers, decoded into `floats` on first use.
  absl::flat_hash_map<int, const onnx::TensorProto*> lazy_floats;
  // Sequence-typed (and optional-typed) values, by tensor index.
  absl::node_hash_map<int, SequenceInfo> sequences;
};

// Status a shape function returns when it cannot determine an output shape;
// `reason` ends up in Graph::unresolved. Any other non-OK status is fatal.
absl::Status Unresolved(std::string reason);
bool IsUnresolved(const absl::Status& status);

class InferContext {
 public:
  InferContext(graph::Graph* graph, int node_index,
               const onnx::NodeProto* proto, FoldedState* state)
      : graph_(*graph),
        node_(graph->node(node_index)),
        node_index_(node_index),
        proto_(proto),
        state_(*state) {}

  const graph::Node& node() const { return node_; }
  int node_index() const { return node_index_; }
  // The NodeProto, for tensor- and graph-valued attributes. May be null for
  // graphs built without a model.
  const onnx::NodeProto* proto() const { return proto_; }
  int64_t opset() const { return node_.opset; }
  const graph::Graph& graph() const { return graph_; }

  size_t num_inputs() const { return node_.inputs.size(); }
  bool has_input(size_t i) const { return node_.Input(i) >= 0; }
  // Input i; an omitted or missing input (a node with fewer inputs than its
  // op expects) reads as an absent tensor: no shape, undefined dtype, rank 0.
  const graph::Tensor& input(size_t i) const {
    return has_input(i) ? graph_.tensor(node_.inputs[i]) : AbsentTensor();
  }
  const graph::Dims& dims(size_t i) const { return input(i).dims; }
  int64_t rank(size_t i) const {
    return static_cast<int64_t>(input(i).dims.size());
  }
  graph::DType dtype(size_t i) const { return input(i).dtype; }
  // Number of elements of input i (its dims are validated).
  int64_t numel(size_t i) const { return input(i).NumElements(); }

  // Folded values of input i, or nullptr when it is absent or not folded.
  const std::vector<int64_t>* ints(size_t i) const;
  const std::vector<double>* floats(size_t i) const;
  // Folded values of input i as doubles (ints converted); false if unknown.
  bool ValuesAsDouble(size_t i, std::vector<double>* out) const;
  // Sets *out to the folded integer values of input i, or returns an
  // Unresolved status saying the output depends on values not known before
  // running.
  absl::Status NeedInts(size_t i, const std::vector<int64_t>** out) const;
  // Unresolved status for "needs the values of input i", naming where the
  // unknown values come from.
  absl::Status DataDependent(size_t i) const;
  // True when tensor `tensor` has folded (or decodable) values.
  bool HasValues(int tensor) const;

  // Sequence info of input i, or nullptr.
  const SequenceInfo* sequence(size_t i) const;
  void SetSequence(size_t i, SequenceInfo info);

  size_t num_outputs() const { return node_.outputs.size(); }
  bool has_output(size_t i) const { return node_.Output(i) >= 0; }
  const graph::Tensor& output(size_t i) const {
    return has_output(i) ? graph_.tensor(node_.outputs[i]) : AbsentTensor();
  }
  // Sets dtype and dims of output i (ignored when the output is omitted).
  void Set(size_t i, graph::DType dtype, graph::Dims dims);
  // Sets output i to the largest shape a data-dependent size can take and
  // marks it Tensor::upper_bound (the resolver's warning lists those).
  void SetUpperBound(size_t i, graph::DType dtype, graph::Dims dims);
  // Sets only the dtype, leaving the shape unknown.
  void SetDType(size_t i, graph::DType dtype);
  // Records folded values of output i (after Set); ignored when there are
  // more than kMaxFoldedElements values or the count disagrees with dims.
  void SetInts(size_t i, std::vector<int64_t> values);
  void SetFloats(size_t i, std::vector<double> values);

 private:
  static const graph::Tensor& AbsentTensor();

  // Where the unknown values of `tensor` originate (a graph input, a loop
  // body input, an op whose values are not folded), for messages.
  std::string ValueSource(int tensor) const;

  graph::Graph& graph_;
  const graph::Node& node_;
  int node_index_;
  const onnx::NodeProto* proto_;
  FoldedState& state_;
};

}  // namespace ridgeline::importers::shapes

#endif  // RIDGELINE_IMPORTERS_SHAPES_CONTEXT_H_
