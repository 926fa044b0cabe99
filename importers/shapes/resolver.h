// Walks a converted graph in topological order and resolves every tensor's
// dtype and dims (internal to importers/; the entry point is ResolveShapes in
// importers/shape_inference.h).
//
// Per node: inputs must be resolved; the op's shape function (registry.h) or
// else ONNX's schema inference (onnx_fallback.h) sets the outputs; small
// integer/float outputs are folded (const_eval.cc); what stays unknown takes
// the model's value_info as a last hint or is recorded with its reason.
// If/Loop/Scan/SequenceMap bodies are resolved when their parent is reached
// (control_flow.cc).
#ifndef RIDGELINE_IMPORTERS_SHAPES_RESOLVER_H_
#define RIDGELINE_IMPORTERS_SHAPES_RESOLVER_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "graph/graph.h"
#include "importers/shapes/context.h"
#include "importers/shapes/registry.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers::shapes {

class Resolver {
 public:
  Resolver(const std::vector<const onnx::NodeProto*>& protos,
           const onnx::ModelProto& model, graph::Graph* graph);

  // Folded values of floating graph inputs (--input-value), by tensor.
  void SeedFloats(const absl::flat_hash_map<int, std::vector<double>>& floats) {
    for (const auto& [t, v] : floats) state_.floats[t] = v;
  }

  absl::Status Run();

 private:
  // A subgraph of a control-flow node: its proto, its body nodes in
  // topological order and the tensors of its inputs.
  struct Body {
    int parent = -1;
    std::string attribute;
    const onnx::GraphProto* graph = nullptr;
    std::vector<int> nodes;
    std::vector<int> inputs;
    // Tensor of each name defined in the body (node outputs and inputs),
    // filled when the parent is resolved.
    absl::flat_hash_map<std::string, int> names;
  };

  void IndexSubgraphs();
  void IndexInitializers(const onnx::GraphProto& g, const std::string& prefix);
  // Copies the small floating values the folds knew onto the graph's
  // tensors (graph::Tensor::float_values), and the floating scalars of
  // initializers they did not read.
  void PublishFloatValues();
  void BindGraphInputTypes();

  absl::Status ResolveNode(int n);
  absl::Status ResolveBodyNodes(const Body& body);
  // Records the reason for each output the node left unresolved.
  void FinishOutputs(int n, const std::string& reason);
  absl::Status ValidateOutputs(int n);
  void TryFold(InferContext& ctx, const FoldEntry& fold);
  bool HasValues(int tensor) const;
  bool IsKnown(int tensor) const;
  // Root cause recorded for an unresolved tensor.
  std::string RootReason(int tensor) const;
  // Applies the model's value_info for the node's unresolved outputs.
  void ApplyHints(int n);

  // control_flow.cc
  absl::Status ResolveControlFlow(int n);
  absl::Status ResolveIf(int n, std::vector<Body>& bodies);
  // Marks the nodes of a branch that does not run (and of its nested
  // bodies) Node::not_run.
  void MarkNotRun(const Body& body);
  // After every node is resolved: the nodes of a folded If's taken branch
  // move up to the graph that holds the If (Node::parent), as ONNX
  // Runtime inlines a constant-condition If, so that they are counted,
  // fused and timed like the nodes around the If; where the If's output is
  // a graph output, the branch's output becomes one too.
  void InlineTakenBranches();
  absl::Status ResolveLoop(int n, Body& body);
  // What one iteration of Loop `loop` does to a carried sequence, when its
  // body output `out` comes from its body input `in` through SequenceInsert,
  // SequenceErase and Identity only: the net elements added, how many were
  // inserted and their dims when they all agree.
  struct LoopGrowth {
    int64_t delta = 0;
    int64_t inserted = 0;
    bool elems_agree = true;
    graph::Dims elem_dims;
  };
  std::optional<LoopGrowth> SequenceGrowth(int loop, int in, int out) const;
  absl::Status ResolveScan(int n, Body& body);
  absl::Status ResolveSequenceMap(int n, Body& body);
  // Fills body.names.
  void IndexBodyNames(Body& body) const;
  // Tensor index of output `i` of the body graph; -1 if not found.
  int BodyOutput(const Body& body, int i) const;
  // Copies what is known about tensor `from` (shape or sequence info) to
  // tensor `to`.
  void CopyKnown(int from, int to);
  void SetDims(int tensor, graph::DType dtype, graph::Dims dims);
  void SetReason(int tensor, std::string reason);

  const std::vector<const onnx::NodeProto*>& protos_;
  const onnx::ModelProto& model_;
  graph::Graph& graph_;
  const ShapeRegistry& registry_;
  FoldedState state_;
  // Why each unresolved tensor is unresolved, by tensor index.
  absl::flat_hash_map<int, std::string> reasons_;
  // Bodies of each control-flow node, by node index.
  absl::flat_hash_map<int, std::vector<Body>> bodies_;
  // value_info / graph output types by tensor name, built on first use.
  absl::flat_hash_map<std::string, const onnx::TypeProto*> hints_;
  bool hints_built_ = false;
};

}  // namespace ridgeline::importers::shapes

#endif  // RIDGELINE_IMPORTERS_SHAPES_RESOLVER_H_
