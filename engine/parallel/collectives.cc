#include "engine/parallel/collectives.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

struct Link {
  double bandwidth = 0;  // bytes/s per direction
  double latency = 0;    // s per step
};

// Ring steps and bytes factor of one flat (single-level) collective.
double Steps(CollectiveOp op, int n) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2.0 * (n - 1);
    case CollectiveOp::kPointToPoint:
      return 1;
    default:
      return n - 1;
  }
}

double FlatTime(CollectiveOp op, double bytes, int n, const Link& link,
                double* latency) {
  if (n <= 1 && op != CollectiveOp::kPointToPoint) return 0;
  *latency += Steps(op, n) * link.latency;
  return RingFactor(op, n) * bytes / link.bandwidth;
}

}  // namespace

std::string_view MeasuredOpKey(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return kMeasuredCollectiveOps[0];
    case CollectiveOp::kAllGather:
      return kMeasuredCollectiveOps[1];
    case CollectiveOp::kReduceScatter:
      return kMeasuredCollectiveOps[2];
    case CollectiveOp::kAllToAll:
      return kMeasuredCollectiveOps[3];
    case CollectiveOp::kPointToPoint:
      return "";
  }
  return "";
}

double InterpolateMeasured(const MeasuredCollective& table, double bytes,
                           double* floor_s) {
  const std::vector<double>& b = table.bytes;
  const std::vector<double>& t = table.seconds;
  if (floor_s != nullptr) *floor_s = t.empty() ? 0 : t.front();
  if (b.empty() || b.size() != t.size()) return 0;
  if (bytes <= b.front()) return t.front();
  const size_t last = b.size() - 1;
  if (bytes >= b[last]) {
    const double per_byte =
        last == 0
            ? t[0] / b[0]
            : std::max(0.0, (t[last] - t[last - 1]) / (b[last] - b[last - 1]));
    return t[last] + (bytes - b[last]) * per_byte;
  }
  // First size above `bytes`; b[i - 1] < bytes < b[i] or bytes == b[i - 1].
  const size_t i = static_cast<size_t>(
      std::upper_bound(b.begin(), b.end(), bytes) - b.begin());
  const double x = std::log(bytes / b[i - 1]) / std::log(b[i] / b[i - 1]);
  return t[i - 1] * std::pow(t[i] / t[i - 1], x);
}

std::string_view CollectiveOpName(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return "AllReduce";
    case CollectiveOp::kAllGather:
      return "AllGather";
    case CollectiveOp::kReduceScatter:
      return "ReduceScatter";
    case CollectiveOp::kAllToAll:
      return "AllToAll";
    case CollectiveOp::kPointToPoint:
      return "SendRecv";
  }
  return "AllReduce";
}

double RingFactor(CollectiveOp op, int gpus) {
  if (op == CollectiveOp::kPointToPoint) return 1;
  if (gpus <= 1) return 0;
  const double n = gpus;
  return op == CollectiveOp::kAllReduce ? 2 * (n - 1) / n : (n - 1) / n;
}

absl::StatusOr<CollectiveTime> TimeCollective(
    const CollectiveWork& work, const Interconnect& link,
    const std::optional<CustomAllReduce>& custom) {
  const int n = work.gpus;
  const std::string_view name = CollectiveOpName(work.op);
  if (n < 1) {
    return absl::InvalidArgumentError(
        fmt::format("{} over {} GPUs: needs at least 1", name, n));
  }
  if (!(work.message_bytes >= 0) || !std::isfinite(work.message_bytes)) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: message of {} bytes is not a size", name, work.message_bytes));
  }
  CollectiveTime t;
  if (n == 1 && work.op != CollectiveOp::kPointToPoint) return t;
  const int g = link.gpus_per_node;
  const bool across =
      work.op == CollectiveOp::kPointToPoint ? work.across_nodes : n > g;
  if (!across && !link.present()) {
    return absl::InvalidArgumentError(
        fmt::format("{} over {} GPUs: the device has no intra-node "
                    "interconnect data (hardware file 'interconnect')",
                    name, n));
  }
  if (across && !link.has_network()) {
    return absl::InvalidArgumentError(fmt::format(
        "{} over {} GPUs needs {} node(s) of {} GPUs, but the device's "
        "hardware file gives no network between nodes "
        "(interconnect.inter_node_bandwidth_bytes_per_s)",
        name, n, (n + g - 1) / g, g));
  }
  const Link intra{link.intra_node_bandwidth_bytes_per_s,
                   link.intra_node_latency_s};
  const Link inter{link.inter_node_bandwidth_bytes_per_s,
                   link.inter_node_latency_s};
  const double m = work.message_bytes;
  t.across_nodes = across;
  t.latency_s = link.collective_launch_s;
  const bool custom_shot =
      custom && !across && work.op == CollectiveOp::kAllReduce &&
      m <= std::max(custom->one_shot_max_bytes, custom->two_shot_max_bytes);
  if (custom_shot) {
    const double n_gpus = n;
    const double factor = m <= custom->one_shot_max_bytes
                              ? n_gpus - 1                  // one-shot
                              : 2 * (n_gpus - 1) / n_gpus;  // two-shot
    t.latency_s = custom->latency_s;
    t.bandwidth_s = factor * m / intra.bandwidth;
  } else if (const MeasuredCollective* measured =
                 !across && work.op != CollectiveOp::kPointToPoint
                     ? link.MeasuredFor(MeasuredOpKey(work.op), n)
                     : nullptr) {
    double floor_s = 0;
    const double total = InterpolateMeasured(*measured, m, &floor_s);
    t.latency_s = std::min(total, floor_s);
    t.bandwidth_s = total - t.latency_s;
    t.measured = true;
  } else if (!across) {
    t.bandwidth_s = FlatTime(work.op, m, n, intra, &t.latency_s);
  } else if (work.op == CollectiveOp::kPointToPoint) {
    t.bandwidth_s = FlatTime(work.op, m, 2, inter, &t.latency_s);
  } else if (work.op == CollectiveOp::kAllReduce && g > 1) {
    if (n % g != 0) {
      return absl::InvalidArgumentError(fmt::format(
          "{} over {} GPUs across nodes of {}: the GPU count must be a "
          "multiple of the GPUs per node",
          name, n, g));
    }
    if (!link.present()) {
      return absl::InvalidArgumentError(fmt::format(
          "{} over {} GPUs: the device has no intra-node interconnect data",
          name, n));
    }
    t.bandwidth_s =
        FlatTime(CollectiveOp::kReduceScatter, m, g, intra, &t.latency_s) +
        FlatTime(CollectiveOp::kAllReduce, m / g, n / g, inter, &t.latency_s) +
        FlatTime(CollectiveOp::kAllGather, m, g, intra, &t.latency_s);
  } else {
    t.bandwidth_s = FlatTime(work.op, m, n, inter, &t.latency_s);
  }
  t.total_s = t.latency_s + t.bandwidth_s;
  if (t.total_s > 0) {
    t.bus_bandwidth_bytes_per_s = m / t.total_s * RingFactor(work.op, n);
  }
  return t;
}

}  // namespace ridgeline::engine
