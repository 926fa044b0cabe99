// The `analyze` binary end to end on the committed fixtures
// (tests/fixtures/make_cli_fixtures.py): every format parses, every exit
// code. Plus the in-process entry point (tools/analyze/run.h).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli_test_util.h"
#include "tools/analyze/options.h"
#include "tools/analyze/run.h"

namespace ridgeline {
namespace {

using cli_testing::Contains;
using cli_testing::ReadFile;
using cli_testing::Result;
using cli_testing::TempDir;

const std::string kBinary = RIDGELINE_BINARY_DIR "/tools/analyze";
const std::string kFixtures = RIDGELINE_SOURCE_DIR "/tests/fixtures/";
const std::string kTinyCnn = kFixtures + "tiny_cnn.onnx";

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q.append("'\\''");
    } else {
      q.push_back(c);
    }
  }
  q.push_back('\'');
  return q;
}

Result RunCli(const std::vector<std::string>& args) {
  const std::string out = (TempDir() / "stdout").string();
  const std::string err = (TempDir() / "stderr").string();
  std::string cmd = Quote(kBinary);
  for (const std::string& a : args) {
    cmd.append(" ");
    cmd.append(Quote(a));
  }
  cmd.append(" >");
  cmd.append(Quote(out));
  cmd.append(" 2>");
  cmd.append(Quote(err));
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  return r;
}

