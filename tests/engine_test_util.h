// Toy device, toy graph and toy counters shared by the engine tests. Every
// number is round so the expected latencies can be worked out by hand (see
// the comments in engine_analysis_test.cc).
#ifndef RIDGELINE_TESTS_ENGINE_TEST_UTIL_H_
#define RIDGELINE_TESTS_ENGINE_TEST_UTIL_H_

#include <string>
#include <utility>

#include "engine/analysis.h"
#include "engine/counter_registry.h"
#include "engine/hardware.h"
#include "engine/timing.h"
#include "graph/graph.h"

namespace ridgeline::engine::testing {

// Peaks fp32 1000, fp16 2000, int8 4000 FLOP/s; 100 B/s; 1000 B of memory;
// dispatch tax 0.5 s.
inline Hardware ToyHardware() {
  Hardware hw;
  hw.key = "toy";
  hw.name = "Toy accelerator";
  hw.peak_flops_per_s = {{"fp32", 1000.0}, {"fp16", 2000.0}, {"int8", 4000.0}};
  hw.memory_bandwidth_bytes_per_s = 100;
  hw.memory_capacity_bytes = 1000;
  hw.dispatch_tax_s = 0.5;
  hw.source = "round numbers for tests";
  return hw;
}

// Efficiency 0.5, memory efficiency 1, per-layer tax 1 s, 2 FLOPs per MAC.
inline AnalyzeOptions ToyOptions() {
  AnalyzeOptions o;
  o.flops_per_mac = 2;
  o.compute_efficiency = 0.5;
  o.memory_efficiency = 1.0;
  o.per_layer_tax_s = 1.0;
  return o;
}

// Fixed costs per op type, independent of tensor sizes:
//   A: 1000 MACs, 100 B read, 100 B written     (compute-heavy)
//   V: a pure view
//   B: 100 FLOPs, 400 B read, 400 B written     (memory-heavy)
//   C: 10 FLOPs, 5 B read, 5 B written          (tiny: overhead-bound)
//   P: 0 FLOPs, bytes of all its tensors at the pricer's sizes
inline CounterRegistry ToyRegistry() {
  CounterRegistry r;
  r.Register("", "A", [](const CountContext&) -> absl::StatusOr<Cost> {
    return Cost{.macs = 1000, .bytes_read = 100, .bytes_written = 100};
  });
  r.Register("", "V", [](const CountContext&) -> absl::StatusOr<Cost> {
    return Cost{.view = true};
  });
  r.Register("", "B", [](const CountContext&) -> absl::StatusOr<Cost> {
    return Cost{.other_flops = 100, .bytes_read = 400, .bytes_written = 400};
  });
  r.Register("", "C", [](const CountContext&) -> absl::StatusOr<Cost> {
    return Cost{.other_flops = 10, .bytes_read = 5, .bytes_written = 5};
  });
  r.Register("", "P", [](const CountContext& ctx) -> absl::StatusOr<Cost> {
    return Cost{.bytes_read = ctx.AllInputBytes(),
                .bytes_written = ctx.AllOutputBytes(),
                .weight_bytes = ctx.WeightInputBytes()};
  });
  return r;
}

// Adds a tensor of known shape to a hand-built graph; its index.
inline int AddKnownTensor(graph::Graph& g, std::string name, graph::DType dtype,
                          graph::Dims dims, graph::TensorKind kind) {
  return *g.AddTensor({.name = std::move(name),
                       .dtype = dtype,
                       .dims = std::move(dims),
                       .shape_known = true,
                       .kind = kind});
}

// Adds a node of the default domain reading `inputs`, writing `outputs`.
inline void AddPlainNode(graph::Graph& g, std::string name, std::string op,
                         graph::IndexList inputs, graph::IndexList outputs) {
  (void)g.AddNode({.name = std::move(name),
                   .op_type = std::move(op),
                   .inputs = std::move(inputs),
                   .outputs = std::move(outputs)});
}

// x[10] (input) and w[100] (weight) -> A -> a[20] -> V -> v[4,5] -> B ->
// b[5] -> C -> y[50] (output); all float32.
inline graph::Graph ToyGraph() {
  using graph::DType;
  using graph::TensorKind;
  graph::Graph g;
  g.name = "toy";
  auto tensor = [&](const char* name, graph::Dims dims, TensorKind kind) {
    return AddKnownTensor(g, name, DType::kFloat32, std::move(dims), kind);
  };
  const int x = tensor("x", {10}, TensorKind::kGraphInput);
  const int w = tensor("w", {100}, TensorKind::kInitializer);
  const int a = tensor("a", {20}, TensorKind::kActivation);
  const int v = tensor("v", {4, 5}, TensorKind::kActivation);
  const int b = tensor("b", {5}, TensorKind::kActivation);
  const int y = tensor("y", {50}, TensorKind::kActivation);
  AddPlainNode(g, "a", "A", {x, w}, {a});
  AddPlainNode(g, "v", "V", {a}, {v});
  AddPlainNode(g, "b", "B", {v}, {b});
  AddPlainNode(g, "c", "C", {b}, {y});
  g.MarkOutput(y);
  (void)g.Finalize();
  return g;
}

// A size-aware pricing with round numbers: peak 1e12 FLOP/s, 1e11 B/s,
// matrix and memory efficiency 0.5, 1 us fixed per matrix kernel, 2 us per
// memory kernel, full overlap, no SM count.
inline Pricing RoundPricing() {
  Pricing p;
  p.runtime.size_aware = true;
  p.runtime.cuda_graphs = true;
  p.runtime.kernel_gap_s = 1e-6;
  p.model.matrix_efficiency = 0.5;
  p.model.memory_efficiency = 0.5;
  p.model.kernel_fixed_s = 1e-6;
  p.model.memory_kernel_fixed_s = 2e-6;
  p.model.matrix_overlap = 1.0;
  p.model.compute_units = 0;
  p.peak_flops_per_s = 1e12;
  p.vector_flops_per_s = 1e11;
  p.memory_bandwidth_bytes_per_s = 1e11;
  return p;
}

}  // namespace ridgeline::engine::testing

#endif  // RIDGELINE_TESTS_ENGINE_TEST_UTIL_H_
