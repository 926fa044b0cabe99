#include "tools/calibrate/calibrate.h"

#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <thread>

#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "fmt/format.h"

namespace ridgeline::calibrate {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string ReadFile(const char* path) {
  std::ifstream in(path);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' ||
                        s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// The value of the first "key : value" line of /proc-style text.
std::optional<std::string_view> ProcValue(std::string_view text,
                                          std::string_view key) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    size_t colon = line.find(':');
    if (colon != std::string_view::npos && Trim(line.substr(0, colon)) == key) {
      return Trim(line.substr(colon + 1));
    }
    pos = end + 1;
  }
  return std::nullopt;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs `work(thread_index)` on `threads` threads once per pass, timing each
// pass from the release of all threads to the last one's finish (the
// threads stay alive between passes so that no thread start is timed).
class PassRunner {
 public:
  PassRunner(int threads, std::function<void(int)> work)
      : threads_(threads), work_(std::move(work)), sync_(threads + 1) {
    for (int t = 0; t < threads_; ++t) {
      workers_.emplace_back([this, t] {
        for (;;) {
          sync_.arrive_and_wait();  // start of a pass (or stop)
          if (stop_) return;
          work_(t);
          sync_.arrive_and_wait();  // end of the pass
        }
      });
    }
  }
  ~PassRunner() {
    stop_ = true;
    sync_.arrive_and_wait();
    for (std::thread& w : workers_) w.join();
  }

  // One pass; returns its wall time in seconds.
  double Run() {
    Clock::time_point start = Clock::now();
    sync_.arrive_and_wait();
    sync_.arrive_and_wait();
    return SecondsSince(start);
  }

 private:
  int threads_;
  std::function<void(int)> work_;
  std::barrier<> sync_;
  std::vector<std::thread> workers_;
  bool stop_ = false;  // written before the barrier that releases the workers
};

// Independent multiply-add chains on fp32 lanes. kChains floats are updated
// per iteration; enough independent chains hide the FMA latency (4 cycles x
// 2 pipes x 16 lanes for AVX-512 needs >= 128 floats).
template <int kChains, bool kFused>
[[gnu::always_inline]] inline float FmaLoop(int64_t iterations, float x,
                                            float y) {
  alignas(64) float acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = static_cast<float>(j) * 1e-3f;
  for (int64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < kChains; ++j) {
      if constexpr (kFused) {
        acc[j] = std::fma(acc[j], x, y);
      } else {
        acc[j] = acc[j] * x + y;  // two instructions, still 2 FLOPs
      }
    }
  }
  float sum = 0;
  for (int j = 0; j < kChains; ++j) sum += acc[j];
  return sum;
}

struct FmaKernel {
  float (*fn)(int64_t, float, float);
  int chains;  // floats per iteration
  const char* isa;
};

#if defined(__x86_64__) && defined(__GNUC__)
// Compiled for wider ISAs than the build's baseline and chosen at run time,
// so that a portable build (no -march=native) still measures the vector
// units that runtimes such as ONNX Runtime dispatch to.
constexpr int kAvx512Chains = 256;  // 16 zmm accumulators
constexpr int kAvx2Chains = 96;     // 12 ymm accumulators
constexpr int kSse2Chains = 48;     // 12 xmm accumulators
[[gnu::target("avx512f")]] float FmaAvx512(int64_t n, float x, float y) {
  return FmaLoop<kAvx512Chains, true>(n, x, y);
}
[[gnu::target("avx2,fma")]] float FmaAvx2(int64_t n, float x, float y) {
  return FmaLoop<kAvx2Chains, true>(n, x, y);
}
float FmaBaseline(int64_t n, float x, float y) {
  return FmaLoop<kSse2Chains, false>(n, x, y);  // x86-64 baseline has no FMA
}
FmaKernel BestFmaKernel() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    return {FmaAvx512, kAvx512Chains, "avx512f fma (16 fp32 lanes)"};
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return {FmaAvx2, kAvx2Chains, "avx2 fma (8 fp32 lanes)"};
  }
  return {FmaBaseline, kSse2Chains, "sse2 mul+add (4 fp32 lanes)"};
}
#else
constexpr int kPortableChains = 64;
float FmaPortable(int64_t n, float x, float y) {
  return FmaLoop<kPortableChains, true>(n, x, y);
}
FmaKernel BestFmaKernel() {
  return {FmaPortable, kPortableChains, "portable std::fma"};
}
#endif

// Keeps results observable so the loops are not optimized away.
volatile float g_sink = 0;
volatile double g_dsink = 0;

}  // namespace

std::string CpuModelFromCpuinfo(std::string_view cpuinfo) {
  for (std::string_view key :
       {"model name", "Model", "cpu model", "Hardware"}) {
    std::optional<std::string_view> v = ProcValue(cpuinfo, key);
    if (v && !v->empty()) return std::string(*v);
  }
  return "";
}

