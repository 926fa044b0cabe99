// The operator graph: operators are vertices, tensors are edges from their
// producer to each consumer. Graph inputs and initializers (weights) are
// tensors with no producer.
//
//   graph::Graph g;
//   int x = g.AddTensor({.name = "x", .dtype = DType::kFloat32, ...});
//   ...
//   absl::Status s = g.Finalize();   // links edges, checks, sorts
//   for (int n : g.topological_order()) { const graph::Node& node = g.node(n);
//   }
#ifndef RIDGELINE_GRAPH_GRAPH_H_
#define RIDGELINE_GRAPH_GRAPH_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "boost/graph/adjacency_list.hpp"
#include "graph/dtype.h"

namespace ridgeline::graph {

using Dims = std::vector<int64_t>;
// Tensor or node indices of one node or tensor: almost always a handful, so
// they live inline (no heap allocation per node on 100k-node graphs).
using IndexList = absl::InlinedVector<int, 4>;

// Largest dim accepted anywhere (2^40); larger ones are treated as corrupt.
inline constexpr int64_t kMaxDim = int64_t{1} << 40;
// Most elements a tensor may have (2^59), so that its size in bytes, at up to
// 16 bytes per element (complex128), fits in int64: a model claiming 2^62
// elements is rejected, not priced with a wrapped number.
inline constexpr int64_t kMaxElements = int64_t{1} << 59;

enum class TensorKind {
  kActivation,   // produced by a node
  kGraphInput,   // fed by the caller
  kInitializer,  // a weight or constant stored in the model
};

struct Tensor {
  std::string name;
  DType dtype = DType::kUndefined;
  Dims dims;  // meaningful only when shape_known
  bool shape_known = false;
  // The dims are the largest a data-dependent size can take (NonZero with
  // every element non-zero, NonMaxSuppression selecting every box, ...),
  // not the size of a particular run; Graph::warnings says which.
  bool upper_bound = false;
  // A sequence or optional value (SplitToSequence's list, ZipMap's list of
  // maps, an Optional): not a tensor. Its dims stay unknown (shape_known is
  // false) and it is not unresolved; as a tensor it costs 0 bytes, and the
  // ops that build or read it price the tensors they copy.
  bool non_tensor = false;
  TensorKind kind = TensorKind::kActivation;
  // Initializer whose bytes live in an external file (never opened).
  bool external_data = false;
  // Index of the producing node; -1 for graph inputs and initializers.
  int producer = -1;
  // Indices of the consuming nodes (filled by Graph::Finalize), one entry per
  // consuming node even if it reads the tensor twice.
  std::vector<int> consumers;
  // Folded value for small integer tensors (shape computations, axes, ...).
  std::optional<std::vector<int64_t>> int_values;
  // Folded value of a small floating tensor (at most kMaxFloatValues
  // elements: a Dropout ratio, a scale, an epsilon), when the importer knew
  // it (a constant, an initializer, or folded from them).
  std::optional<std::vector<double>> float_values;
  static constexpr size_t kMaxFloatValues = 16;

  bool is_weight() const { return kind == TensorKind::kInitializer; }
  // Product of dims (1 for a scalar). Requires shape_known; dims are validated
  // by Graph::Finalize so the product cannot overflow after that.
  int64_t NumElements() const;
  // NumElements() * ElementBytes(dtype).
  double Bytes() const;
};

using AttributeValue =
    std::variant<int64_t, double, std::string, std::vector<int64_t>,
                 std::vector<double>, std::vector<std::string>>;

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;  // "" for the default ONNX domain
  int64_t opset = 0;   // opset version of the node's domain
  IndexList inputs;    // tensor indices; -1 for an omitted optional input
  IndexList outputs;   // tensor indices; -1 for an omitted output
  absl::flat_hash_map<std::string, AttributeValue> attributes;
  // For nodes inside an If/Loop/Scan body: the index of that control-flow node
  // and the attribute holding the body ("then_branch", "body", ...). The
  // importer inlines the branch a folded If takes: its nodes get the If's
  // own parent (-1 in the main graph).
  int parent = -1;
  std::string parent_attribute;
  // Inside an If branch that its folded condition does not take (set by the
  // importer): the node never runs, is not counted and not unresolved.
  bool not_run = false;

  bool HasAttribute(std::string_view key) const;
  int64_t GetInt(std::string_view key, int64_t default_value) const;
  double GetFloat(std::string_view key, double default_value) const;
  std::string GetString(std::string_view key,
                        std::string_view default_value) const;
  std::vector<int64_t> GetInts(std::string_view key) const;  // empty if absent
  std::vector<double> GetFloats(std::string_view key) const;
  // Number of present (non -1) inputs.
  int NumPresentInputs() const;
  // Input tensor index at position i, or -1 if i is out of range or omitted.
  int Input(size_t i) const { return i < inputs.size() ? inputs[i] : -1; }
  int Output(size_t i) const { return i < outputs.size() ? outputs[i] : -1; }
};

// A tensor whose shape could not be determined, with the node that produces it
// and why.
struct Unresolved {
  std::string tensor;
  std::string node;
  std::string reason;
};

struct VertexProperties {
  int node = -1;
};
struct EdgeProperties {
  int tensor = -1;
};
using BoostGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS,
                          VertexProperties, EdgeProperties>;

