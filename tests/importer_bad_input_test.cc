// Each kind of bad input of issue 2 gives a non-OK status whose message names
// the file and the problem (fixtures from
// tests/fixtures/make_importer_fixtures.py).
#include <string>

#include "gmock/gmock.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"

namespace ridgeline::importers {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  return std::string(RIDGELINE_SOURCE_DIR) + "/tests/fixtures/importer/" + name;
}

struct BadInput {
  std::string file;     // under tests/fixtures/importer/
  std::string problem;  // expected in the message
};

class ImporterBadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(ImporterBadInputTest, FailsNamingFileAndProblem) {
  const std::string path = Fixture(GetParam().file);
  absl::StatusOr<graph::Graph> g = ImportOnnxFile(path, ImportOptions());
  ASSERT_FALSE(g.ok());
  const std::string message(MessageOf(g.status()));
  EXPECT_THAT(message, HasSubstr(path));
  EXPECT_THAT(message, HasSubstr(GetParam().problem));
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, ImporterBadInputTest,
    ::testing::Values(
        BadInput{"not_onnx.onnx", "not"},
        BadInput{"truncated.onnx", "truncated"},
        BadInput{"empty.onnx", "is empty"}, BadInput{".", "is a directory"},
        BadInput{"no_such_model.onnx", "no such file"},
        BadInput{"cycle.onnx", "cycle"},
        BadInput{"dangling_input.onnx",
                 "input 'nobody' of node 'add' (Add) is produced by no node"},
        BadInput{"dim_too_big.onnx", "above the limit 2^40"},
        BadInput{"dim_overflow.onnx", "more elements than int64 can count"},
        BadInput{"negative_dim.onnx", "negative dim (-3)"},
        BadInput{"unknown_dtype.onnx", "unknown data type 99"},
        // A dim above 2^40 found by shape inference names the node.
        BadInput{"inferred_dim_too_big.onnx",
                 "node 'expand_big' (Expand): tensor 'y' has a dim of "
                 "2199023255552, above the limit 2^40"}),
    [](const ::testing::TestParamInfo<BadInput>& info) {
      std::string name = info.param.file == "." ? "directory" : info.param.file;
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace ridgeline::importers
