// The counter registry: one small counting function per op family, keyed by
// (domain, op type), in the manner of XLA's HloCostAnalysis handlers and
// Grappler's op-level cost estimator. Counters never see a device.
//
//   const CounterRegistry& r = CounterRegistry::Default();
//   absl::StatusOr<Cost> c = r.Count(graph, node_index, pricer);
#ifndef RIDGELINE_ENGINE_COUNTER_REGISTRY_H_
#define RIDGELINE_ENGINE_COUNTER_REGISTRY_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "engine/cost.h"
#include "graph/graph.h"

namespace ridgeline::engine {

// Decides how many bytes one element of a tensor costs. The default uses the
// tensor's own dtype; --precision and the quantization what-ifs supply others.
class TensorPricer {
 public:
  virtual ~TensorPricer() = default;
  virtual double ElementBytes(const graph::Graph& graph,
                              const graph::Tensor& tensor) const;
  // Whole-tensor bytes: NumElements() * ElementBytes(). 0 if shape unknown.
  double TensorBytes(const graph::Graph& graph,
                     const graph::Tensor& tensor) const;
};

// What a counter sees: the graph, the node, and the pricer.
struct CountContext {
  const graph::Graph& graph;
  const graph::Node& node;
  const TensorPricer& pricer;

  // The input/output tensor at position i, or nullptr if absent.
  const graph::Tensor* input(size_t i) const;
  const graph::Tensor* output(size_t i) const;
  // Bytes of the whole input/output tensor at position i (0 if absent).
  double InputBytes(size_t i) const;
  double OutputBytes(size_t i) const;
  // Sum over all present inputs / outputs.
  double AllInputBytes() const;
  double AllOutputBytes() const;
  // Bytes of the present inputs that are weights (initializers and outputs
  // of Constant nodes).
  double WeightInputBytes() const;
};

using CounterFn = std::function<absl::StatusOr<Cost>(const CountContext&)>;

class CounterRegistry {
 public:
  // The registry with every built-in counter registered.
  static const CounterRegistry& Default();

  // Registers `fn` for (domain, op_type); domain "" is the ONNX default domain
  // ("ai.onnx" is normalized to "").
  void Register(std::string_view domain, std::string_view op_type,
                CounterFn fn);
  bool Has(std::string_view domain, std::string_view op_type) const;
  // Every registered (domain, op_type), sorted; domain "" is the default.
  std::vector<std::pair<std::string, std::string>> Ops() const;

  // Counts one node. An op with no counter gets zero FLOPs, the bytes of its
  // tensors, and `unknown = true`. A node with an unresolved tensor shape is
  // an error.
  absl::StatusOr<Cost> Count(const graph::Graph& graph, int node,
                             const TensorPricer& pricer) const;

 private:
  absl::flat_hash_map<std::string, CounterFn> counters_;  // "domain/op"
};

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_COUNTER_REGISTRY_H_
