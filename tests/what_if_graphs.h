// Small hand-built graphs and a toy device for the fusion and quantization
// what-if tests (header-only test helper).
#ifndef RIDGELINE_TESTS_WHAT_IF_GRAPHS_H_
#define RIDGELINE_TESTS_WHAT_IF_GRAPHS_H_

#include <string>
#include <vector>

#include "engine/analysis.h"
#include "engine/hardware.h"
#include "graph/graph.h"
#include "gtest/gtest.h"

namespace ridgeline::testing {

// Builds a graph tensor by tensor and node by node; every tensor has a known
// shape.
class GraphBuilder {
 public:
  int Input(const std::string& name, graph::Dims dims,
            graph::DType dtype = graph::DType::kFloat32) {
    return Add(name, std::move(dims), dtype, graph::TensorKind::kGraphInput);
  }
  int Weight(const std::string& name, graph::Dims dims,
             graph::DType dtype = graph::DType::kFloat32) {
    return Add(name, std::move(dims), dtype, graph::TensorKind::kInitializer);
  }
  int Value(const std::string& name, graph::Dims dims,
            graph::DType dtype = graph::DType::kFloat32) {
    return Add(name, std::move(dims), dtype, graph::TensorKind::kActivation);
  }
  int Node(const std::string& name, const std::string& op,
           std::vector<int> inputs, std::vector<int> outputs,
           graph::Node extra = {}) {
    extra.name = name;
    extra.op_type = op;
    extra.inputs.assign(inputs.begin(), inputs.end());
    extra.outputs.assign(outputs.begin(), outputs.end());
    absl::StatusOr<int> n = g_.AddNode(std::move(extra));
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : -1;
  }
  void Output(int tensor) { g_.MarkOutput(tensor); }
  graph::Graph Finish() {
    absl::Status s = g_.Finalize();
    EXPECT_TRUE(s.ok()) << s;
    return std::move(g_);
  }

 private:
  int Add(const std::string& name, graph::Dims dims, graph::DType dtype,
          graph::TensorKind kind) {
    graph::Tensor t;
    t.name = name;
    t.dtype = dtype;
    t.dims = std::move(dims);
    t.shape_known = true;
    t.kind = kind;
    absl::StatusOr<int> i = g_.AddTensor(std::move(t));
    EXPECT_TRUE(i.ok()) << i.status();
    return i.ok() ? *i : -1;
  }

  graph::Graph g_;
};

// A toy device: 1 TFLOP/s fp32 and fp16, 2 TOP/s int8, 2 TFLOP/s fp8,
// 100 GB/s, 1 GB, no dispatch tax. Ridge point 10 FLOP/B at fp32.
inline engine::Hardware ToyDevice() {
  engine::Hardware hw;
  hw.key = "toy";
  hw.name = "Toy device";
  hw.peak_flops_per_s = {
      {"fp32", 1e12}, {"fp16", 1e12}, {"int8", 2e12}, {"fp8", 2e12}};
  hw.memory_bandwidth_bytes_per_s = 1e11;
  hw.memory_capacity_bytes = 1e9;
  hw.dispatch_tax_s = 0;
  hw.source = "test";
  return hw;
}

// Efficiencies 1, the given per-layer tax, no dispatch tax.
inline engine::AnalyzeOptions ToyOptions(double per_layer_tax_s = 10e-6) {
  engine::AnalyzeOptions o;
  o.compute_efficiency = 1;
  o.memory_efficiency = 1;
  o.per_layer_tax_s = per_layer_tax_s;
  o.dispatch_tax_s = 0;
  return o;
}

inline graph::Node Attrs(
    std::initializer_list<std::pair<const std::string, graph::AttributeValue>>
        attributes) {
  graph::Node n;
  for (const auto& [k, v] : attributes) n.attributes[k] = v;
  return n;
}

}  // namespace ridgeline::testing

#endif  // RIDGELINE_TESTS_WHAT_IF_GRAPHS_H_
