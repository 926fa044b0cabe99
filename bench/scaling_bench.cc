// Linear growth: import + shape resolution + analysis of synthetic graphs of
// 10k and 100k nodes (bench/model_gen.h, BuildSyntheticGraph). The time per
// node at 100k must be within 1.5x of the time per node at 10k.
//
// The two sizes are measured in alternating rounds (ten 10k runs, then one
// 100k run, which take about as long), and the ratio is the median of the
// per-round ratios. On a shared VM the machine's speed drifts by +-25% over
// seconds; measuring the sizes one after the other would put that drift into
// the ratio, while pairing them within a round cancels it.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/bench_util.h"
#include "bench/model_gen.h"
#include "benchmark/benchmark.h"
#include "engine/analysis.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "importers/onnx_importer.h"

namespace ridgeline::bench {
namespace {

constexpr int64_t kSmall = 10'000;
constexpr int64_t kLarge = 100'000;
constexpr int kSmallRunsPerRound = 10;
constexpr double kTargetRatio = 1.5;

// One size's serialized model and its per-phase CPU times.
struct Workload {
  explicit Workload(int64_t nodes)
      : num_nodes(nodes),
        bytes(BuildSyntheticGraph(nodes).SerializeAsString()),
        display(fmt::format("synthetic_{}.onnx", nodes)) {}

  int64_t num_nodes;
  std::string bytes;
  std::string display;
  Timer total, import, analyze;
};

// Imports and analyzes once; returns the error message, empty on success.
std::string RunOnce(Workload& w, const std::string& dir,
                    const engine::Hardware& hw) {
  importers::ImportOptions options;
  options.batch = 1;
  w.total.Start();
  w.import.Start();
  absl::StatusOr<graph::Graph> g =
      importers::ImportOnnxBytes(w.bytes, w.display, dir, options);
  w.import.Stop();
  w.analyze.Start();
  absl::StatusOr<engine::Analysis> a =
      g.ok() ? engine::Analyze(*g, hw, engine::AnalyzeOptions{})
             : absl::StatusOr<engine::Analysis>(g.status());
  w.analyze.Stop();
  w.total.Stop();
  if (!a.ok()) return fmt::format("{}", a.status().message());
  benchmark::DoNotOptimize(a->summary.latency_s);
  return "";
}

void RecordSize(const Workload& w) {
  const double per_node =
      w.total.cpu.Median() / static_cast<double>(w.num_nodes);
  Record({.name = fmt::format("synthetic {}k nodes", w.num_nodes / 1000),
          .figure = fmt::format(
              "{:.1f} ms CPU = {:.0f} ns/node (import {:.1f} + analyze "
              "{:.1f}; {:.1f} ms wall; median of {})",
              w.total.cpu.Median() * 1e3, per_node * 1e9,
              w.import.cpu.Median() * 1e3, w.analyze.cpu.Median() * 1e3,
              w.total.wall.Median() * 1e3, w.total.cpu.size()),
          .target = "(see ratio)",
          .met = true});
}

void BM_SyntheticScaling(benchmark::State& state) {
  Workload small(kSmall);
  Workload large(kLarge);
  const std::string dir = MakeTempDir("ridgeline-scaling-bench");
  const engine::Hardware hw = BenchHardware();
  // One untimed warm-up of each size (page cache, heap growth).
  for (Workload* w : {&small, &large}) {
    if (std::string error = RunOnce(*w, dir, hw); !error.empty()) {
      state.SkipWithError(error.c_str());
      Record({.name = "synthetic scaling", .figure = "error: " + error});
      return;
    }
    w->total = w->import = w->analyze = Timer();
  }
  Samples ratios;
  // Per round: the median of its ten 10k runs against its one 100k run, each
  // timed from import to the end of analysis (the graph's and analysis'
  // destruction afterwards is not timed, as in every figure here).
  for (auto _ : state) {
    Samples round;
    for (int i = 0; i < kSmallRunsPerRound; ++i) {
      RunOnce(small, dir, hw);
      round.Add(small.total.cpu.values().back());
    }
    RunOnce(large, dir, hw);
    const double small_per_node = round.Median() / static_cast<double>(kSmall);
    const double large_per_node =
        large.total.cpu.values().back() / static_cast<double>(kLarge);
    ratios.Add(large_per_node / small_per_node);
  }
  const double ratio = ratios.Median();
  state.counters["ratio"] = ratio;
  state.counters["ns_per_node_10k"] =
      small.total.cpu.Median() / static_cast<double>(kSmall) * 1e9;
  state.counters["ns_per_node_100k"] =
      large.total.cpu.Median() / static_cast<double>(kLarge) * 1e9;
  state.SetLabel("target: ns/node at 100k <= 1.5x ns/node at 10k");
  RecordSize(small);
  RecordSize(large);
  Record(
      {.name = "ns/node ratio 100k / 10k",
       .figure = fmt::format("{:.2f} (median of {} paired rounds; range "
                             "{:.2f}-{:.2f})",
                             ratio, ratios.size(), ratios.Min(), ratios.Max()),
       .target = fmt::format("<= {:.1f}", kTargetRatio),
       .met = ratio <= kTargetRatio});
}
// A round takes about a second (ten 10k runs + one 100k run).
BENCHMARK(BM_SyntheticScaling)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(9);

}  // namespace
}  // namespace ridgeline::bench

int main(int argc, char** argv) {
  return ridgeline::bench::RunBenchmarks(argc, argv);
}
