// Helpers of the analyze CLI tests (cli_test, cli_features_test,
// field_models_test): a run in this process with its exit status and
// outputs, substring checks, whole files, and one temporary folder per test
// program.
//
//   const cli_testing::Result r = cli_testing::RunCli({"--list-zoo"});
//   EXPECT_TRUE(cli_testing::Contains(r.out, "resnet50")) << r.err;
#ifndef RIDGELINE_TESTS_CLI_TEST_UTIL_H_
#define RIDGELINE_TESTS_CLI_TEST_UTIL_H_

#include <errno.h>  // program_invocation_short_name (glibc)
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analyze/run.h"

namespace ridgeline::cli_testing {

// What a run of analyze returned.
struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

// `analyze ARGS` in this process (tools/analyze/run.h).
inline Result RunCli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Result r;
  r.code = tools::analyze::AnalyzeMain(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

inline bool Contains(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

// The whole file; "" when it cannot be read.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// This program's folder for the files its tests write, created on first
// use: TMP/ridgeline_<program>_<pid>, one per process, as ctest -j runs
// several test programs at once. It is removed, with what the tests left in
// it, when the process exits: ctest runs each test as its own process, and
// the folders of every run used to pile up in TMP.
inline const std::filesystem::path& TempDir() {
  struct OwnedDir {
    OwnedDir()
        : path(std::filesystem::temp_directory_path() /
               ("ridgeline_" + std::string(program_invocation_short_name) +
                "_" + std::to_string(::getpid()))) {
      std::filesystem::create_directories(path);
    }
    OwnedDir(const OwnedDir&) = delete;
    OwnedDir& operator=(const OwnedDir&) = delete;
    ~OwnedDir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
    const std::filesystem::path path;
  };
  static const OwnedDir dir;
  return dir.path;
}

}  // namespace ridgeline::cli_testing

#endif  // RIDGELINE_TESTS_CLI_TEST_UTIL_H_
