// Linear growth: import + shape resolution + analysis of synthetic graphs of
// 10k and 100k nodes (bench/model_gen.h, BuildSyntheticGraph). The time per
// node at 100k must be within 1.5x of the time per node at 10k.
#include <cstdint>
#include <map>
#include <string>

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
constexpr double kTargetRatio = 1.5;

// Median seconds per node, by node count, filled as the benchmarks run.
std::map<int64_t, double>& SecondsPerNode() {
  static auto* m = new std::map<int64_t, double>();
  return *m;
}

void BM_SyntheticImportResolveAnalyze(benchmark::State& state) {
  const int64_t num_nodes = state.range(0);
  const std::string bytes = BuildSyntheticGraph(num_nodes).SerializeAsString();
  const std::string dir = MakeTempDir("ridgeline-scaling-bench");
  const std::string display = fmt::format("synthetic_{}.onnx", num_nodes);
  const engine::Hardware hw = BenchHardware();
  importers::ImportOptions options;
  options.batch = 1;
  Timer timer;
  for (auto _ : state) {
    timer.Start();
    absl::StatusOr<graph::Graph> g =
        importers::ImportOnnxBytes(bytes, display, dir, options);
    absl::StatusOr<engine::Analysis> a =
        g.ok() ? engine::Analyze(*g, hw, engine::AnalyzeOptions{})
               : absl::StatusOr<engine::Analysis>(g.status());
    timer.Stop();
    if (!a.ok()) {
      const std::string msg = fmt::format("{}", a.status().message());
      state.SkipWithError(msg.c_str());
      Record({.name = fmt::format("synthetic {}k nodes", num_nodes / 1000),
              .figure = "error: " + msg,
              .target = "linear"});
      return;
    }
    benchmark::DoNotOptimize(a->summary.latency_s);
  }
  const double per_node = timer.cpu.Median() / static_cast<double>(num_nodes);
  SecondsPerNode()[num_nodes] = per_node;
  state.counters["cpu_ms"] = timer.cpu.Median() * 1e3;
  state.counters["wall_ms"] = timer.wall.Median() * 1e3;
  state.counters["cpu_ns_per_node"] = per_node * 1e9;
  state.SetLabel("target: ns/node at 100k <= 1.5x ns/node at 10k");
  Record(
      {.name = fmt::format("synthetic {}k nodes", num_nodes / 1000),
       .figure = fmt::format("{:.1f} ms CPU = {:.0f} ns/node ({:.1f} ms wall)",
                             timer.cpu.Median() * 1e3, per_node * 1e9,
                             timer.wall.Median() * 1e3),
       .target = "(see ratio)",
       .met = true});
  auto small = SecondsPerNode().find(kSmall);
  auto large = SecondsPerNode().find(kLarge);
  if (small != SecondsPerNode().end() && large != SecondsPerNode().end()) {
    const double ratio = large->second / small->second;
    Record({.name = "ns/node ratio 100k / 10k",
            .figure = fmt::format("{:.2f}", ratio),
            .target = fmt::format("<= {:.1f}", kTargetRatio),
            .met = ratio <= kTargetRatio});
  }
}
BENCHMARK(BM_SyntheticImportResolveAnalyze)
    ->Arg(kSmall)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);
// About a second per iteration: a fixed count gives a median of 5.
BENCHMARK(BM_SyntheticImportResolveAnalyze)
    ->Arg(kLarge)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(5);

}  // namespace
}  // namespace ridgeline::bench

int main(int argc, char** argv) {
  return ridgeline::bench::RunBenchmarks(argc, argv);
}