std::optional<double> MemTotalBytesFromMeminfo(std::string_view meminfo) {
  std::optional<std::string_view> v = ProcValue(meminfo, "MemTotal");
  if (!v) return std::nullopt;
  // "23456789 kB" (the kernel's kB are KiB).
  double kib = 0;
  size_t i = 0;
  bool digits = false;
  while (i < v->size() && (*v)[i] >= '0' && (*v)[i] <= '9') {
    kib = kib * 10 + ((*v)[i] - '0');
    ++i;
    digits = true;
  }
  if (!digits) return std::nullopt;
  std::string_view unit = Trim(v->substr(i));
  if (unit == "kB" || unit == "KiB") return kib * 1024;
  if (unit.empty()) return kib;
  return std::nullopt;
}

HostInfo ReadHostInfo() {
  HostInfo info;
  info.cpu_model = CpuModelFromCpuinfo(ReadFile("/proc/cpuinfo"));
  info.memory_bytes =
      MemTotalBytesFromMeminfo(ReadFile("/proc/meminfo")).value_or(0);
  if (info.memory_bytes <= 0) {
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_size > 0) {
      info.memory_bytes =
          static_cast<double>(pages) * static_cast<double>(page_size);
    }
  }
  info.hardware_threads =
      std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return info;
}

std::string FmaIsa() { return BestFmaKernel().isa; }

BandwidthResult MeasureTriadBandwidth(int threads, size_t array_bytes,
                                      double seconds) {
  constexpr int kMinPasses = 3;
  threads = std::max(1, threads);
  const size_t n = std::max<size_t>(array_bytes / sizeof(double), threads);
  // Not value-initialized: each thread first-touches its own slice.
  std::unique_ptr<double[]> a(new double[n]);
  std::unique_ptr<double[]> b(new double[n]);
  std::unique_ptr<double[]> c(new double[n]);
  const double scalar = 3.0;
  auto slice = [&](int t) {
    size_t begin = n * static_cast<size_t>(t) / static_cast<size_t>(threads);
    size_t end = n * static_cast<size_t>(t + 1) / static_cast<size_t>(threads);
    return std::make_pair(begin, end);
  };
  bool init = true;
  PassRunner runner(threads, [&](int t) {
    auto [begin, end] = slice(t);
    double* pa = a.get();
    const double* pb = b.get();
    const double* pc = c.get();
    if (init) {
      for (size_t i = begin; i < end; ++i) {
        a[i] = 0;
        b[i] = 1.0;
        c[i] = 2.0;
      }
      return;
    }
    for (size_t i = begin; i < end; ++i) pa[i] = pb[i] + scalar * pc[i];
  });
  runner.Run();  // first touch
  init = false;
  runner.Run();  // warm-up pass
  std::vector<double> rates;
  const double bytes = 3.0 * sizeof(double) * static_cast<double>(n);
  Clock::time_point start = Clock::now();
  while (static_cast<int>(rates.size()) < kMinPasses ||
         SecondsSince(start) < seconds) {
    rates.push_back(bytes / runner.Run());
  }
  g_dsink = a[n / 2];
  BandwidthResult r;
  r.threads = threads;
  r.passes = static_cast<int>(rates.size());
  r.bytes_per_s = *std::max_element(rates.begin(), rates.end());
  r.median_bytes_per_s = Median(rates);
  return r;
}

FlopsResult MeasureFmaFlops(int threads, double seconds) {
  constexpr int kMinRepetitions = 3;
  // Short repetitions, so that on a busy host some of them run without being
  // preempted (the best one is kept).
  constexpr double kTargetRepetitionS = 0.02;
  threads = std::max(1, threads);
  FmaKernel kernel = BestFmaKernel();
  const float x = 0.999999f, y = 1e-6f;
  // Size one repetition to about kTargetRepetitionS on one thread.
  int64_t iterations = 1 << 14;
  for (;;) {
    Clock::time_point t0 = Clock::now();
    g_sink = kernel.fn(iterations, x, y);
    double dt = SecondsSince(t0);
    if (dt >= kTargetRepetitionS / 4 || iterations > (int64_t{1} << 40)) {
      iterations = std::max<int64_t>(
          1, static_cast<int64_t>(static_cast<double>(iterations) *
                                  kTargetRepetitionS / std::max(dt, 1e-9)));
      break;
    }
    iterations *= 4;
  }
  std::vector<float> sums(static_cast<size_t>(threads));
  PassRunner runner(threads, [&](int t) {
    sums[static_cast<size_t>(t)] = kernel.fn(iterations, x, y);
  });
  runner.Run();  // warm-up (clock ramp-up)
  const double flops = 2.0 * kernel.chains * static_cast<double>(iterations) *
                       static_cast<double>(threads);
  std::vector<double> rates;
  Clock::time_point start = Clock::now();
  while (static_cast<int>(rates.size()) < kMinRepetitions ||
         SecondsSince(start) < seconds) {
    rates.push_back(flops / runner.Run());
  }
  g_sink = sums[0];
  FlopsResult r;
  r.threads = threads;
  r.isa = kernel.isa;
  r.repetitions = static_cast<int>(rates.size());
  r.flops_per_s = *std::max_element(rates.begin(), rates.end());
  return r;
}

