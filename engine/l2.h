// Which bytes of each kernel a GPU's L2 cache serves instead of DRAM.
//
//   const double l2 = ModelledL2Bytes(runtime, hardware);
//   if (l2 > 0)
//     AssignL2Residency(graph, pricer, l2, weights_fit,
//                       runtime.kv_append_in_place, layers, &kernels);
//
// The L2 is taken as a least-recently-used cache of `l2_bytes`: a tensor is
// still in it when no more bytes than that were touched since it was
// written.
// The bytes touched are counted as the tensor itself plus every byte of the
// kernels launched between its writer and its reader (an upper bound on the
// distinct bytes: a runtime's reused activation buffers are counted again,
// so a hit is never counted that the cache would miss).
// - An activation read is served by the L2 when the tensor is still there.
// - An activation write stays in the L2 when every kernel that reads it
//   (through views) is served by the L2 and it is not a graph output: the
//   runtime reuses the buffer, and its lines are overwritten before they are
//   written back.
// - A KV cache appended in place (`kv_append_in_place`: every KV append,
//   kernel_plan.h IsKvAppend) comes from DRAM too: the append wrote only the
//   new entries, the past ones were written steps (and weight streams) ago.
// - Graph inputs (a KV cache, the input image) come from DRAM; so do the
//   weights, unless `weights_resident`: the weight bytes an inference reads
//   and the peak activations together fit in the L2, so a loop of inferences
//   finds them there.
// Each kernel gets KernelWork::l2_activation_share (the L2-served share of
// its non-weight tensor bytes) and KernelWork::l2_weights; TimeKernel
// (engine/timing.h) moves those bytes at kL2BandwidthFactor times the
// attainable bandwidth.
#ifndef RIDGELINE_ENGINE_L2_H_
#define RIDGELINE_ENGINE_L2_H_

#include <vector>

#include "engine/analysis.h"
#include "engine/counter_registry.h"
#include "engine/hardware.h"
#include "engine/runtime.h"
#include "graph/graph.h"

namespace ridgeline::engine {

// The L2 bytes the kernels of `runtime` on `hardware` are priced with:
// Hardware::UsableL2Bytes for a size-aware runtime, 0 (no L2 term) for a
// flat one.
double ModelledL2Bytes(const Runtime& runtime, const Hardware& hardware);

// The weight bytes one inference reads, the working set a loop of
// inferences keeps coming back to: every weight in full, except a table that
// only Gather-family nodes (com.microsoft GatherBlockQuantized included)
// read as their data (an embedding), of which the
// gathered rows (the readers' `weight_bytes`), at most the table. `layer_of`
// maps a node to its entry in `layers` (-1: none).
double TouchedWeightBytes(const graph::Graph& graph, const TensorPricer& pricer,
                          const std::vector<int>& layer_of,
                          const std::vector<LayerResult>& layers);

// True when a loop of inferences keeps the weights in an L2 of `l2_bytes`:
// the bytes it reads of them (TouchedWeightBytes) and the peak activations
// fit.
bool WeightsStayInL2(double touched_weight_bytes, double peak_activation_bytes,
                     double l2_bytes);

void AssignL2Residency(const graph::Graph& graph, const TensorPricer& pricer,
                       double l2_bytes, bool weights_resident,
                       bool kv_append_in_place,
                       const std::vector<LayerResult>& layers,
                       std::vector<KernelResult>* kernels);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_L2_H_
