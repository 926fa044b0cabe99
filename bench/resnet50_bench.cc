// torchvision ResNet-50 with its ~100 MB of embedded weights: import +
// shape resolution + analysis must take at most 2x the time it takes just to
// read() the whole file from the page cache into a fresh buffer.
//
// The model is $RIDGELINE_RESNET50 when set; otherwise
// <build>/bench_data/resnet50.onnx, exported on first use with
//   /usr/bin/python3 tools/export_torchvision.py <build>/bench_data resnet50
// when Debian's python3-torch and python3-torchvision are installed. Without
// them the benchmarks are skipped with a message.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "engine/analysis.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "importers/onnx_importer.h"

namespace ridgeline::bench {
namespace {

constexpr double kTargetRatio = 2.0;
constexpr char kReadName[] = "resnet50 read() whole file";
constexpr char kAnalyzeName[] = "resnet50 import+resolve+analyze";
constexpr char kRatioName[] = "resnet50 analyze / read";

// The model's path, or nullopt with the reason in *why_not.
std::optional<std::string> ResNetPath(std::string* why_not) {
  static std::string reason;
  static const std::optional<std::string> path =
      []() -> std::optional<std::string> {
    if (const char* env = std::getenv("RIDGELINE_RESNET50")) {
      if (std::filesystem::exists(env)) return std::string(env);
      reason = fmt::format("RIDGELINE_RESNET50={} does not exist", env);
      return std::nullopt;
    }
    const std::string dir = std::string(RIDGELINE_BINARY_DIR) + "/bench_data";
    const std::string file = dir + "/resnet50.onnx";
    if (std::filesystem::exists(file)) return file;
    if (std::system("/usr/bin/python3 -c 'import torch, torchvision' "
                    ">/dev/null 2>&1") != 0) {
      reason =
          "skipped: /usr/bin/python3 has no torch/torchvision (apt install "
          "python3-torch python3-torchvision) and RIDGELINE_RESNET50 is unset";
      return std::nullopt;
    }
    fmt::print(stderr, "exporting torchvision resnet50 to {} ...\n", file);
    const std::string command = fmt::format(
        "/usr/bin/python3 '{}/tools/export_torchvision.py' '{}' resnet50 "
        ">'{}/export.log' 2>&1",
        RIDGELINE_SOURCE_DIR, dir, std::string(RIDGELINE_BINARY_DIR));
    std::filesystem::create_directories(dir);
    if (std::system(command.c_str()) != 0 || !std::filesystem::exists(file)) {
      reason = fmt::format("skipped: export failed, see {}/export.log",
                           RIDGELINE_BINARY_DIR);
      return std::nullopt;
    }
    return file;
  }();
  *why_not = reason;
  return path;
}

// Reads the whole file into a newly allocated buffer, as a program that does
// nothing else would. Returns the number of bytes read.
int64_t ReadWholeFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return -1;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  std::unique_ptr<char[]> buf(new char[size]);
  size_t done = 0;
  while (done < size) {
    ssize_t n = read(fd, buf.get() + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
  benchmark::DoNotOptimize(buf.get());
  return static_cast<int64_t>(done);
}

std::optional<double>& ReadMedian() {
  static std::optional<double> median;
  return median;
}

void BM_ResNet50_ReadFile(benchmark::State& state) {
  std::string why_not;
  std::optional<std::string> path = ResNetPath(&why_not);
  if (!path.has_value()) {
    state.SkipWithError(why_not.c_str());
    Record({.name = kReadName, .figure = why_not, .skipped = true});
    return;
  }
  const int64_t bytes = ReadWholeFile(*path);  // warms the page cache
  Timer timer;
  for (auto _ : state) {
    timer.Start();
    benchmark::DoNotOptimize(ReadWholeFile(*path));
    timer.Stop();
  }
  ReadMedian() = timer.cpu.Median();
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["cpu_ms"] = timer.cpu.Median() * 1e3;
  state.counters["wall_ms"] = timer.wall.Median() * 1e3;
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
  state.SetLabel("baseline for the 2x target");
  Record({.name = kReadName,
          .figure = fmt::format("{:.1f} ms CPU ({:.1f} wall) for {:.1f} MB",
                                timer.cpu.Median() * 1e3,
                                timer.wall.Median() * 1e3,
                                static_cast<double>(bytes) / 1e6),
          .target = "(baseline)", .met = true});
}
BENCHMARK(BM_ResNet50_ReadFile)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

void BM_ResNet50_ImportResolveAnalyze(benchmark::State& state) {
  std::string why_not;
  std::optional<std::string> path = ResNetPath(&why_not);
  if (!path.has_value()) {
    state.SkipWithError(why_not.c_str());
    Record({.name = kAnalyzeName, .figure = why_not, .skipped = true});
    return;
  }
  ReadWholeFile(*path);  // warms the page cache
  const engine::Hardware hw = BenchHardware();
  Timer total, import;
  for (auto _ : state) {
    total.Start();
    import.Start();
    absl::StatusOr<graph::Graph> g =
        importers::ImportOnnxFile(*path, importers::ImportOptions{});
    import.Stop();
    absl::StatusOr<engine::Analysis> a =
        g.ok() ? engine::Analyze(*g, hw, engine::AnalyzeOptions{})
               : absl::StatusOr<engine::Analysis>(g.status());
    total.Stop();
    if (!a.ok()) {
      const std::string msg = fmt::format("{}", a.status().message());
      state.SkipWithError(msg.c_str());
      Record({.name = kAnalyzeName, .figure = "error: " + msg,
              .target = "<= 2x read"});
      return;
    }
    benchmark::DoNotOptimize(a->summary.latency_s);
  }
  state.counters["cpu_ms"] = total.cpu.Median() * 1e3;
  state.counters["wall_ms"] = total.wall.Median() * 1e3;
  state.counters["import_cpu_ms"] = import.cpu.Median() * 1e3;
  state.SetLabel("target <= 2x BM_ResNet50_ReadFile");
  Record({.name = kAnalyzeName,
          .figure = fmt::format("{:.1f} ms CPU (import {:.1f}), {:.1f} wall",
                                total.cpu.Median() * 1e3,
                                import.cpu.Median() * 1e3,
                                total.wall.Median() * 1e3),
          .target = "(see ratio)", .met = true});
  if (ReadMedian().has_value()) {
    const double ratio = total.cpu.Median() / *ReadMedian();
    Record({.name = kRatioName, .figure = fmt::format("{:.2f}", ratio),
            .target = fmt::format("<= {:.1f}", kTargetRatio),
            .met = ratio <= kTargetRatio});
  }
}
BENCHMARK(BM_ResNet50_ImportResolveAnalyze)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

}  // namespace
}  // namespace ridgeline::bench

int main(int argc, char** argv) {
  return ridgeline::bench::RunBenchmarks(argc, argv);
}
