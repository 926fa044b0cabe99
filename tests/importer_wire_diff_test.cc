// Differential test of the wire pre-pass (importers/onnx_wire.h): importing a
// model through ImportOnnxBytes, which skips the weight payloads, must build
// the same graph::Graph as libprotobuf's parse of the whole file followed by
// the same conversion: same tensors (dtype, dims, folded values, kind,
// producer, consumers), nodes (attributes, opsets, parents), outputs,
// unresolved tensors, warnings, batch and parameter count. ImportOnnxFile,
// which reads the file around the payloads instead of holding it, must build
// that graph too, and its reader must give the same compact bytes through
// windows of a few bytes.
//
// Inputs: every committed fixture (tests/fixtures/**/*.onnx and the stored
// fuzz regressions) and every model of ONNX's node test suite
// (libonnx-testdata).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "google/protobuf/io/coded_stream.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/onnx_convert.h"
#include "importers/onnx_importer.h"
#include "importers/onnx_wire.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {
namespace {

namespace fs = std::filesystem;

constexpr char kFixtures[] = RIDGELINE_SOURCE_DIR "/tests/fixtures";
constexpr char kNodeSuiteDir[] = "/usr/share/libonnx-testdata/data/node";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

std::string Join(const auto& values) { return absl::StrJoin(values, ","); }

std::string AttributeText(const graph::AttributeValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          return fmt::format("[{}]", absl::StrJoin(x, "|"));
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                             std::is_same_v<T, std::vector<double>>) {
          return fmt::format("[{}]", fmt::join(x, ","));
        } else {
          return fmt::format("{}", x);
        }
      },
      v);
}

// Every field of the graph, one line per tensor and node, so that a
// difference shows where it is.
std::vector<std::string> Describe(const graph::Graph& g) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("name {}", g.name));
  lines.push_back(fmt::format("batch {} [{}] [{}]", g.batch.value,
                              absl::StrJoin(g.batch.dim_names, "|"),
                              absl::StrJoin(g.batch.sites, "|")));
  for (const auto& u : g.unresolved) {
    lines.push_back(
        fmt::format("unresolved {} {} {}", u.tensor, u.node, u.reason));
  }
  for (const auto& w : g.warnings)
    lines.push_back(fmt::format("warning {}", w));
  lines.push_back(fmt::format("outputs {}", Join(g.outputs())));
  lines.push_back(fmt::format("topo {}", Join(g.topological_order())));
  lines.push_back(fmt::format("params {}", g.ParameterCount()));
  for (const graph::Tensor& t : g.tensors()) {
    lines.push_back(fmt::format(
        "tensor {} dtype={} known={} dims=[{}] kind={} external={} "
        "producer={} consumers=[{}] ints={} weight={}",
        t.name, static_cast<int>(t.dtype), t.shape_known, Join(t.dims),
        static_cast<int>(t.kind), t.external_data, t.producer,
        Join(t.consumers),
        t.int_values.has_value() ? fmt::format("[{}]", Join(*t.int_values))
                                 : "none",
        g.IsWeight(t)));
  }
  for (const graph::Node& n : g.nodes()) {
    std::vector<std::string> attrs;
    for (const auto& [key, value] : n.attributes) {
      attrs.push_back(fmt::format("{}={}", key, AttributeText(value)));
    }
    std::sort(attrs.begin(), attrs.end());
    lines.push_back(fmt::format(
        "node {} {}:{} opset={} in=[{}] out=[{}] parent={}:{} not_run={} {}",
        n.name, n.domain, n.op_type, n.opset, Join(n.inputs), Join(n.outputs),
        n.parent, n.parent_attribute, n.not_run, absl::StrJoin(attrs, " ")));
  }
  return lines;
}

// libprotobuf's parse of the whole file, then the importer's conversion.
absl::StatusOr<graph::Graph> ImportByFullParse(const std::string& bytes,
                                               const std::string& base_dir) {
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(INT_MAX);
  stream.SetRecursionLimit(kMaxWireDepth);
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage() ||
      !model.has_graph() || model.ir_version() <= 0) {
    return absl::InvalidArgumentError("not a valid ONNX model");
  }
  return ConvertModel(&model, base_dir, ImportOptions());
}

struct Totals {
  int compared = 0;
  int64_t skipped_tensors = 0;
};

