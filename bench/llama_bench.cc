// Llama-3.1-8B-sized decoder (bench/model_gen.h), weights as external data in
// a file that does not exist: import + shape resolution + analysis must take
// under 50 ms, and the whole process must peak under 100 MB of resident
// memory (it never reads the 16 GB of weights).
//
//   build/bench/llama_bench                 # both benchmarks
//   build/bench/llama_bench --peak-rss-child MODEL.onnx   # internal
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

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

constexpr double kTargetSeconds = 0.050;
constexpr double kTargetPeakRssBytes = 100e6;
constexpr char kPeakRssChildFlag[] = "--peak-rss-child";

// The generated model, written once to a temporary directory (without its
// external data file).
const std::string& ModelPath() {
  static const std::string* path = [] {
    std::string dir = MakeTempDir("ridgeline-llama-bench");
    auto* p = new std::string(dir + "/llama3_8b.onnx");
    WriteFileOrDie(*p, BuildLlamaDecoder(LlamaConfig{}).SerializeAsString());
    return p;
  }();
  return *path;
}

// A decode step: 128 new tokens after 1920 cached ones, batch 1.
importers::ImportOptions Options() {
  importers::ImportOptions options;
  options.dims[kBatchDim] = 1;
  options.dims[kSequenceDim] = 128;
  options.dims[kPastDim] = 1920;
  options.dims[kTotalDim] = 2048;
  return options;
}

struct Timings {
  double import_s = 0;
  double analyze_s = 0;
  int64_t nodes = 0;
  int64_t unresolved = 0;
  double model_flops = 0;
};

// Import (read, parse, convert, resolve shapes) and analyze once.
absl::StatusOr<Timings> ImportAndAnalyze(const std::string& path) {
  static const engine::Hardware* hw = new engine::Hardware(BenchHardware());
  Timings t;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<graph::Graph> g = importers::ImportOnnxFile(path, Options());
  t.import_s = SecondsSince(start);
  if (!g.ok()) return g.status();
  t.nodes = static_cast<int64_t>(g->nodes().size());
  t.unresolved = static_cast<int64_t>(g->unresolved.size());
  start = std::chrono::steady_clock::now();
  absl::StatusOr<engine::Analysis> a =
      engine::Analyze(*g, *hw, engine::AnalyzeOptions{});
  t.analyze_s = SecondsSince(start);
  if (!a.ok()) return a.status();
  t.model_flops = a->summary.flops;
  benchmark::DoNotOptimize(a->summary.latency_s);
  return t;
}

void BM_Llama3_8B_ImportResolveAnalyze(benchmark::State& state) {
  const std::string& path = ModelPath();
  Samples total, import, analyze;
  Timings last;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<Timings> t = ImportAndAnalyze(path);
    total.Add(SecondsSince(start));
    if (!t.ok()) {
      const std::string msg = fmt::format("{}", t.status().message());
      state.SkipWithError(msg.c_str());
      Record({.name = "llama3.1-8b import+resolve+analyze",
              .figure = "error: " + msg,
              .target = "< 50 ms"});
      return;
    }
    import.Add(t->import_s);
    analyze.Add(t->analyze_s);
    last = *t;
  }
  state.counters["median_ms"] = total.Median() * 1e3;
  state.counters["import_ms"] = import.Median() * 1e3;
  state.counters["analyze_ms"] = analyze.Median() * 1e3;
  state.counters["nodes"] = static_cast<double>(last.nodes);
  state.counters["unresolved"] = static_cast<double>(last.unresolved);
  state.SetLabel("target < 50 ms");
  Record({.name = "llama3.1-8b import+resolve+analyze",
          .figure = fmt::format(
              "{:.1f} ms (import {:.1f} + analyze {:.1f}; {} nodes)",
              total.Median() * 1e3, import.Median() * 1e3,
              analyze.Median() * 1e3, last.nodes),
          .target = "< 50 ms",
          .met = total.Median() < kTargetSeconds});
}
BENCHMARK(BM_Llama3_8B_ImportResolveAnalyze)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

// Peak resident memory of a fresh process that imports and analyzes the model
// once (VmHWM read by that process; includes the program and its libraries).
void BM_Llama3_8B_PeakRss(benchmark::State& state) {
  const std::string& path = ModelPath();
  int64_t peak = -1, baseline = -1;
  std::string error;
  for (auto _ : state) {
    int code = -1;
    std::string out = RunSelf({kPeakRssChildFlag, path}, &code);
    if (code != 0 ||
        std::sscanf(out.c_str(), "peak_rss_bytes=%ld baseline_rss_bytes=%ld",
                    &peak, &baseline) != 2) {
      error = fmt::format("child failed (exit {}): {}", code, out);
    }
  }
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    Record({.name = "llama3.1-8b peak RSS", .figure = error,
            .target = "< 100 MB"});
    return;
  }
  state.counters["peak_rss_MB"] = static_cast<double>(peak) / 1e6;
  state.counters["before_import_MB"] = static_cast<double>(baseline) / 1e6;
  state.SetLabel("target peak < 100 MB");
  Record({.name = "llama3.1-8b peak RSS",
          .figure = fmt::format("{:.1f} MB ({:.1f} MB before import)",
                                static_cast<double>(peak) / 1e6,
                                static_cast<double>(baseline) / 1e6),
          .target = "< 100 MB",
          .met = static_cast<double>(peak) < kTargetPeakRssBytes});
}
BENCHMARK(BM_Llama3_8B_PeakRss)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

// The child of BM_Llama3_8B_PeakRss.
int PeakRssChild(const std::string& path) {
  const int64_t baseline = PeakRssBytes();
  absl::StatusOr<Timings> t = ImportAndAnalyze(path);
  if (!t.ok()) {
    fmt::print("{}\n", t.status().message());
    return 2;
  }
  fmt::print("peak_rss_bytes={} baseline_rss_bytes={}\n", PeakRssBytes(),
             baseline);
  return 0;
}

}  // namespace
}  // namespace ridgeline::bench

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) ==
                       ridgeline::bench::kPeakRssChildFlag) {
    return ridgeline::bench::PeakRssChild(argv[2]);
  }
  return ridgeline::bench::RunBenchmarks(argc, argv);
}
