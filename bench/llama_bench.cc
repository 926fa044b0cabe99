// Llama-3.1-8B-sized decoder (bench/model_gen.h), weights as external data in
// a file that does not exist: import + shape resolution + analysis must take
// under 50 ms, and the whole process must peak under 100 MB of resident
// memory (it never reads the 16 GB of weights).
//
//   build/bench/llama_bench                 # both benchmarks
//   build/bench/llama_bench --peak-rss-child MODEL.onnx   # internal
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/status.h"
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
  Timer total, import, analyze;
  int64_t nodes = 0;
  int64_t unresolved = 0;
};

// Import (read, parse, convert, resolve shapes) and analyze once.
absl::Status ImportAndAnalyze(const std::string& path, Timings* t) {
  static const engine::Hardware* hw = new engine::Hardware(BenchHardware());
  t->total.Start();
  t->import.Start();
  absl::StatusOr<graph::Graph> g = importers::ImportOnnxFile(path, Options());
  t->import.Stop();
  if (!g.ok()) return g.status();
  t->nodes = static_cast<int64_t>(g->nodes().size());
  t->unresolved = static_cast<int64_t>(g->unresolved.size());
  t->analyze.Start();
  absl::StatusOr<engine::Analysis> a =
      engine::Analyze(*g, *hw, engine::AnalyzeOptions{});
  t->analyze.Stop();
  t->total.Stop();
  if (!a.ok()) return a.status();
  benchmark::DoNotOptimize(a->summary.latency_s);
  return absl::OkStatus();
}

void BM_Llama3_8B_ImportResolveAnalyze(benchmark::State& state) {
  const std::string& path = ModelPath();
  Timings t;
  for (auto _ : state) {
    absl::Status s = ImportAndAnalyze(path, &t);
    if (!s.ok()) {
      const std::string msg = fmt::format("{}", s.message());
      state.SkipWithError(msg.c_str());
      Record({.name = "llama3.1-8b import+resolve+analyze",
              .figure = "error: " + msg,
              .target = "< 50 ms"});
      return;
    }
  }
  const double cpu_ms = t.total.cpu.Median() * 1e3;
  state.counters["cpu_ms"] = cpu_ms;
  state.counters["wall_ms"] = t.total.wall.Median() * 1e3;
  state.counters["import_cpu_ms"] = t.import.cpu.Median() * 1e3;
  state.counters["analyze_cpu_ms"] = t.analyze.cpu.Median() * 1e3;
  state.counters["nodes"] = static_cast<double>(t.nodes);
  state.counters["unresolved"] = static_cast<double>(t.unresolved);
  state.SetLabel("target < 50 ms");
  Record({.name = "llama3.1-8b import+resolve+analyze",
          .figure = fmt::format(
              "{:.1f} ms CPU (import {:.1f} + analyze {:.1f}), {:.1f} ms wall; "
              "{} nodes",
              cpu_ms, t.import.cpu.Median() * 1e3, t.analyze.cpu.Median() * 1e3,
              t.total.wall.Median() * 1e3, t.nodes),
          .target = "< 50 ms",
          .met = cpu_ms < kTargetSeconds * 1e3});
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
    Record({.name = "llama3.1-8b peak RSS",
            .figure = error,
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
  Timings t;
  if (absl::Status s = ImportAndAnalyze(path, &t); !s.ok()) {
    fmt::print("{}\n", s.message());
    return 2;
  }
  fmt::print("peak_rss_bytes={} baseline_rss_bytes={}\n", PeakRssBytes(),
             baseline);
  return 0;
}

}  // namespace
}  // namespace ridgeline::bench

int main(int argc, char** argv) {
  if (argc == 3 &&
      std::string_view(argv[1]) == ridgeline::bench::kPeakRssChildFlag) {
    return ridgeline::bench::PeakRssChild(argv[2]);
  }
  return ridgeline::bench::RunBenchmarks(argc, argv);
}
