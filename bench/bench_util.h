// Shared pieces of the benchmark programs: the device they analyze for, a
// per-iteration timer with medians, target checks printed after the Google
// Benchmark table, and helpers for temporary files and child processes.
#ifndef RIDGELINE_BENCH_BENCH_UTIL_H_
#define RIDGELINE_BENCH_BENCH_UTIL_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/hardware.h"

namespace ridgeline::bench {

// An H100-SXM-like device built in code, so benchmarks need no zoo data.
// Numbers from the NVIDIA H100 Tensor Core GPU datasheet (SXM5, dense):
// FP32 67 TFLOP/s, TF32 495, FP16/BF16 989, FP8 1979, INT8 1979 TOP/s,
// 3.35 TB/s HBM3, 80 GB.
engine::Hardware BenchHardware();

// Samples in seconds (or ratios of two timings); the median is what targets
// are checked on (robust to the odd slow iteration).
class Samples {
 public:
  void Add(double seconds) { seconds_.push_back(seconds); }
  double Median() const;
  double Min() const;
  double Max() const;
  size_t size() const { return seconds_.size(); }
  const std::vector<double>& values() const { return seconds_; }

 private:
  std::vector<double> seconds_;
};

// Seconds since `start` on the steady clock.
inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// CPU time (user + system) of the calling thread, in seconds. The code under
// test is single-threaded, so on an idle machine this equals its wall-clock
// time; on a shared machine (other builds running) it is the better estimate
// of that, and targets are checked on it. Both are printed.
double ThreadCpuSeconds();

// Wall-clock and thread-CPU samples of the same iterations.
class Timer {
 public:
  void Start() {
    wall_start_ = std::chrono::steady_clock::now();
    cpu_start_ = ThreadCpuSeconds();
  }
  void Stop() {
    wall.Add(SecondsSince(wall_start_));
    cpu.Add(ThreadCpuSeconds() - cpu_start_);
  }
  Samples wall;
  Samples cpu;

 private:
  std::chrono::steady_clock::time_point wall_start_;
  double cpu_start_ = 0;
};

// One checked figure: printed as "name: figure (target ...) PASS|MISS" after
// all benchmarks ran, and appended to the file named by
// $RIDGELINE_BENCH_SUMMARY when set. Recording a name again replaces it (the
// benchmark function runs several times; the last run is the full one).
struct TargetResult {
  std::string name;
  std::string figure;  // e.g. "12.3 ms (median of 40)"
  std::string target;  // e.g. "< 50 ms"
  bool met = false;
  bool skipped = false;  // input unavailable; `figure` says why
};
void Record(const TargetResult& result);

// The main of every benchmark program: runs the registered benchmarks, then
// prints the target results. Returns the process exit code (0 even when a
// target is missed: missing a target is reported, not a failure).
int RunBenchmarks(int argc, char** argv);

// A fresh directory under $TMPDIR (or /tmp), removed when RunBenchmarks
// returns.
std::string MakeTempDir(const std::string& stem);

// Writes `bytes` to `path`; aborts the program on failure.
void WriteFileOrDie(const std::string& path, const std::string& bytes);

// Runs this program again as `<this executable> args...`, waits for it and
// returns its standard output; *exit_code gets its exit status (-1 if it
// could not be started or did not exit normally). A fresh process is the only
// clean way to measure a peak RSS: a forked child inherits the parent's
// high-water mark, and getrusage(RUSAGE_CHILDREN) reports it too.
std::string RunSelf(const std::vector<std::string>& args, int* exit_code);

// VmHWM (peak resident set) and VmRSS of this process in bytes, from
// /proc/self/status; -1 if unavailable.
int64_t PeakRssBytes();
int64_t CurrentRssBytes();

}  // namespace ridgeline::bench

#endif  // RIDGELINE_BENCH_BENCH_UTIL_H_
