// How a runtime maps graph nodes to kernels: which nodes are host work
// (shape arithmetic), which Concats are KV-cache appends, and which kernel
// class a node runs as. Used by Analyze (engine/analysis.cc).
#ifndef RIDGELINE_ENGINE_KERNEL_PLAN_H_
#define RIDGELINE_ENGINE_KERNEL_PLAN_H_

#include <optional>
#include <vector>

#include "engine/cost.h"
#include "engine/counter_registry.h"
#include "engine/timing.h"
#include "graph/graph.h"

namespace ridgeline::engine {

// Per node: true when the node only computes shape metadata and a runtime
// runs it on the host (no kernel). A node is host work when it is Shape,
// Size or Constant; when all its outputs were folded by the constant
// evaluator; or when every input is host-derived (an initializer, a
// Constant output or a host node's output) and its outputs are integer or
// boolean (shape arithmetic, Range over shape values), or hold at most 64
// elements in all (a scale vector computed from shapes).
std::vector<bool> FindHostNodes(const graph::Graph& graph);

// Per node: true when a runtime with strided views (PyTorch eager) runs the
// node as a view of its input, launching nothing: Slice with positive
// steps (torch's narrow/slicing), Expand, and Transpose unless one of its
// consumers is a Reshape or Flatten (torch's reshape of a non-contiguous
// tensor copies it; that copy is the Transpose's kernel). The consumers of
// a view read it through its strides, at the bytes they already count.
std::vector<bool> FindStridedViews(const graph::Graph& graph);

// True for Concat(past, new) -> present where `past` is a graph input and
// `present` a graph output: a KV-cache append, which runtimes with a
// preallocated or paged cache write in place.
bool IsKvAppend(const graph::Graph& graph, int node);
// The bytes an in-place append moves: the new entries, read once and
// written once.
double KvAppendBytes(const graph::Graph& graph, int node,
                     const TensorPricer& pricer);

// The kernel that quantizes a weight GEMM's activation input at run time
// (per-row absmax, scale and cast in one reduction kernel): reads the
// m x k activation at 2 B (bf16) and writes it at 1 B, 3 vector FLOPs per
// element (abs, max, scale). Nullopt when the kernel is not a matrix
// kernel with weights and a known GEMM shape.
std::optional<KernelWork> ActivationQuantizeWork(const KernelWork& gemm);

// The kernel class a single node runs as. Contractions with a GEMM shape
// too thin for matrix units (n or k below 16: depthwise convolutions) run
// as elementwise-class kernels.
KernelClass ClassOfNode(const graph::Node& node, const Cost& cost);

// The work of a one-node kernel: its cost's FLOPs and bytes, its class and
// GEMM shape; kernels that are not matrix or attention kernels run every
// FLOP on the vector units.
KernelWork NodeKernelWork(const graph::Node& node, const Cost& cost,
                          double flops_per_mac);

// Moves the matrix FLOPs of a kernel that does not run on matrix units
// (elementwise, reduction, movement) to the vector units.
void PlaceFlopsByClass(KernelWork* work);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_KERNEL_PLAN_H_
