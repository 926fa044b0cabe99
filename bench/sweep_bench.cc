// A 1,000-point batch sweep (what `analyze --sweep batch=1:1000` does, through
// engine::SweepBatch) over the generated Llama-3.1-8B decoder
// (bench/model_gen.h, one decode step after 2047 cached tokens) must take
// under 100 ms, imports included: SweepBatch imports and analyzes the model at
// batch 1, 2 and 1000 and re-prices the other points.
//
// bench/zoo_sweep_bench.cc (the zoo's own benchmark) sweeps the zoo's models.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/bench_util.h"
#include "bench/model_gen.h"
#include "benchmark/benchmark.h"
#include "engine/analysis.h"
#include "engine/sweep.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "importers/onnx_importer.h"

namespace ridgeline::bench {
namespace {

constexpr double kTargetSeconds = 0.100;
constexpr int64_t kPoints = 1000;

struct SweepModel {
  std::string label;
  std::string bytes;  // serialized ModelProto
  // Binds every symbolic dim for a given batch.
  importers::ImportOptions (*options)(int64_t batch);
};

importers::ImportOptions LlamaOptions(int64_t batch) {
  importers::ImportOptions o;
  o.dims[kBatchDim] = batch;
  o.dims[kSequenceDim] = 1;  // one decode step
  o.dims[kPastDim] = 2047;
  o.dims[kTotalDim] = 2048;
  return o;
}

void BM_Sweep1000(benchmark::State& state, SweepModel (*make)()) {
  const SweepModel model = make();
  const std::string name =
      fmt::format("{} {}-point batch sweep", model.label, kPoints);
  const engine::Hardware hw = BenchHardware();
  const std::string dir = MakeTempDir("ridgeline-sweep-bench");
  engine::AnalyzeAtBatch at =
      [&](int64_t batch) -> absl::StatusOr<engine::Analysis> {
    absl::StatusOr<graph::Graph> g = importers::ImportOnnxBytes(
        model.bytes, model.label, dir, model.options(batch));
    if (!g.ok()) return g.status();
    engine::AnalyzeOptions options;
    options.batch = batch;
    return engine::Analyze(*g, hw, options);
  };
  std::vector<int64_t> batches;
  for (int64_t b = 1; b <= kPoints; ++b) batches.push_back(b);
  Timer timer;
  int analyses = 0;
  bool interpolated = false;
  for (auto _ : state) {
    timer.Start();
    absl::StatusOr<engine::SweepResult> r =
        engine::SweepBatch(at, batches, engine::SweepOptions{});
    timer.Stop();
    if (!r.ok()) {
      const std::string msg = fmt::format("error: {}", r.status().message());
      state.SkipWithError(msg.c_str());
      Record({.name = name, .figure = msg, .target = "< 100 ms"});
      return;
    }
    analyses = r->analyses;
    interpolated = r->interpolated;
    benchmark::DoNotOptimize(r->points.back().latency_s);
  }
  const double cpu_ms = timer.cpu.Median() * 1e3;
  state.counters["cpu_ms"] = cpu_ms;
  state.counters["wall_ms"] = timer.wall.Median() * 1e3;
  state.counters["analyses"] = analyses;
  state.SetLabel("target < 100 ms");
  Record({.name = name,
          .figure = fmt::format("{:.1f} ms CPU ({:.1f} wall), {} analyses{}",
                                cpu_ms, timer.wall.Median() * 1e3, analyses,
                                interpolated ? "" : ", NOT interpolated"),
          .target = "< 100 ms",
          .met = cpu_ms < kTargetSeconds * 1e3});
}

SweepModel Llama() {
  return {"llama3.1-8b decode",
          BuildLlamaDecoder(LlamaConfig{}).SerializeAsString(), &LlamaOptions};
}

BENCHMARK_CAPTURE(BM_Sweep1000, llama3_8b, &Llama)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

}  // namespace
}  // namespace ridgeline::bench

int main(int argc, char** argv) {
  return ridgeline::bench::RunBenchmarks(argc, argv);
}