// How the batch was bound, settled once by the importer: every mode (the
// throughput, sweeps) reads it from here.
struct BatchBinding {
  // The batch: the value bound to the batch dims, else the static leading
  // dim of the first input of rank >= 2, else 1.
  int64_t value = 1;
  // The symbolic dim names bound as the batch ("batch", or an anonymous
  // leading dim's "input 'x' dim 0"); empty when the batch is static.
  std::vector<std::string> dim_names;
  // Where: "input 'x' dim 0", one per bound dim.
  std::vector<std::string> sites;
  bool symbolic() const { return !dim_names.empty(); }
};

class Graph {
 public:
  std::string name;
  BatchBinding batch;
  std::vector<Unresolved> unresolved;
  // Non-fatal problems found while importing (missing external data, ...).
  std::vector<std::string> warnings;

  // Capacity hint before many Add* calls (the importer knows the counts), so
  // the tables are not regrown and rehashed on large graphs.
  void Reserve(size_t nodes, size_t tensors);
  // Adds a tensor; fails if a tensor of that name exists.
  absl::StatusOr<int> AddTensor(Tensor tensor);
  // Adds a node whose input/output tensor indices are already added.
  // Fails if an output is already produced by another node.
  absl::StatusOr<int> AddNode(Node node);
  void MarkOutput(int tensor) { outputs_.push_back(tensor); }

  // Links producers and consumers, builds the Boost graph, checks for cycles,
  // inputs nobody produces, and invalid dims, and computes the topological
  // order. Must be called once after all Add* calls.
  absl::Status Finalize();

  std::optional<int> FindTensor(std::string_view name) const;
  std::optional<int> FindNode(std::string_view name) const;

  const std::vector<Tensor>& tensors() const { return tensors_; }
  std::vector<Tensor>& mutable_tensors() { return tensors_; }
  const Tensor& tensor(int i) const { return tensors_[i]; }
  Tensor& mutable_tensor(int i) { return tensors_[i]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& node(int i) const { return nodes_[i]; }
  Node& mutable_node(int i) { return nodes_[i]; }
  const std::vector<int>& outputs() const { return outputs_; }
  // Graph input tensors (kind kGraphInput), in the order they were added.
  std::vector<int> Inputs() const;
  const std::vector<int>& topological_order() const { return topo_order_; }
  // The node graph Finalize built (empty before).
  const BoostGraph& boost_graph() const;

  // True for a weight: an initializer, or, in a model that keeps its
  // parameters in Constant nodes, an output of a default-domain `Constant`
  // node holding more than one floating-point or 8/4-bit integer
  // (quantized) value. paddle2onnx and some torch exports store every weight
  // in a Constant node; a model keeps its parameters there when its
  // Constant nodes hold more such elements than its initializers do.
  // Otherwise its Constants are computed tables (a rotary embedding's
  // inverse frequencies, a torch buffer), not parameters. Scalars (scales,
  // epsilons) and integer Constants of other widths are arithmetic.
  // Initializers of integer types other than 8/4 bits are shape operands
  // (Reshape shapes, Slice starts, Resize sizes), not weights, unless a
  // quantized op reads them as values (IsQuantizedIntegerValue).
  // Quantization metadata is not a parameter: a tensor read only as a
  // scale or zero point of a quantized op (QuantizeLinear/DequantizeLinear
  // in ONNX Runtime's QDQ format, ConvInteger/MatMulInteger in its dynamic
  // format, QLinearConv, QLinearMatMul, com.microsoft QGemm,
  // MatMulIntegerToFloat, DynamicQuantizeMatMul) is neither.
  // Parameters, weight bytes, memory fit and quantization all use this.
  bool IsWeight(const Tensor& tensor) const;
  // Read only as a scale or zero point of a quantized op (see IsWeight).
  bool IsQuantizationParameter(const Tensor& tensor) const;
  // Read by a quantized op as an int32 value: a QDQ bias (DequantizeLinear
  // input 0), QLinearConv's bias, QGemm's C.
  bool IsQuantizedIntegerValue(const Tensor& tensor) const;
  // A Constant output of more than one floating or 8/4-bit value.
  bool IsConstantParameter(const Tensor& tensor) const;

  // Number of elements summed over all weights (IsWeight).
  int64_t ParameterCount() const;

 private:
  std::vector<Tensor> tensors_;
  std::vector<Node> nodes_;
  std::vector<int> outputs_;
  std::vector<int> topo_order_;
  absl::flat_hash_map<std::string, int> tensor_index_;
  absl::flat_hash_map<std::string, int> node_index_;
  // Boost 1.74's adjacency_list has no move constructor: held by value, every
  // move of a Graph (an import returns it through several StatusOr moves)
  // copied it edge by edge. Finalize builds a new one, so copies of a Graph
  // share it.
  std::shared_ptr<const BoostGraph> boost_graph_;
  // IsWeight: whether Constant nodes hold the parameters (computed on
  // first use, after shapes are resolved; reset by Finalize).
  mutable std::optional<bool> constants_hold_weights_;
};

// Validates dims: each in [0, kMaxDim] and the product at most kMaxElements.
// Returns the product. `what` names the tensor in the error message.
absl::StatusOr<int64_t> CheckedNumElements(const Dims& dims,
                                           std::string_view what);

// "[1,3,224,224]" or "?" when the shape is unknown.
std::string ShapeString(const Tensor& tensor);

}  // namespace ridgeline::graph

#endif  // RIDGELINE_GRAPH_GRAPH_H_