void CompareOne(const fs::path& path, Totals* totals) {
  SCOPED_TRACE(path.string());
  const std::string bytes = ReadFile(path);
  if (bytes.empty() || bytes.size() > static_cast<size_t>(INT_MAX)) return;
  const std::string base_dir = path.parent_path().string();
  absl::StatusOr<graph::Graph> full = ImportByFullParse(bytes, base_dir);
  absl::StatusOr<graph::Graph> wire =
      ImportOnnxBytes(bytes, path.string(), base_dir, ImportOptions());
  ASSERT_EQ(full.ok(), wire.ok())
      << "full parse: " << full.status() << "\nwire: " << wire.status();
  if (!full.ok()) {
    // Same failure; the wire path names the file first, and reading the
    // file fails the same way.
    EXPECT_TRUE(absl::StartsWith(wire.status().message(), path.string()))
        << wire.status();
    EXPECT_EQ(ImportOnnxFile(path.string(), ImportOptions()).status(),
              wire.status());
    return;
  }
  const std::vector<std::string> a = Describe(*full);
  const std::vector<std::string> b = Describe(*wire);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]);
  ++totals->compared;
  absl::StatusOr<CompactModel> compact = CompactModelBytes(bytes);
  ASSERT_TRUE(compact.ok()) << compact.status();
  totals->skipped_tensors += compact->skipped_tensors;
  // The file, read around the payloads.
  absl::StatusOr<graph::Graph> file =
      ImportOnnxFile(path.string(), ImportOptions());
  ASSERT_TRUE(file.ok()) << file.status();
  const std::vector<std::string> c = Describe(*file);
  ASSERT_EQ(a.size(), c.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], c[i]);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  absl::StatusOr<CompactModel> read = CompactModelFile(
      fd, bytes.size(),
      WireReadOptions{
          .whole_file_limit = 0, .min_window = 1, .max_window = 64});
  close(fd);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->bytes, compact->bytes.empty() ? bytes : compact->bytes);
}

TEST(ImporterWireDiffTest, CommittedFixturesBuildTheSameGraph) {
  std::vector<fs::path> paths;
  for (const auto& e : fs::recursive_directory_iterator(kFixtures)) {
    if (!e.is_regular_file()) continue;
    const bool fuzz = e.path().parent_path().filename() == "fuzz_regressions";
    if (e.path().extension() == ".onnx" ||
        (fuzz && e.path().extension() != ".md")) {
      paths.push_back(e.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  ASSERT_GT(paths.size(), 30u);
  Totals totals;
  for (const fs::path& p : paths) CompareOne(p, &totals);
  EXPECT_GE(totals.compared, 20);
  // The fixtures with embedded weights exercise the skipping (most others
  // are weightless: external data).
  EXPECT_GE(totals.skipped_tensors, 2);
}

// Models named in $RIDGELINE_WIRE_DIFF_MODELS (':'-separated), e.g. real
// torchvision exports with their weights (tools/export_torchvision.py).
TEST(ImporterWireDiffTest, ModelsFromTheEnvironmentBuildTheSameGraph) {
  const char* env = std::getenv("RIDGELINE_WIRE_DIFF_MODELS");
  if (env == nullptr || *env == '\0') {
    GTEST_SKIP() << "RIDGELINE_WIRE_DIFF_MODELS is not set";
  }
  Totals totals;
  for (absl::string_view p : absl::StrSplit(env, ':', absl::SkipEmpty())) {
    CompareOne(fs::path(std::string(p)), &totals);
  }
  std::printf("compared %d models, %lld payloads skipped\n", totals.compared,
              static_cast<long long>(totals.skipped_tensors));
}

TEST(ImporterWireDiffTest, NodeSuiteBuildsTheSameGraph) {
  if (!fs::is_directory(kNodeSuiteDir)) {
    GTEST_SKIP() << kNodeSuiteDir << " is missing (apt install "
                 << "libonnx-testdata)";
  }
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(kNodeSuiteDir)) {
    if (fs::exists(e.path() / "model.onnx")) {
      paths.push_back(e.path() / "model.onnx");
    }
  }
  std::sort(paths.begin(), paths.end());
  ASSERT_GT(paths.size(), 500u);
  Totals totals;
  for (const fs::path& p : paths) CompareOne(p, &totals);
  EXPECT_GT(totals.compared, 500);
  std::printf("compared %d of %zu models\n", totals.compared, paths.size());
}

}  // namespace
}  // namespace ridgeline::importers
