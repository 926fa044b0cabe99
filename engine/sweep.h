// Sweeps: one analysis, re-priced at many batch sizes or on many devices
// (`analyze --sweep batch=1,2,4,...,256`, `--sweep hw=a100,h100,h200`), or
// sharded over several tensor-, pipeline- or expert-parallel widths
// (`--sweep tp=1,2,4,8`, `pp=1,2,4`, `ep=1,2,4,8`: each point a full
// ShardAnalysis, engine/parallel/sharding.h).
//
// Batch: every layer's cost is affine in the batch (MACs, FLOPs and
// activation bytes grow linearly, weight bytes are constant), so the graph
// is analyzed at batch 1 and 2, each layer's cost is interpolated exactly,
// and the roofline is re-applied per point. The interpolation is verified
// against a third analysis at the largest batch; if any layer is not affine,
// every point is analyzed in full instead (SweepResult::interpolated false).
//
//   engine::AnalyzeAtBatch at = [&](int64_t b) { /* import at b, Analyze */ };
//   absl::StatusOr<engine::SweepResult> r =
//       engine::SweepBatch(at, {1, 2, 4, 8}, {});
//   fmt::print("{}", engine::FormatSweep(*r));
#ifndef RIDGELINE_ENGINE_SWEEP_H_
#define RIDGELINE_ENGINE_SWEEP_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/hardware.h"
#include "engine/parallel/sharding.h"
#include "engine/report/text_table.h"
#include "engine/whole_model.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine {

// What `--sweep` asked for.
struct SweepSpec {
  enum class Axis {
    kBatch,
    kHardware,
    kTensorParallel,
    kPipelineParallel,
    kExpertParallel,
    kConcurrency
  };
  Axis axis = Axis::kBatch;
  std::vector<int64_t> batches;       // kBatch
  std::vector<std::string> hardware;  // kHardware: names as typed
  // kTensorParallel, kPipelineParallel, kExpertParallel: GPUs along that
  // dimension, 1..4096.
  std::vector<int64_t> widths;
  // kConcurrency (with --serve): requests decoded together, 1..16777216.
  std::vector<int64_t> concurrency;
};

// Parses "batch=LIST", "hw=NAME,NAME,...", "tp=LIST", "pp=LIST", "ep=LIST"
// or "concurrency=LIST".
// LIST is comma-separated
// positive integers where "..." continues the progression of the values
// before it up to the value after it: geometric if the last three values
// before it have a constant ratio (1,2,4,...,256), else arithmetic with the
// last step (1,2,...,8; 8,16,...,64 is arithmetic: 8,16,24,...). A term
// "A:B" or "A:B:STEP" is the arithmetic range A..B (inclusive), e.g.
// batch=1:1000. At most 100,000 points.
absl::StatusOr<SweepSpec> ParseSweepSpec(std::string_view spec);

struct SweepOptions {
  // Also compute the whole-model estimate at every point.
  std::optional<WholeModelOptions> whole_model;
  // Relative tolerance of the affinity check.
  double affine_tolerance = 1e-9;
};

// One row of a sweep. Layer-level figures follow Analyze() (sum of
// per-layer latencies + dispatch tax); seconds, 1/s, fractions.
struct SweepPoint {
  int64_t batch = 1;
  std::string hardware;  // the device's key
  double latency_s = 0;
  double throughput_per_s = 0;  // batch / latency
  double mfu = 0;               // (FLOPs / latency) / peak
  Bound bound = Bound::kNone;   // bound holding the largest share of time
  double flops = 0;             // at the analysis' flops_per_mac
  double bytes = 0;
  std::optional<WholeModelResult> whole_model;
  // Parallel sweeps (summary.parallel of the sharded analysis): the flops,
  // bytes and MFU above are one GPU's (ep: the busiest GPU's).
  int tp = 1;
  int pp = 1;
  int ep = 1;
  int gpus = 1;
  double weight_bytes_per_gpu = 0;
  bool fits_in_memory_per_gpu = true;
  double collective_s = 0;  // collectives' share of latency_s
};