Measurements MeasureHost(const CalibrateOptions& options) {
  Measurements m;
  m.hardware_threads =
      std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  m.load_average = std::string(Trim(ReadFile("/proc/loadavg")));
  const double quarter = std::max(0.0, options.seconds) / 4;
  m.flops_1 = MeasureFmaFlops(1, quarter);
  m.flops_all = MeasureFmaFlops(m.hardware_threads, quarter);
  m.bandwidth_1 = MeasureTriadBandwidth(1, options.array_bytes, quarter);
  m.bandwidth_all =
      MeasureTriadBandwidth(m.hardware_threads, options.array_bytes, quarter);
  return m;
}

engine::Hardware MakeHostHardware(const HostInfo& info, const Measurements& m,
                                  const CalibrateOptions& options,
                                  std::string_view date) {
  const bool single = options.entry_threads == 1;
  const FlopsResult& flops = single ? m.flops_1 : m.flops_all;
  const BandwidthResult& bw = single ? m.bandwidth_1 : m.bandwidth_all;
  engine::Hardware hw;
  hw.key = options.key;
  std::string model = info.cpu_model.empty() ? "unknown CPU" : info.cpu_model;
  hw.name = fmt::format("{} ({} thread{}, measured)", model, flops.threads,
                        flops.threads == 1 ? "" : "s");
  hw.peak_flops_per_s["fp32"] = flops.flops_per_s;
  hw.memory_bandwidth_bytes_per_s = bw.bytes_per_s;
  hw.memory_capacity_bytes = info.memory_bytes;
  hw.tdp_w = 0;
  hw.dispatch_tax_s = 0;
  hw.source = fmt::format(
      "measured by ridgeline calibrate on {}: fp32 peak = best-of-{} FMA loop "
      "({}) on {} thread(s): {:.2f} GFLOP/s (1 thread: {:.2f}, {} threads: "
      "{:.2f}); bandwidth = best-of-{} STREAM triad over 3 x {} MiB, 24 bytes "
      "per element (STREAM convention) on {} thread(s): {:.2f} GB/s (1 thread: "
      "{:.2f}, {} threads: {:.2f}); capacity = /proc/meminfo MemTotal; TDP "
      "not measured (0); dispatch tax not measured (0: a runtime's "
      "per-inference overhead is the runtime's, set --dispatch-tax-us); load "
      "average at start: {}",
      date, flops.repetitions, flops.isa, flops.threads,
      flops.flops_per_s / 1e9, m.flops_1.flops_per_s / 1e9, m.flops_all.threads,
      m.flops_all.flops_per_s / 1e9, bw.passes, options.array_bytes >> 20,
      bw.threads, bw.bytes_per_s / 1e9, m.bandwidth_1.bytes_per_s / 1e9,
      m.bandwidth_all.threads, m.bandwidth_all.bytes_per_s / 1e9,
      m.load_average.empty() ? "unknown" : m.load_average);
  return hw;
}

std::string FormatMeasurements(const HostInfo& info, const Measurements& m) {
  namespace report = engine::report;
  report::TextTable table;
  table.headers = {"measurement", "threads", "best",
                   "median",      "runs",    "kernel"};
  table.right_align = {false, true, true, true, true, false};
  for (const FlopsResult* f : {&m.flops_1, &m.flops_all}) {
    table.rows.push_back({"fp32 FMA peak", std::to_string(f->threads),
                          report::FormatSi(f->flops_per_s, "FLOP/s"), "-",
                          std::to_string(f->repetitions), f->isa});
  }
  for (const BandwidthResult* b : {&m.bandwidth_1, &m.bandwidth_all}) {
    table.rows.push_back({"triad bandwidth", std::to_string(b->threads),
                          report::FormatSi(b->bytes_per_s, "B/s"),
                          report::FormatSi(b->median_bytes_per_s, "B/s"),
                          std::to_string(b->passes), "STREAM triad"});
  }
  report::Items notes = {
      {"conventions",
       "best and median of the runs; 1 FMA = 2 FLOPs; triad bytes as STREAM "
       "counts them (24 per element); decimal prefixes (1 GB = 1e9 B)"}};
  if (!m.load_average.empty()) {
    notes.emplace_back("load average at start", m.load_average);
  }
  return report::RenderItems(
             {{"host", fmt::format("{} ({} hardware threads, {} memory)",
                                   info.cpu_model.empty() ? "unknown CPU"
                                                          : info.cpu_model,
                                   info.hardware_threads,
                                   report::FormatSi(info.memory_bytes, "B"))}},
             "") +
         report::RenderText(table) + report::RenderItems(notes, "");
}

std::string TodayUtc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday);
}

}  // namespace ridgeline::calibrate
