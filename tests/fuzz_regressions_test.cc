// Replays every input that once crashed the fuzzer (tests/fuzz/
// import_fuzzer.cc), stored under tests/fixtures/fuzz_regressions/, through
// the same path: ImportOnnxBytes then Analyze. Each must end in an error that
// names the file, or in an analysis; never a crash. Run under
// tools/sanitize.sh this also catches the memory errors and undefined
// behaviour the fuzzer found.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/fuzz/fuzz_target.h"

namespace ridgeline {
namespace {

const char kDir[] = RIDGELINE_SOURCE_DIR "/tests/fixtures/fuzz_regressions";

std::vector<std::filesystem::path> Inputs() {
  std::vector<std::filesystem::path> paths;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kDir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() != ".md") {
      paths.push_back(entry.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(FuzzRegressionsTest, EveryStoredInputFailsCleanlyOrAnalyzes) {
  const std::vector<std::filesystem::path> inputs = Inputs();
  ASSERT_FALSE(inputs.empty()) << "no stored inputs in " << kDir;
  for (const std::filesystem::path& path : inputs) {
    SCOPED_TRACE(path.string());
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    const std::string name = path.filename().string();
    const fuzz::FuzzResult result = fuzz::RunFuzzTarget(bytes, name);
    EXPECT_FALSE(result.unnamed_error) << result.error;
    EXPECT_FALSE(result.file_reader_differs);
  }
}

}  // namespace
}  // namespace ridgeline