struct SweepResult {
  SweepSpec::Axis axis = SweepSpec::Axis::kBatch;
  std::vector<SweepPoint> points;
  // Index of the first point whose bound differs from the previous one's,
  // for the layer-level bound and for the whole-model bound.
  std::optional<size_t> layer_flip;
  std::optional<size_t> whole_model_flip;
  // Batch sweeps: true when every point was priced by interpolation.
  bool interpolated = false;
  // Layers whose cost was found not affine in the batch (first 10 names).
  std::vector<std::string> non_affine_layers;
  int analyses = 0;  // full Analyze() runs the sweep needed
};

// Analyzes the model bound at `batch` (the caller imports with the batch
// dim bound and sets AnalyzeOptions::batch).
using AnalyzeAtBatch = std::function<absl::StatusOr<Analysis>(int64_t batch)>;
// Analyzes the model on `hardware` with the sweep's options.
using AnalyzeOnHardware =
    std::function<absl::StatusOr<Analysis>(const Hardware& hardware)>;

absl::StatusOr<SweepResult> SweepBatch(const AnalyzeAtBatch& analyze,
                                       const std::vector<int64_t>& batches,
                                       const SweepOptions& options);

// The parallel dimension of a tp, pp or ep sweep (nullopt for the others).
std::optional<ParallelAxis> ParallelAxisOf(SweepSpec::Axis axis);

// The analysis sharded over `width` GPUs along the sweep's dimension (the
// caller runs ShardAnalysis; ShardAtEachWidth).
using ShardAtWidth = std::function<absl::StatusOr<Analysis>(int width)>;

// One full sharded analysis per width along `axis` (kTensorParallel,
// kPipelineParallel or kExpertParallel): latency, throughput (batch /
// latency), per-GPU MFU, bound, weights per GPU and the collectives' time.
// Errors: an empty list, another axis, a sharding error (naming the axis
// and width, e.g. "--sweep ep=3: ...").
absl::StatusOr<SweepResult> SweepParallel(const ShardAtWidth& shard,
                                          SweepSpec::Axis axis,
                                          const std::vector<int64_t>& widths);

// Re-prices `base` (analyzed with `options`) on each device. With an
// explicit --precision (and no custom pricer) the counts are reused and only
// the roofline is re-applied; at model dtypes the peak choice depends on the
// device, so each device is analyzed with `analyze_on`.
absl::StatusOr<SweepResult> SweepHardware(const Analysis& base,
                                          const AnalyzeOptions& options,
                                          const std::vector<Hardware>& devices,
                                          const AnalyzeOnHardware& analyze_on,
                                          const SweepOptions& sweep_options);

// The per-layer roofline of Analyze() applied to `analysis`' layer costs on
// `hardware` at `peak_flops_per_s`, returning the summary figures of one
// sweep row. Exposed for tests (it must agree with Analyze()).
SweepPoint PricePoint(const Analysis& analysis, const Hardware& hardware,
                      double peak_flops_per_s, double dispatch_tax_s);

// The sweep as a table: one row per point (batch or device, latency,
// throughput, bound, MFU; whole-model columns when computed), then the
// point where the bound flips.
// Its table at most `max_width` columns wide (report::TextTable).
std::string FormatSweep(const SweepResult& result,
                        size_t max_width = report::kMaxTableWidth);

// {"axis", "bound_flip": {...} | null, "interpolated",
//  "points": [{"batch", "bound", "bytes", "flops", "hardware", "latency_s",
//              "mfu", "throughput_per_s", "whole_model": {...}}, ...],
//  "whole_model_bound_flip": {...} | null}; tp, pp and ep sweeps ("axis"
// "tp", "pp", "ep") add collective_s, fits_in_memory_per_gpu, gpus,
// speedup, weight_bytes_per_gpu and the width under the axis' name to each
// point and to the bound flip. Keys in alphabetical order.
nlohmann::ordered_json SweepJson(const SweepResult& result);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_SWEEP_H_