TEST(CliTest, JsonReportOfTheTinyCnn) {
  const Result r = RunCli({kTinyCnn, "--hw", "h100", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"], kTinyCnn);
  EXPECT_EQ(j["hardware"]["key"], "h100-sxm");
  EXPECT_EQ(j["assumptions"]["flops_per_mac"], 2.0);
  EXPECT_EQ(j["assumptions"]["peak_precision"], "fp32");  // an fp32 model
  // conv, bn, relu, pool, flatten, fc: every layer, the view included.
  EXPECT_EQ(j["layers"].size(), 6u);
  const auto& s = j["summary"];
  EXPECT_TRUE(s["unresolved"].empty()) << s["unresolved"];
  EXPECT_TRUE(s["skipped_layers"].empty()) << s["skipped_layers"];
  // Conv 1*8*16*16*3*3*3 = 55,296 MACs + Gemm 512*10 = 5,120 MACs.
  EXPECT_EQ(s["macs"], 60416.0);
  // 216 + 8 + 4*8 + 5,120 + 10 initializer elements.
  EXPECT_EQ(s["params"], 5386);
  EXPECT_EQ(s["layers"], 5);  // Flatten is a view
  EXPECT_GT(s["latency_s"].get<double>(), 0);
}

TEST(CliTest, TableCsvAndMarkdown) {
  const Result table = RunCli({kTinyCnn, "--hw", "a100"});
  ASSERT_EQ(table.code, 0) << table.err;
  for (const char* what : {"Summary", "Roofline", "Assumptions", "ridge point",
                           "FLOPs per MAC", "conv"}) {
    EXPECT_TRUE(Contains(table.out, what)) << what << "\n" << table.out;
  }

  const Result csv = RunCli({kTinyCnn, "--hw", "a100", "--format", "csv"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  std::istringstream lines(csv.out);
  int n = 0;
  for (std::string line; std::getline(lines, line);) ++n;
  EXPECT_EQ(n, 7);  // header + 6 layers

  const Result md = RunCli({kTinyCnn, "--hw", "a100", "--format", "md"});
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("# ", 0), 0u);
  EXPECT_TRUE(Contains(md.out, "| # | name |"));
}

TEST(CliTest, OutputFileAndPrecision) {
  const std::string path = (TempDir() / "report.json").string();
  const Result r = RunCli({kTinyCnn, "--hw=h100", "--precision", "fp16",
                           "--format=json", "-o", path});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  const nlohmann::json j = nlohmann::json::parse(ReadFile(path));
  EXPECT_EQ(j["assumptions"]["precision"], "fp16");
  EXPECT_EQ(j["assumptions"]["peak_flops_per_s"], 989.5e12);
  // fp16 weights: 5,386 parameters x 2 bytes.
  EXPECT_EQ(j["summary"]["weight_bytes"], 5386 * 2.0);
}

TEST(CliTest, BatchRebindsADynamicModel) {
  const Result r = RunCli({kFixtures + "tiny_cnn_dyn.onnx", "--hw", "h100",
                           "--batch", "4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["assumptions"]["batch"], 4);
  EXPECT_EQ(j["summary"]["macs"], 4 * 60416.0);
}

TEST(CliTest, ListHardware) {
  const Result table = RunCli({"--list-hw"});
  ASSERT_EQ(table.code, 0) << table.err;
  for (const char* key :
       {"a100-80gb-sxm", "h100-sxm", "tpu-v5e", "epyc-9654"}) {
    EXPECT_TRUE(Contains(table.out, key)) << key;
  }
  const Result json = RunCli({"--list-hw", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_GE(nlohmann::json::parse(json.out).size(), 13u);
}

TEST(CliTest, HardwareFile) {
  const std::string path = (TempDir() / "mine.json").string();
  std::ofstream(path) << R"({"key": "mine", "name": "My Device",
    "peak_flops_per_s": {"fp32": 1e12}, "memory_bandwidth_bytes_per_s": 1e11,
    "memory_capacity_bytes": 1e9, "source": "test"})";
  const Result r = RunCli({kTinyCnn, "--hw-file", path, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["hardware"]["key"], "mine");
}

TEST(CliTest, UnknownOpIsReportedNotFatal) {
  const Result r = RunCli(
      {kFixtures + "tiny_custom_op.onnx", "--hw", "t4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(r.out)["summary"];
  const bool listed_unknown =
      s["unknown_ops"] == nlohmann::json::array({"com.example:Mystery"});
  const bool listed_skipped = !s["skipped_layers"].empty() &&
                              s["skipped_layers"][0]["node"] == "mystery";
  EXPECT_TRUE(listed_unknown || listed_skipped) << s;
}

TEST(CliTest, UsageErrorsExitOne) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {},
           {kTinyCnn},                             // no --hw
           {kTinyCnn, "--hw", "h100", "--bogus"},  // unknown flag
           {kTinyCnn, "--hw"},                     // missing value
           {kTinyCnn, "--hw", "h100", "--precision", "fp12"},
           {kTinyCnn, "--hw", "h100", "--batch", "0"},
           {kTinyCnn, "--hw", "h100", "--efficiency", "1.5"},
           {kTinyCnn, "--hw", "h100", "--flops-per-mac", "3"},
           {kTinyCnn, "--hw", "h100", "--format", "xml"},
           {kTinyCnn, "--hw", "h100", "--dim", "batch"},
           {kTinyCnn, kTinyCnn, "--hw", "h100"},
       }) {
    const Result r = RunCli(args);
    EXPECT_EQ(r.code, 1) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_TRUE(Contains(r.err, "usage: analyze")) << r.err;
  }
  const Result help = RunCli({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(Contains(help.out, "--precision"));
}

TEST(CliTest, InputErrorsExitTwoWithOneLine) {
  const std::string not_onnx = (TempDir() / "not_a_model.onnx").string();
  std::ofstream(not_onnx) << "this is not a protobuf\n\x01\x02";
  const std::string bad_hw = (TempDir() / "bad_hw.json").string();
  std::ofstream(bad_hw) << R"({"key": "x"})";
  struct Case {
    std::vector<std::string> args;
    std::string mentions;
  };
  for (const Case& c : std::vector<Case>{
           {{"/nonexistent/model.onnx", "--hw", "h100"},
            "/nonexistent/model.onnx"},
           {{not_onnx, "--hw", "h100"}, not_onnx},
           {{kTinyCnn, "--hw", "nosuchgpu"}, "nosuchgpu"},
           {{kTinyCnn, "--hw", "a100", "--precision", "fp8"}, "fp8"},
           {{kTinyCnn, "--hw-file", bad_hw}, bad_hw},
           {{kTinyCnn, "--hw", "h100", "-o", "/nonexistent/dir/out.txt"},
            "/nonexistent/dir/out.txt"},
       }) {
    const Result r = RunCli(c.args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(c.args) << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("analyze: error: ", 0), 0u) << r.err;
    EXPECT_TRUE(Contains(r.err, c.mentions)) << r.err;
    EXPECT_FALSE(Contains(r.err, "usage:")) << r.err;
  }
}

TEST(CliInProcessTest, ParseArgsAndRun) {
  absl::StatusOr<tools::analyze::Options> o = tools::analyze::ParseArgs(
      {kTinyCnn, "--hw", "h100", "--dim", "seq=128", "--layer-tax-us", "5",
       "--dispatch-tax-us=0", "--top", "3", "--all-layers"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->analyze.per_layer_tax_s, 5e-6);
  EXPECT_EQ(*o->analyze.dispatch_tax_s, 0);
  EXPECT_EQ(o->report.top, 3);
  EXPECT_TRUE(o->report.all_layers);
  ASSERT_EQ(o->dims.size(), 1u);
  EXPECT_EQ(o->dims[0].second, 128);

  std::ostringstream out, err;
  EXPECT_EQ(tools::analyze::AnalyzeMain({"--bogus"}, out, err), 1);
  EXPECT_TRUE(Contains(err.str(), "unknown flag '--bogus'")) << err.str();
  std::ostringstream out2, err2;
  EXPECT_EQ(tools::analyze::AnalyzeMain(
                {kTinyCnn, "--hw", "h100", "--format", "json"}, out2, err2),
            0)
      << err2.str();
  EXPECT_EQ(nlohmann::json::parse(out2.str())["layers"].size(), 6u);
}

}  // namespace
}  // namespace ridgeline
