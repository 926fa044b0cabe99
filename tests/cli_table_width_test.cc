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

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
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
    unsetenv("COLUMNS");  // the terminal's width, not the caller's
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

// One text table of a report: its header, its dashed rule (as wide as the
// table's widest line: every cell is padded or elided to its column) and
// whether the overflow note follows its rows.
struct Table {
  std::string header;
  std::string rule;
  bool note = false;
};

std::vector<Table> Tables(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::string note = "(wider than " + std::to_string(width) +
                           " columns: numbers are never cut)";
  std::vector<Table> tables;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::string& rule = lines[i + 1];
    if (rule.find("--") == std::string::npos ||
        rule.find_first_not_of("- ") != std::string::npos) {
      continue;
    }
    Table t{.header = lines[i], .rule = rule};
    size_t end = i + 2;
    for (; end < lines.size() && !lines[end].empty(); ++end) {
      if (lines[end].find(note) != std::string::npos) t.note = true;
    }
    tables.push_back(t);
    i = end;
  }
  return tables;
}

// The column widths of a table from its dashed rule, by header: "name" ->
// 12 for "----    ------------".
std::vector<std::pair<std::string, size_t>> ColumnsOf(const Table& t) {
  std::vector<std::pair<std::string, size_t>> out;
  for (size_t at = t.rule.find('-'); at != std::string::npos;) {
    const size_t end = std::min(t.rule.find(' ', at), t.rule.size());
    std::string header =
        t.header.substr(std::min(at, t.header.size()), end - at);
    header.erase(0, header.find_first_not_of(' '));
    header.erase(header.find_last_not_of(' ') + 1);
    out.push_back({header, end - at});
    at = t.rule.find('-', end);
  }
  return out;
}

// Every table kind of `analyze` at 60 to 160 columns: its lines fit, or its
// names are at their narrowest (12 columns, or the header) and one note
// under it says that the numbers, never cut, do not fit.
TEST(TableWidth, EveryTableKindFitsOrSaysSo) {
  const std::string model = WriteLongNamesModel();
  const std::vector<std::vector<std::string>> runs = {
      // layers, quantization, fusion, what-if
      {model, "--hw", "h100", "--fuse", "epilogue", "--weights", "int8",
       "--runtime", "eager", "--what-if"},
      // layers, batch sweep with the whole-model columns, whole model
      {"--zoo", "resnet50", "--hw", "h100", "--sweep", "batch=1,2",
       "--whole-model"},
      // serving: TPOT by context; the serving sweep
      {"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--precision", "bf16",
       "--serve", "--prompt", "64", "--generate", "4"},
      {"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--precision", "bf16",
       "--serve", "--prompt", "64", "--generate", "4", "--sweep",
       "concurrency=1,2"},
      {"--list-hw"},
      {"--list-runtimes"},
      {"--list-zoo"}};
  // Columns that elide (names, ops, members, labels; the keys and zoo
  // names that --hw, --runtime and --zoo take are kept whole).
  const std::vector<std::string> names = {
      "op",       "group", "kind",        "members", "layer",
      "scenario", "note",  "description", "aliases", "summary"};
  for (unsigned short width : {60, 80, 100, 120, 160}) {
    size_t tables = 0, overflowing = 0;
    for (const std::vector<std::string>& args : runs) {
      const Result r = RunOnTerminal(args, width);
      ASSERT_EQ(r.code, 0) << args[0] << " " << args[1] << "\n" << r.out;
      const std::vector<Table> found = Tables(r.out, width);
      EXPECT_FALSE(found.empty()) << args[0] << " " << args[1] << "\n" << r.out;
      for (const Table& t : found) {
        ++tables;
        EXPECT_LE(Columns(t.header), Columns(t.rule)) << t.header;
        if (Columns(t.rule) <= width) {
          EXPECT_FALSE(t.note) << width << "\n" << t.header;
          continue;
        }
        ++overflowing;
        EXPECT_TRUE(t.note) << width << " columns, table " << Columns(t.rule)
                            << " wide without the note:\n"
                            << t.header << "\n"
                            << t.rule;
        for (const auto& [header, w] : ColumnsOf(t)) {
          const bool layer_name =
              header == "name" && Contains(t.header, "output shape");
          if (!layer_name &&
              std::find(names.begin(), names.end(), header) == names.end()) {
            continue;
          }
          EXPECT_LE(w, std::max<size_t>(12, header.size()))
              << width << " columns, column '" << header << "' of\n"
              << t.header;
        }
      }
    }
    // At least one table per run; at 60 columns the layer table (139
    // columns with its names at 12) cannot fit, at 160 most tables do.
    EXPECT_GE(tables, runs.size()) << width;
    if (width == 60) {
      EXPECT_GT(overflowing, 0u);
    }
    if (width == 160) {
      EXPECT_LT(overflowing, tables);
    }
  }
}

}  // namespace
}  // namespace ridgeline
