// Every text table of `analyze` is capped to the terminal's width (160
// columns when the output is not a terminal), long names elided in the
// middle: the per-layer table, the fusion what-if (--fuse) and the
// quantization what-if (--weights). The terminal is a real one: the analyze
// binary runs on a pseudo-terminal of a chosen width.
#include <fcntl.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/onnx_builder.h"
#include "gtest/gtest.h"
#include "tests/cli_test_util.h"

namespace ridgeline {
namespace {

using bench::OnnxBuilder;
using cli_testing::Contains;
using cli_testing::Result;

const std::string kBinary = RIDGELINE_BINARY_DIR "/tools/analyze";
constexpr int kF32 = onnx::TensorProto::FLOAT;

// Node names as long as real exports write them: a 150-character scope,
// then the op and its index (what tells the layers apart).
std::string LongScope() {
  std::string scope = "/model/encoder/";
  scope.append(120, 'p');
  scope += "/block/";
  scope.append(8, 'q');
  scope += '/';
  return scope;
}
const std::string kScope = LongScope();

// Two blocks x[4,64] -> MatMul(W) -> Add(b) -> Relu: epilogue fusion
// groups (MatMul + Add + Relu; on the eager runtime, which does not fuse
// them itself) and weights to quantize.
std::string WriteLongNamesModel() {
  OnnxBuilder b("long_names_mlp", 17);
  b.SetPrefix(kScope);
  b.Input("x", kF32, {int64_t{4}, int64_t{64}});
  std::string y = "x";
  for (const char* i : {"0", "1"}) {
    const std::string w = std::string("W") + i;
    const std::string bias = std::string("b") + i;
    b.FloatInitializer(w, {64, 64}, std::vector<float>(64 * 64, 0.5f));
    b.FloatInitializer(bias, {64}, std::vector<float>(64, 0.5f));
    y = b.Node("MatMul", {y, w});
    y = b.Node("Add", {y, bias});
    y = b.Node("Relu", {y});
  }
  b.Output(y);
  const std::string path =
      (cli_testing::TempDir() / "long_names_mlp.onnx").string();
  std::ofstream(path, std::ios::binary) << b.Serialize();
  return path;
}

// The lines of every text table in `text`: a header, its dashed rule, and
// the rows up to the next empty line.
std::vector<std::string> TableLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::vector<std::string> table;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::string& rule = lines[i + 1];
    const bool is_rule = rule.find("--") != std::string::npos &&
                         rule.find_first_not_of("- ") == std::string::npos;
    if (!is_rule) continue;
    size_t end = i;
    while (end < lines.size() && !lines[end].empty()) ++end;
    table.insert(table.end(), lines.begin() + i, lines.begin() + end);
    i = end;
  }
  return table;
}

// Code points of a UTF-8 line (the tables' width unit).
size_t Columns(const std::string& line) {
  size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

// `analyze ARGS` with standard output on a pseudo-terminal `columns` wide;
// what it printed there ("\r\n" turned back into "\n"). Standard error is
// discarded.
Result RunOnTerminal(const std::vector<std::string>& args,
                     unsigned short columns) {
  Result r;
  struct winsize size {};
  size.ws_col = columns;
  size.ws_row = 50;
  int master = -1, slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, &size) != 0) return r;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(slave, STDOUT_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDERR_FILENO);
    close(master);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(kBinary.c_str()));
    for (const std::string& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(kBinary.c_str(), argv.data());
    _exit(127);
  }
  close(slave);
  char buffer[4096];
  while (true) {
    const ssize_t n = read(master, buffer, sizeof(buffer));
    if (n > 0) {
      r.out.append(buffer, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO once the child has exited and closed the terminal
    }
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::string text;
  for (char c : r.out) {
    if (c != '\r') text += c;
  }
  r.out = text;
  return r;
}

// The fusion and quantization sections (from the fusion what-if's title on).
std::string WhatIfSections(const std::string& out) {
  const size_t at = out.find("Quantization what-if");
  return at == std::string::npos ? "" : out.substr(at);
}

TEST(TableWidth, WhatIfTablesAreAtMost160ColumnsWhenNotATerminal) {
  const Result r = cli_testing::RunCli({WriteLongNamesModel(), "--hw", "h100",
                                        "--fuse", "epilogue", "--weights",
                                        "int8", "--runtime", "eager"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string what_if = WhatIfSections(r.out);
  ASSERT_TRUE(Contains(what_if, "Fusion what-if")) << r.out;
  const std::vector<std::string> lines = TableLines(what_if);
  // The quantization table (header, rule, 2 MatMuls and their Adds, Relus)
  // and the fusion table (header, rule, 2 groups).
  ASSERT_GE(lines.size(), 8u) << what_if;
  for (const std::string& line : lines) {
    EXPECT_LE(Columns(line), 160u) << line;
  }
  // Names are longer than 160 columns: elided in the middle, the head of
  // the scope and the distinguishing tail kept.
  EXPECT_FALSE(Contains(what_if, kScope)) << what_if;
  EXPECT_TRUE(Contains(what_if, "/model/encoder/ppp")) << what_if;
  EXPECT_TRUE(Contains(what_if, "...")) << what_if;
  EXPECT_TRUE(Contains(what_if, "q/MatMul_1")) << what_if;
  EXPECT_TRUE(Contains(what_if, "q/MatMul_4")) << what_if;
  EXPECT_TRUE(Contains(what_if, "epilogue:/model/e...")) << what_if;
}

TEST(TableWidth, EveryTableFollowsTheTerminalWidth) {
  const std::string model = WriteLongNamesModel();
  // Below 160 and above the narrowest the tables get (the layer table's
  // number columns take 139 with names at their floor of 12).
  for (unsigned short columns : {150, 140}) {
    const Result r = RunOnTerminal({model, "--hw", "h100", "--fuse", "epilogue",
                                    "--weights", "int8", "--runtime", "eager"},
                                   columns);
    ASSERT_EQ(r.code, 0) << r.out;
    ASSERT_TRUE(Contains(r.out, "Fusion what-if")) << r.out;
    // The layer table, the quantization and the fusion tables.
    const std::vector<std::string> lines = TableLines(r.out);
    ASSERT_GE(lines.size(), 14u) << r.out;
    for (const std::string& line : lines) {
      EXPECT_LE(Columns(line), columns) << line;
    }
    const std::string what_if = WhatIfSections(r.out);
    EXPECT_TRUE(Contains(what_if, "/model/enc")) << what_if;
    EXPECT_TRUE(Contains(what_if, "MatMul_4")) << what_if;
  }
}

}  // namespace
}  // namespace ridgeline
