#include "bench/bench_util.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "fmt/format.h"

namespace ridgeline::bench {
namespace {

std::vector<TargetResult>& Results() {
  static auto* results = new std::vector<TargetResult>();
  return *results;
}

// Directories made by MakeTempDir, removed when RunBenchmarks returns.
std::vector<std::string>& TempDirs() {
  static auto* dirs = new std::vector<std::string>();
  return *dirs;
}

// Reads "<key>:   1234 kB" from /proc/self/status.
int64_t StatusKb(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      return std::strtoll(line.c_str() + key.size() + 1, nullptr, 10) * 1024;
    }
  }
  return -1;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

engine::Hardware BenchHardware() {
  engine::Hardware hw;
  hw.key = "bench-h100-sxm";
  hw.name = "benchmark device (H100 SXM datasheet numbers)";
  hw.peak_flops_per_s = {{"fp32", 67e12},  {"tf32", 495e12}, {"fp16", 989e12},
                         {"bf16", 989e12}, {"fp8", 1979e12}, {"int8", 1979e12}};
  hw.memory_bandwidth_bytes_per_s = 3.35e12;
  hw.memory_capacity_bytes = 80e9;
  hw.tdp_w = 700;
  hw.dispatch_tax_s = 5e-6;
  hw.source = "NVIDIA H100 Tensor Core GPU datasheet (built in code by bench/)";
  return hw;
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

double Samples::Median() const {
  if (seconds_.empty()) return 0;
  std::vector<double> v = seconds_;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

double Samples::Min() const {
  if (seconds_.empty()) return 0;
  return *std::min_element(seconds_.begin(), seconds_.end());
}

double Samples::Max() const {
  if (seconds_.empty()) return 0;
  return *std::max_element(seconds_.begin(), seconds_.end());
}

void Record(const TargetResult& result) {
  for (TargetResult& r : Results()) {
    if (r.name == result.name) {
      r = result;
      return;
    }
  }
  Results().push_back(result);
}

int RunBenchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const std::string& dir : TempDirs()) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  if (Results().empty()) return 0;
  fmt::print(
      "\nTargets (medians; checked on thread CPU time, which equals wall time "
      "on an idle machine):\n");
  std::string rows;
  for (const TargetResult& r : Results()) {
    const char* verdict = r.skipped ? "SKIPPED" : r.met ? "PASS" : "MISS";
    fmt::print("  {:<44} {:<40} target {:<16} {}\n", r.name, r.figure, r.target,
               verdict);
    rows += fmt::format("| {} | {} | {} | {} |\n", r.name, r.figure, r.target,
                        verdict);
  }
  if (const char* path = std::getenv("RIDGELINE_BENCH_SUMMARY")) {
    std::ofstream out(path, std::ios::app);
    out << rows;
  }
  return 0;
}

std::string MakeTempDir(const std::string& stem) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      fmt::format("{}/{}-XXXXXX", tmp != nullptr ? tmp : "/tmp", stem);
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    fmt::print(stderr, "cannot create a directory from {}\n", pattern);
    std::abort();
  }
  TempDirs().push_back(buf.data());
  return std::string(buf.data());
}

void WriteFileOrDie(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    fmt::print(stderr, "cannot write {}\n", path);
    std::abort();
  }
}

std::string RunSelf(const std::vector<std::string>& args, int* exit_code) {
  *exit_code = -1;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return "";
  exe[n] = '\0';
  std::string command = ShellQuote(exe);
  for (const std::string& a : args) {
    command += ' ';
    command += ShellQuote(a);
  }
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, got);
  int status = pclose(pipe);
  if (status != -1 && WIFEXITED(status)) *exit_code = WEXITSTATUS(status);
  return out;
}

int64_t PeakRssBytes() { return StatusKb("VmHWM"); }
int64_t CurrentRssBytes() { return StatusKb("VmRSS"); }

}  // namespace ridgeline::bench
