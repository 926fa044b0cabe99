// A tiny graph builder for the counter tests: add tensors and nodes by shape,
// finalize, count one node with the default registry.
//
//   CounterGraph g;
//   int x = g.Input("x", {1, 3, 8, 8});
//   int w = g.Weight("w", {4, 3, 3, 3});
//   int conv = g.Op("Conv", {x, w}, {{1, 4, 6, 6}});
//   Cost c = g.Count(conv);
#ifndef RIDGELINE_TESTS_COUNTERS_TEST_UTIL_H_
#define RIDGELINE_TESTS_COUNTERS_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "engine/cost.h"
#include "engine/counter_registry.h"
#include "graph/graph.h"
#include "gtest/gtest.h"

namespace ridgeline::engine::testing {

using graph::DType;

class CounterGraph {
 public:
  using Attributes = std::vector<std::pair<std::string, graph::AttributeValue>>;

  int Input(const std::string& name, graph::Dims dims,
            DType dtype = DType::kFloat32) {
    return Add({.name = name,
                .dtype = dtype,
                .dims = std::move(dims),
                .shape_known = true,
                .kind = graph::TensorKind::kGraphInput});
  }
  int Weight(const std::string& name, graph::Dims dims,
             DType dtype = DType::kFloat32) {
    return Add({.name = name,
                .dtype = dtype,
                .dims = std::move(dims),
                .shape_known = true,
                .kind = graph::TensorKind::kInitializer});
  }
  // An integer initializer with folded values (shape [n], or a scalar).
  int IntConstant(const std::string& name, std::vector<int64_t> values,
                  bool scalar = false, DType dtype = DType::kInt64) {
    graph::Dims dims;
    if (!scalar) dims.push_back(static_cast<int64_t>(values.size()));
    return Add({.name = name,
                .dtype = dtype,
                .dims = dims,
                .shape_known = true,
                .kind = graph::TensorKind::kInitializer,
                .int_values = std::move(values)});
  }
  // An input whose shape is unknown.
  int UnknownInput(const std::string& name) {
    return Add({.name = name,
                .dtype = DType::kFloat32,
                .kind = graph::TensorKind::kGraphInput});
  }

  // Adds a node with one new output tensor per entry of `outputs`
  // (dtype `out_dtype`), named "<op>_<index>" unless `name` is given.
  int Op(const std::string& op, std::vector<int> inputs,
         std::vector<graph::Dims> outputs, Attributes attributes = {},
         const std::string& domain = "", DType out_dtype = DType::kFloat32,
         const std::string& name = "") {
    graph::Node node;
    node.name =
        name.empty() ? op + "_" + std::to_string(graph_.nodes().size()) : name;
    node.op_type = op;
    node.domain = domain;
    node.inputs.assign(inputs.begin(), inputs.end());
    for (size_t i = 0; i < outputs.size(); ++i) {
      node.outputs.push_back(
          Add({.name = node.name + "_out" + std::to_string(i),
               .dtype = out_dtype,
               .dims = outputs[i],
               .shape_known = true}));
    }
    for (auto& [key, value] : attributes) node.attributes[key] = value;
    absl::StatusOr<int> index = graph_.AddNode(std::move(node));
    EXPECT_TRUE(index.ok()) << index.status();
    return index.ok() ? *index : -1;
  }

  // Output tensor i of node `node`.
  int Out(int node, size_t i = 0) const { return graph_.node(node).outputs[i]; }

  graph::Graph& graph() { return graph_; }

  // Finalizes (once) and counts `node` with the default registry.
  absl::StatusOr<Cost> TryCount(int node, const TensorPricer& pricer) {
    if (!finalized_) {
      absl::Status s = graph_.Finalize();
      EXPECT_TRUE(s.ok()) << s;
      finalized_ = true;
    }
    return CounterRegistry::Default().Count(graph_, node, pricer);
  }
  absl::StatusOr<Cost> TryCount(int node) {
    return TryCount(node, default_pricer_);
  }
  Cost Count(int node, const TensorPricer& pricer) {
    absl::StatusOr<Cost> c = TryCount(node, pricer);
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? *c : Cost{};
  }
  Cost Count(int node) { return Count(node, default_pricer_); }

 private:
  int Add(graph::Tensor t) {
    absl::StatusOr<int> id = graph_.AddTensor(std::move(t));
    EXPECT_TRUE(id.ok()) << id.status();
    return id.ok() ? *id : -1;
  }

  graph::Graph graph_;
  TensorPricer default_pricer_;
  bool finalized_ = false;
};

}  // namespace ridgeline::engine::testing

#endif  // RIDGELINE_TESTS_COUNTERS_TEST_UTIL_H_
