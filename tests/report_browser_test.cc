// The HTML report in a real browser: Debian's headless Chromium loads a
// report from a file:// URL. The page's own test hook (#selftest=..., see
// engine/report/html.h) clicks column headers and writes the resulting row
// order into the DOM, which --dump-dom prints; a second run takes a
// screenshot. Every Chromium run is bounded by a timeout and its whole
// process group is killed afterwards. Only file:// URLs are loaded; DNS is
// mapped to nothing, so no network address can be reached.
//
// Skipped (with a message) where /usr/bin/chromium is absent; install it with
// `apt-get install -y chromium chromium-driver`.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/analysis.h"
#include "engine/report/html.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine::report {
namespace {

constexpr char kDefaultChromium[] = "/usr/bin/chromium";
// Generous: a cold start of Chromium takes 1-3 s on the CI machine.
constexpr int kTimeoutSeconds = 90;

std::string ChromiumPath() {
  const char* env = std::getenv("RIDGELINE_CHROMIUM");
  return env != nullptr && *env != '\0' ? env : kDefaultChromium;
}

bool IsExecutable(const std::string& path) {
  return ::access(path.c_str(), X_OK) == 0;
}

struct RunResult {
  bool timed_out = false;
  int exit_code = -1;  // -1: killed by a signal or not started
  std::string stdout_text;
};

// Runs `argv` with `env` in its own process group, stdout captured, stderr to
// `stderr_path`; kills the whole group after `timeout_seconds` or once the
// main process has exited (Chromium's helpers must not outlive the test).
RunResult RunBounded(const std::vector<std::string>& argv,
                     const std::vector<std::string>& env,
                     const std::string& stderr_path, int timeout_seconds) {
  RunResult result;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return result;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return result;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    const int err = ::open(stderr_path.c_str(),
                           O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (err >= 0) ::dup2(err, STDERR_FILENO);
    const int null_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_in >= 0) ::dup2(null_in, STDIN_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<char*> envp;
    for (const std::string& e : env)
      envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, in case the parent wins the race
  ::close(pipe_fds[1]);

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(timeout_seconds);
  bool exited = false;
  int status = 0;
  bool eof = false;
  auto exited_at = Clock::time_point::max();
  char buffer[65536];
  while (true) {
    if (!exited && ::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      exited_at = Clock::now();
    }
    // Done: output closed and main process gone, or its helpers still hold
    // the pipe half a second after it exited.
    if (exited &&
        (eof || Clock::now() - exited_at > std::chrono::milliseconds(500))) {
      break;
    }
    if (Clock::now() > deadline) {
      result.timed_out = true;
      break;
    }
    if (eof) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    pollfd pfd{.fd = pipe_fds[0], .events = POLLIN, .revents = 0};
    if (::poll(&pfd, 1, 100) > 0) {
      const ssize_t n = ::read(pipe_fds[0], buffer, sizeof(buffer));
      if (n > 0) {
        result.stdout_text.append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        eof = true;
      }
    }
  }
  ::close(pipe_fds[0]);
  // Kill whatever is left of the browser's process group, then reap.
  ::kill(-pid, SIGKILL);
  if (!exited) ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Tail(const std::string& text, size_t n) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

// The text inside <pre id="ID" ...>...</pre> of a serialized DOM, or "" when
// there is no such element.
std::string PreText(const std::string& dom, const std::string& id) {
  const size_t tag = dom.find("<pre id=\"" + id + "\"");
  if (tag == std::string::npos) return "";
  const size_t open_end = dom.find('>', tag);
  if (open_end == std::string::npos) return "";
  const size_t close = dom.find("</pre>", open_end);
  if (close == std::string::npos) return "";
  return dom.substr(open_end + 1, close - open_end - 1);
}

// Undoes the escaping of text nodes in Chromium's DOM serialization.
std::string UnescapeText(std::string s) {
  const std::pair<const char*, const char*> kEntities[] = {
      {"&lt;", "<"},
      {"&gt;", ">"},
      {"&quot;", "\""},
      {"&nbsp;", "\xC2\xA0"},
      {"&amp;", "&"}};  // &amp; last
  for (const auto& [from, to] : kEntities) {
    for (size_t p; (p = s.find(from)) != std::string::npos;) {
      s.replace(p, std::strlen(from), to);
    }
  }
  return s;
}

LayerResult Layer(int node, std::string name, std::string op, double latency_us,
                  Bound bound) {
  LayerResult l;
  l.node = node;
  l.name = std::move(name);
  l.op_type = std::move(op);
  l.latency_s = latency_us * 1e-6;
  l.t_overhead_s = 10e-6;
  l.t_memory_s = l.latency_s - l.t_overhead_s;
  l.bytes = l.t_memory_s * 1e12;
  l.flops = l.bytes * (bound == Bound::kCompute ? 200 : 2);
  l.intensity = l.flops / l.bytes;
  l.bound = bound;
  return l;
}

// 8 timed layers and 2 views, in topological order. Latencies (us) are
// chosen distinct so every sort order is unique.
Analysis BrowserAnalysis() {
  Analysis a;
  a.model = "browser-net";
  a.hardware.key = "toy";
  a.hardware.name = "Toy GPU";
  a.assumptions.precision = "model dtypes";
  a.assumptions.peak_precision = "fp16";
  a.assumptions.peak_flops_per_s = 1e14;
  a.assumptions.memory_bandwidth_bytes_per_s = 1e12;
  a.assumptions.compute_efficiency = 0.5;
  a.assumptions.memory_efficiency = 1;
  a.assumptions.per_layer_tax_s = 10e-6;
  int node = 0;
  a.layers = {
      Layer(node++, "stem/conv", "Conv", 120, Bound::kCompute),
      Layer(node++, "block<1>/conv&bn", "Conv", 80, Bound::kCompute),
      Layer(node++, "block1/relu", "Relu", 15, Bound::kMemory),
      Layer(node++, "block2/conv", "Conv", 200, Bound::kCompute),
      Layer(node++, "block2/add", "Add", 12, Bound::kMemory),
      Layer(node++, "head/pool", "GlobalAveragePool", 30, Bound::kMemory),
      Layer(node++, "flatten", "Flatten", 0, Bound::kNone),
      Layer(node++, "head/fc", "Gemm", 45, Bound::kMemory),
      Layer(node++, "reshape", "Reshape", 0, Bound::kNone),
      Layer(node++, "head/softmax", "Softmax", 11, Bound::kMemory),
  };
  for (LayerResult& l : a.layers) {
    if (l.op_type == "Flatten" || l.op_type == "Reshape") {
      l = LayerResult{.node = l.node, .name = l.name, .op_type = l.op_type};
      l.cost.view = true;
    }
  }
  a.summary.layers = 8;
  a.summary.view_layers = 2;
  // 120 + 80 + 15 + 200 + 12 + 30 + 45 + 11 = 513 us.
  a.summary.latency_s = 513e-6;
  return a;
}

class ReportBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = ChromiumPath();
    if (!IsExecutable(chromium_)) {
      GTEST_SKIP() << "Chromium not found at " << chromium_
                   << "; install it with `apt-get install -y chromium "
                      "chromium-driver` to run the browser tests";
    }
    std::string templ = ::testing::TempDir() + "ridgeline_browser_XXXXXX";
    ASSERT_NE(::mkdtemp(templ.data()), nullptr) << std::strerror(errno);
    dir_ = templ;
    const Analysis analysis = BrowserAnalysis();
    HtmlReportInput in;
    in.primary = &analysis;
    report_path_ = dir_ + "/report.html";
    std::ofstream(report_path_) << RenderHtmlReport(in);
  }

  void TearDown() override {
    if (!dir_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
    }
  }

  // Runs Chromium with a fresh profile directory and `extra` arguments, then
  // the URL of the report with `fragment`.
  RunResult Chromium(const std::vector<std::string>& extra,
                     const std::string& fragment) {
    const std::string profile = dir_ + "/profile-" + std::to_string(runs_++);
    std::filesystem::create_directories(profile);
    std::vector<std::string> argv = {
        chromium_,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--mute-audio",
        "--force-device-scale-factor=1",
        // Every host name resolves to nothing: no network, even by mistake.
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--user-data-dir=" + profile,
    };
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("file://" + report_path_ + fragment);
    const std::vector<std::string> env = {
        "PATH=/usr/bin:/bin", "HOME=" + profile,
        "XDG_CONFIG_HOME=" + profile + "/config",
        "XDG_CACHE_HOME=" + profile + "/cache", "LANG=C.UTF-8"};
    stderr_path_ = profile + ".stderr";
    return RunBounded(argv, env, stderr_path_, kTimeoutSeconds);
  }

  // Loads the report with "#selftest=<steps>" and returns the hook's JSON.
  nlohmann::json SelfTest(const std::string& steps) {
    const RunResult r = Chromium({"--dump-dom"}, "#selftest=" + steps);
    EXPECT_FALSE(r.timed_out)
        << "Chromium timed out after " << kTimeoutSeconds << " s";
    const std::string result = PreText(r.stdout_text, "selftest-result");
    if (result.empty()) {
      ADD_FAILURE() << "no self-test result in the DOM; exit code "
                    << r.exit_code << "; stderr tail:\n"
                    << Tail(ReadFile(stderr_path_), 2000) << "\nstdout tail:\n"
                    << Tail(r.stdout_text, 2000);
      return nlohmann::json::object();
    }
    return nlohmann::json::parse(UnescapeText(result), nullptr, false);
  }

  std::string chromium_;
  std::string dir_;
  std::string report_path_;
  std::string stderr_path_;
  int runs_ = 0;
};

using Names = std::vector<std::string>;

TEST_F(ReportBrowserTest, OnePointPerLayerAndSortingReordersRows) {
  const nlohmann::json r = SelfTest("sort:latency_s");
  ASSERT_TRUE(r.is_object()) << r.dump();
  // 10 layers, 2 of them views.
  EXPECT_EQ(r.value("points", -1), 8);
  EXPECT_EQ(r.value("rows", -1), 8);
  EXPECT_EQ(r["steps"], nlohmann::json({"sort latency_s descending"}));
  // Latencies 200, 120, 80, 45, 30, 15, 12, 11 us.
  EXPECT_EQ(r["order"].get<Names>(),
            (Names{"block2/conv", "stem/conv", "block<1>/conv&bn", "head/fc",
                   "head/pool", "block1/relu", "block2/add", "head/softmax"}));
}

TEST_F(ReportBrowserTest, SecondClickReversesAndTextColumnsSortAtoZ) {
  const nlohmann::json r = SelfTest("sort:latency_s;sort:latency_s");
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r["order"].get<Names>(),
            (Names{"head/softmax", "block2/add", "block1/relu", "head/pool",
                   "head/fc", "block<1>/conv&bn", "stem/conv", "block2/conv"}));
  const nlohmann::json by_name = SelfTest("sort:name");
  ASSERT_TRUE(by_name.is_object());
  // Code-unit order: '1' (0x31) < '2' (0x32) < '<' (0x3C).
  EXPECT_EQ(
      by_name["order"].get<Names>(),
      (Names{"block1/relu", "block2/add", "block2/conv", "block<1>/conv&bn",
             "head/fc", "head/pool", "head/softmax", "stem/conv"}));
}

TEST_F(ReportBrowserTest, FilterBoxHidesOtherRows) {
  const nlohmann::json r = SelfTest("filter:conv");
  ASSERT_TRUE(r.is_object());
  // Topological order, only the Conv layers.
  EXPECT_EQ(r["order"].get<Names>(),
            (Names{"stem/conv", "block<1>/conv&bn", "block2/conv"}));
}

TEST_F(ReportBrowserTest, ScreenshotIsAPng) {
  const std::string png = dir_ + "/shot.png";
  const RunResult r =
      Chromium({"--screenshot=" + png, "--window-size=1400,1000"}, "");
  EXPECT_FALSE(r.timed_out);
  const std::string bytes = ReadFile(png);
  ASSERT_GT(bytes.size(), 1000u) << "stderr tail:\n"
                                 << Tail(ReadFile(stderr_path_), 2000);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // IHDR: width and height, big-endian, at bytes 16..23.
  const auto be32 = [&](size_t at) {
    return (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at])) << 24) |
           (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 2])) << 8) |
           static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 3]));
  };
  EXPECT_EQ(be32(16), 1400u);
  EXPECT_EQ(be32(20), 1000u);
}

}  // namespace
}  // namespace ridgeline::engine::report
