// Sequence values (graph::Tensor::non_tensor) on the fixture
// sequence_values.onnx of tests/fixtures/make_importer_fixtures.py: the
// sequence ops and a ZipMap are counted, not skipped, and the tensors they
// copy are priced; expected bytes worked by hand below.
#include <map>
#include <string>

#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"
#include "nlohmann/json.hpp"
#include "tests/cli_test_util.h"

namespace ridgeline {
namespace {

std::string Fixture() {
  return std::string(RIDGELINE_SOURCE_DIR) +
         "/tests/fixtures/importer/sequence_values.onnx";
}

TEST(SequenceValuesTest, SequencesAreKnownValuesNotUnresolvedTensors) {
  absl::StatusOr<graph::Graph> g = importers::ImportOnnxFile(Fixture(), {});
  ASSERT_TRUE(g.ok()) << MessageOf(g.status());
  for (const auto& u : g->unresolved)
    ADD_FAILURE() << u.tensor << ": " << u.reason;
  for (const char* name : {"seq", "seq2", "seq3", "probs"}) {
    std::optional<int> t = g->FindTensor(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_TRUE(g->tensor(*t).non_tensor) << name;
    EXPECT_FALSE(g->tensor(*t).shape_known) << name;
  }
  // The split of x [8,64,32] along axis 1 without keepdims, its element 3
  // and the re-stacked list (64 - 1 + 1 elements of [8,32] on a new axis 1).
  EXPECT_EQ(g->tensor(*g->FindTensor("t3")).dims, (graph::Dims{8, 32}));
  EXPECT_EQ(g->tensor(*g->FindTensor("stacked")).dims,
            (graph::Dims{8, 64, 32}));
}

TEST(SequenceValuesTest, SequenceOpsPriceWhatTheyCopy) {
  const cli_testing::Result r =
      cli_testing::RunCli({Fixture(), "--hw", "a100", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["summary"]["skipped_layers"].empty())
      << j["summary"]["skipped_layers"].dump();
  EXPECT_TRUE(j["summary"]["unresolved"].empty());
  std::map<std::string, nlohmann::json> layers;
  for (const auto& l : j["layers"]) layers[l["name"]] = l;
  // SplitToSequence copies x: 8 x 64 x 32 x 4 B = 65,536 B read and written.
  EXPECT_DOUBLE_EQ(layers["split"]["bytes_read"].get<double>(), 65536);
  EXPECT_DOUBLE_EQ(layers["split"]["bytes_written"].get<double>(), 65536);
  // SequenceAt copies the element [8,32] (1,024 B) and reads the int64
  // position (8 B); SequenceInsert copies the inserted [8,32].
  EXPECT_DOUBLE_EQ(layers["at"]["bytes_read"].get<double>(), 1024 + 8);
  EXPECT_DOUBLE_EQ(layers["at"]["bytes_written"].get<double>(), 1024);
  EXPECT_DOUBLE_EQ(layers["insert"]["bytes_read"].get<double>(), 1024);
  EXPECT_DOUBLE_EQ(layers["insert"]["bytes_written"].get<double>(), 1024);
  // ConcatFromSequence reads its 64 elements and writes them, 65,536 B.
  EXPECT_DOUBLE_EQ(layers["stack"]["bytes_written"].get<double>(), 65536);
  // SequenceErase and SequenceLength touch no element.
  EXPECT_DOUBLE_EQ(layers["erase"]["bytes"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(layers["length"]["bytes"].get<double>(), 0);
  // ZipMap reads prob [10,3] (120 B) and writes 30 entries of an int64 key
  // and a float score: 360 B.
  EXPECT_DOUBLE_EQ(layers["zipmap"]["bytes_read"].get<double>(), 120);
  EXPECT_DOUBLE_EQ(layers["zipmap"]["bytes_written"].get<double>(), 360);
}

// A scripted list.append loop: SequenceEmpty, then T iterations that each
// insert one [B, 32] element; the stack of the list is [B, T, 32].
TEST(SequenceValuesTest, ListAppendedInALoopHasTheTripCountLength) {
  importers::ImportOptions options;
  options.dims["B"] = 2;
  options.dims["T"] = 5;
  absl::StatusOr<graph::Graph> g = importers::ImportOnnxFile(
      std::string(RIDGELINE_SOURCE_DIR) +
          "/tests/fixtures/importer/scripted_list_loop.onnx",
      options);
  ASSERT_TRUE(g.ok()) << MessageOf(g.status());
  for (const auto& u : g->unresolved)
    ADD_FAILURE() << u.tensor << ": " << u.reason;
  EXPECT_EQ(g->tensor(*g->FindTensor("stacked")).dims, (graph::Dims{2, 5, 32}));
}

}  // namespace
}  // namespace ridgeline
