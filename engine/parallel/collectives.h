// Collective communication time on a device's interconnect (the hardware
// file's "interconnect"): a latency term plus ring factor x bytes / link
// bandwidth, per collective, within a node or across nodes.
//
//   absl::StatusOr<CollectiveTime> t = TimeCollective(
//       {.op = CollectiveOp::kAllReduce, .message_bytes = 16384, .gpus = 8},
//       hw.interconnect);
//
// Formulas (n GPUs, M = message bytes, the full tensor each GPU ends with;
// beta = per-direction bandwidth per GPU, alpha = latency per ring step,
// L = collective launch):
//   all-reduce (ring)               L + 2(n-1) alpha + 2(n-1)/n M / beta
//   all-gather / reduce-scatter     L +  (n-1) alpha +  (n-1)/n M / beta
//   all-to-all                      L +  (n-1) alpha +  (n-1)/n M / beta
//   point-to-point (send/recv)      L +        alpha +          M / beta
// Across nodes (n > g GPUs per node, n a multiple of g), hierarchically:
//   all-reduce = reduce-scatter in the node (g) + ring all-reduce of M/g
//   across the n/g nodes on the network + all-gather in the node (g), one
//   launch; the other collectives cross the network for all their bytes at
//   the network's bandwidth and latency (the slowest link paces the ring).
// Sources: anchors_2026.md 1.2 (mlsysim communication.py) and 4.1 (GenZ
// collective_times.py: a start term plus per-step link latency).
// A runtime with its own all-reduce for small messages inside a node
// (CustomAllReduce below) replaces the ring there:
//   one-shot  (M <= one_shot_max_bytes)  L' + (n-1) M / beta
//   two-shot  (M <= two_shot_max_bytes)  L' + 2(n-1)/n M / beta
// (L' = the custom kernel's latency, launch and barriers together): every
// GPU reads its peers' buffers over the links and reduces in one kernel
// (one-shot), or reduces its 1/n slice and gathers the others' (two-shot).
// A collective inside a node (not a point-to-point) whose op and GPU count
// the device's interconnect.measured_collectives lists (and that no custom
// all-reduce takes) is timed from those measured NCCL times instead of the
// ring formula: NCCL reaches its link bandwidth only on messages of tens of
// MB (on 8 A100s a 2 MiB all-reduce takes 54 us measured, 31 us by the
// formula), so the formula is far under on the 1-32 MB messages of prefill
// and batched decode. Between two measured sizes the time is interpolated
// linearly in log(bytes)-log(seconds); below the smallest it is the
// smallest's time (the floor); above the largest it grows at the last
// segment's seconds per byte. Its latency is that floor, the rest is
// bandwidth time. MakePricing (engine/timing.h) gives the tables to
// size-aware runtimes only; flat ones (mlsysim) keep the formulas.
#ifndef RIDGELINE_ENGINE_PARALLEL_COLLECTIVES_H_
#define RIDGELINE_ENGINE_PARALLEL_COLLECTIVES_H_

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/hardware.h"

namespace ridgeline::engine {

enum class CollectiveOp {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kPointToPoint,
};
// "AllReduce", "AllGather", "ReduceScatter", "AllToAll", "SendRecv": the op
// type of the layer that stands for it in a report.
std::string_view CollectiveOpName(CollectiveOp op);

struct CollectiveWork {
  CollectiveOp op = CollectiveOp::kAllReduce;
  double message_bytes = 0;
  int gpus = 1;
  // Point-to-point only: the two GPUs sit in different nodes.
  bool across_nodes = false;
};

// A runtime's own intra-node all-reduce (PyTorch's IntraNodeComm,
// TensorRT-LLM's custom all-reduce); zero sizes turn a variant off.
struct CustomAllReduce {
  double one_shot_max_bytes = 0;
  double two_shot_max_bytes = 0;
  double latency_s = 0;
};

struct CollectiveTime {
  double latency_s = 0;    // launch + per-step latencies
  double bandwidth_s = 0;  // bytes over the links
  double total_s = 0;      // latency_s + bandwidth_s
  bool across_nodes = false;
  // NCCL's bus bandwidth of this time: M / total x the ring factor
  // (2(n-1)/n all-reduce, (n-1)/n the others, 1 point-to-point), bytes/s.
  double bus_bandwidth_bytes_per_s = 0;
  // Timed from interconnect.measured_collectives, not the formula.
  bool measured = false;
};

// The measured time of `bytes` from `table`, interpolated as described
// above; `floor_s` (optional) gets the table's smallest time.
double InterpolateMeasured(const MeasuredCollective& table, double bytes,
                           double* floor_s = nullptr);

// The key of `op` in interconnect.measured_collectives ("all_reduce",
// "all_gather", "reduce_scatter", "all_to_all"); "" for a point-to-point.
std::string_view MeasuredOpKey(CollectiveOp op);

// The ring factor of `op` on n GPUs: 2(n-1)/n, (n-1)/n or 1.
double RingFactor(CollectiveOp op, int gpus);

// Errors: gpus < 1, negative bytes, no intra-node bandwidth, more GPUs than
// a node holds with no network, or a GPU count that is not a multiple of
// the GPUs per node across nodes. One GPU (and a point-to-point inside one
// GPU) costs nothing. `custom` (a runtime's) times the all-reduces inside a
// node it takes; the others stay on the ring.
absl::StatusOr<CollectiveTime> TimeCollective(
    const CollectiveWork& work, const Interconnect& link,
    const std::optional<CustomAllReduce>& custom = std::nullopt);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_PARALLEL_COLLECTIVES_H_
