// The feature flags of `analyze` wired in tools/analyze/*_mode.cc, run
// in-process through AnalyzeMain (tools/analyze/run.h): the zoo, the
// whole-model estimate, sweeps, fusion/quantization what-ifs, measured
// profiles with --fit, and the HTML/SVG pictures.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/hardware.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli_test_util.h"
#include "tools/analyze/run.h"

namespace ridgeline {
namespace {

using cli_testing::Contains;
using cli_testing::ReadFile;
using cli_testing::Result;
using cli_testing::RunCli;
using cli_testing::TempDir;
using tools::analyze::AnalyzeMain;

const std::string kFixtures = RIDGELINE_SOURCE_DIR "/tests/fixtures/";

TEST(CliFeatures, ListZooListsLlamaDecode) {
  const Result r = RunCli({"--list-zoo"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "llama-3.1-8b-decode")) << r.out;
  EXPECT_TRUE(Contains(r.out, "resnet50")) << r.out;
}

// A zoo LLM is stored as an fp32 graph but published in bf16/fp16 (its
// checkpoint's config.json torch_dtype): without --precision it is priced
// at that dtype, exactly as with --precision bf16, and says so; an explicit
// --precision wins; a CNN keeps its graph's dtypes.
TEST(CliFeatures, ZooLlamaDefaultsToItsCheckpointPrecision) {
  auto json = [](std::vector<std::string> args) {
    args.push_back("--format");
    args.push_back("json");
    const Result r = RunCli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json native =
      json({"--zoo", "llama-3.1-8b-decode", "--hw", "h100"});
  const nlohmann::json bf16 = json(
      {"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--precision", "bf16"});
  const nlohmann::json fp32 = json(
      {"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--precision", "fp32"});
  EXPECT_EQ(native["assumptions"]["precision"], "bf16");
  EXPECT_EQ(native["assumptions"]["peak_precision"], "bf16");
  EXPECT_TRUE(
      Contains(native["assumptions"]["precision_source"].get<std::string>(),
               "the zoo entry's native dtype (meta-llama/Llama-3.1-8B "
               "config.json: torch_dtype bfloat16"));
  EXPECT_EQ(native["summary"]["latency_s"], bf16["summary"]["latency_s"]);
  EXPECT_EQ(bf16["assumptions"]["precision_source"], "--precision");
  EXPECT_EQ(fp32["assumptions"]["precision"], "fp32");
  EXPECT_EQ(fp32["assumptions"]["peak_precision"], "fp32");
  // fp32 weights are twice the bytes: a weight-streaming decode step is
  // slower.
  EXPECT_GT(fp32["summary"]["latency_s"].get<double>(),
            1.5 * bf16["summary"]["latency_s"].get<double>());
  // Llama-2's checkpoints are float16.
  EXPECT_EQ(json({"--zoo", "llama-2-7b-decode", "--hw",
                  "a100"})["assumptions"]["precision"],
            "fp16");
  const nlohmann::json cnn = json({"--zoo", "resnet50", "--hw", "h100"});
  EXPECT_EQ(cnn["assumptions"]["precision"], "model dtypes");
  EXPECT_TRUE(cnn["assumptions"]["precision_source"].is_null());
}

TEST(CliFeatures, ListZooFormats) {
  const Result json = RunCli({"--list-zoo", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const nlohmann::json list = nlohmann::json::parse(json.out);
  ASSERT_EQ(list.size(), 18u);
  const nlohmann::json& first = list[0];  // sorted by name
  EXPECT_EQ(first["name"], "bert-base");
  EXPECT_TRUE(first["native_precision"].is_null());
  bool found = false;
  for (const nlohmann::json& e : list) {
    if (e["name"] != "llama-2-7b-decode") continue;
    found = true;
    EXPECT_EQ(e["native_precision"], "fp16");
    EXPECT_EQ(e["params"], 6738415616);  // Llama-2-7b-hf's config.json
    EXPECT_EQ(e["default_dims"]["past_sequence"], 2048);
  }
  EXPECT_TRUE(found);
  const Result md = RunCli({"--list-zoo", "--format", "md"});
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_TRUE(Contains(md.out, "| name | params | precision |")) << md.out;
  const Result csv = RunCli({"--list-zoo", "--format", "csv"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_TRUE(Contains(csv.out, "name,params,precision,")) << csv.out;
}

TEST(CliFeatures, ListZooTakesNoModel) {
  EXPECT_EQ(RunCli({"--list-zoo", "m.onnx"}).code, 1);
}

TEST(CliFeatures, UsageListsTheNewFlags) {
  const Result r = RunCli({"--help"});
  ASSERT_EQ(r.code, 0);
  for (const char* flag :
       {"--list-zoo", "--zoo NAME", "--whole-model", "--mlsysim", "--sweep",
        "--fuse", "--weights", "--activations", "--kv-cache", "--what-if",
        "--measured", "--fit", "--fit-out", "html|svg"}) {
    EXPECT_TRUE(Contains(r.out, flag)) << flag;
  }
}

TEST(CliFeatures, ZooEntryNeedsNoModelFileAndReportsItsName) {
  const Result r =
      RunCli({"--zoo", "resnet50", "--hw", "h100", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"], "zoo:resnet50");
  EXPECT_TRUE(j["summary"]["unresolved"].empty());
  EXPECT_FALSE(j.contains("whole_model"));  // only with --whole-model
}

TEST(CliFeatures, UnknownZooEntryIsAnInputError) {
  const Result r = RunCli({"--zoo", "no-such-model", "--hw", "h100"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "analyze: error:")) << r.err;
  EXPECT_TRUE(Contains(r.err, "no-such-model")) << r.err;
}

TEST(CliFeatures, ModelAndZooTogetherIsAUsageError) {
  EXPECT_EQ(RunCli({"m.onnx", "--zoo", "resnet50", "--hw", "h100"}).code, 1);
}

// mlsysim's published figure (engine/WHOLE_MODEL.md): ResNet-50 on A100,
// fp16, batch 1: memory-bound, 0.543 ms. By hand with mlsysim's registry:
// W = 2 B x 25.6e6 = 51.2 MB; bytes = 1.1 W = 56.32 MB;
// T_memory = 56.32e6 / 2039e9 = 0.02762 ms > T_compute = 4.1e9 MAC /
// (0.5 x 312e12) = 0.02628 ms (memory-bound); overhead = 50 layers x 10 us
// + 15 us dispatch = 0.515 ms; latency = 0.02762 + 0.515 = 0.5426 ms.
TEST(CliFeatures, MlsysimWholeModelReproducesResNet50OnA100) {
  const Result r =
      RunCli({"--zoo", "resnet50", "--hw", "a100", "--mlsysim", "--whole-model",
              "--precision", "fp16", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("summary"));
  ASSERT_TRUE(j.contains("whole_model")) << r.out.substr(0, 400);
  const nlohmann::json& w = j["whole_model"];
  EXPECT_EQ(w["bound"], "memory");
  EXPECT_NEAR(w["latency_s"].get<double>(), 0.543e-3, 0.01 * 0.543e-3);
  // 1 / 0.543 ms = 1843 img/s (published), within 1%.
  EXPECT_NEAR(w["throughput_per_s"].get<double>(), 1843, 0.01 * 1843);
  for (const char* key :
       {"intensity", "mfu", "t_compute_s", "t_memory_s", "t_overhead_s"}) {
    EXPECT_TRUE(w.contains(key)) << key;
  }
}

TEST(CliFeatures, WholeModelTextShowsBothLevels) {
  const Result r =
      RunCli({"--zoo", "resnet50", "--hw", "a100", "--whole-model"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "lumped")) << r.out;
}

TEST(CliFeatures, BatchSweepHasOneRowPerPoint) {
  const Result r = RunCli({"--zoo", "resnet50", "--hw", "h100", "--sweep",
                           "batch=1,2,4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& points = j["sweep"]["points"];
  ASSERT_EQ(points.size(), 3u);
  const int batches[] = {1, 2, 4};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(points[i]["batch"], batches[i]);
    // throughput = batch / latency by definition.
    EXPECT_NEAR(points[i]["throughput_per_s"].get<double>(),
                batches[i] / points[i]["latency_s"].get<double>(), 1e-6);
  }
}

TEST(CliFeatures, HardwareSweepTextNamesEveryDevice) {
  const Result r = RunCli({"--zoo", "resnet50", "--hw", "a100", "--precision",
                           "fp16", "--sweep", "hw=a100,h100,h200"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "h200")) << r.out;
}

TEST(CliFeatures, MalformedSweepIsAUsageError) {
  EXPECT_EQ(
      RunCli({"--zoo", "resnet50", "--hw", "h100", "--sweep", "foo=1"}).code,
      1);
}

TEST(CliFeatures, FuseAllSavesTimeAndKeepsLayersUnfused) {
  // Eager runs one kernel per op, so fusing saves launches and traffic.
  const Result plain = RunCli({"--zoo", "resnet50", "--hw", "h100", "--runtime",
                               "eager", "--format", "json"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  const Result r = RunCli({"--zoo", "resnet50", "--hw", "h100", "--runtime",
                           "eager", "--fuse", "all", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json p = nlohmann::json::parse(plain.out);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["layers"].size(), p["layers"].size());
  ASSERT_FALSE(j["groups"].empty());
  // Conv + BN + ReLU epilogues remove a kernel launch each: a saving.
  EXPECT_GT(j["fusion"]["saved_s"].get<double>(), 0);
  EXPECT_LT(j["fusion"]["latency_s"].get<double>(),
            j["fusion"]["latency_unfused_s"].get<double>());
}

TEST(CliFeatures, BadFuseValueIsAUsageError) {
  EXPECT_EQ(
      RunCli({"--zoo", "resnet50", "--hw", "h100", "--fuse", "everything"})
          .code,
      1);
}

TEST(CliFeatures, Int8WeightsShrinkTheModel) {
  const Result r = RunCli({"--zoo", "resnet50", "--hw", "h100", "--precision",
                           "fp16", "--weights", "int8", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& s = j["quantize"]["summary"];
  // fp16 (2 B) -> int8 (1 B + per-channel scales): a bit over half.
  EXPECT_LT(s["model_bytes"].get<double>(),
            0.6 * s["model_bytes_before"].get<double>());
}

TEST(CliFeatures, WhatIfTableHasTheBestRow) {
  const Result r = RunCli({"--zoo", "resnet50", "--hw", "h100", "--what-if"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "best")) << r.out;
}

TEST(CliFeatures, HtmlReportWithTwoRoofs) {
  const std::string path = (TempDir() / "report.html").string();
  const Result r = RunCli({"--zoo", "resnet50", "--hw", "a100,h100", "--format",
                           "html", "-o", path});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = ReadFile(path);
  EXPECT_TRUE(Contains(html, "<svg")) << html.substr(0, 200);
  EXPECT_TRUE(Contains(html, "<html")) << html.substr(0, 200);
}

TEST(CliFeatures, SvgIsThePlotAlone) {
  const std::string path = (TempDir() / "roof.svg").string();
  const Result r = RunCli({kFixtures + "tiny_cnn.onnx", "--hw", "h100",
                           "--format", "svg", "-o", path});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = ReadFile(path);
  EXPECT_TRUE(Contains(svg, "<svg")) << svg.substr(0, 200);
  EXPECT_FALSE(Contains(svg, "<html"));
}

const std::string kSmallCnn = kFixtures + "profile_models/small_cnn.onnx";
const std::string kProfile = kFixtures + "profiles/small_cnn_disabled.json";

TEST(CliFeatures, MeasuredAddsMeasuredAndRatioPerLayer) {
  if (!std::filesystem::exists(kProfile)) GTEST_SKIP() << kProfile;
  const Result r = RunCli({kSmallCnn, "--hw", "epyc-9654", "--measured",
                           kProfile, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("measured"));
  int measured = 0;
  for (const nlohmann::json& l : j["layers"]) {
    EXPECT_TRUE(l.contains("measured_s")) << l;
    EXPECT_TRUE(l.contains("ratio")) << l;
    if (l["measured_s"].is_number()) ++measured;
  }
  EXPECT_GT(measured, 0);
}

TEST(CliFeatures, MeasuredTextAndFitWritesAReadableDevice) {
  if (!std::filesystem::exists(kProfile)) GTEST_SKIP() << kProfile;
  const std::string fitted = (TempDir() / "fitted.json").string();
  const Result r = RunCli({kSmallCnn, "--hw", "epyc-9654", "--measured",
                           kProfile, "--fit", "--fit-out", fitted});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "measured")) << r.out;
  absl::StatusOr<engine::Hardware> hw = engine::LoadHardwareFile(fitted);
  ASSERT_TRUE(hw.ok()) << hw.status();
  // The fitted file is usable as --hw-file.
  EXPECT_EQ(RunCli({kSmallCnn, "--hw-file", fitted}).code, 0);
}

// The fixture trace holds 4 runs of ONNX Runtime (tests/profiles: the
// first one carries the warm-up: allocations, lazy initialization).
TEST(CliFeatures, SkipRunsLeavesWarmUpRunsOutOfTheMeans) {
  if (!std::filesystem::exists(kProfile)) GTEST_SKIP() << kProfile;
  const auto measured = [](const std::string& skip) {
    const Result r =
        RunCli({kSmallCnn, "--hw", "epyc-9654", "--measured", kProfile,
                "--skip-runs", skip, "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out)["measured"];
  };
  const nlohmann::json all = measured("0");
  const nlohmann::json warm = measured("1");
  EXPECT_EQ(all["runs"], 4);
  EXPECT_EQ(warm["runs"], 3);
  // Without the warm-up run the mean run is faster.
  EXPECT_LT(warm["measured_s"].get<double>(), all["measured_s"].get<double>());
  // Skipping every run leaves nothing to measure: an input error naming the
  // profile; without --measured the flag is a usage error.
  const Result none = RunCli({kSmallCnn, "--hw", "epyc-9654", "--measured",
                              kProfile, "--skip-runs", "4"});
  EXPECT_EQ(none.code, 2);
  EXPECT_TRUE(Contains(none.err, kProfile)) << none.err;
  EXPECT_EQ(RunCli({kSmallCnn, "--hw", "h100", "--skip-runs", "1"}).code, 1);
  EXPECT_EQ(RunCli({kSmallCnn, "--hw", "h100", "--measured", kProfile,
                    "--skip-runs", "-1"})
                .code,
            1);
}

TEST(CliFeatures, FitNeedsMeasuredAndFitOut) {
  EXPECT_EQ(RunCli({kSmallCnn, "--hw", "h100", "--fit"}).code, 1);
  EXPECT_EQ(
      RunCli({kSmallCnn, "--hw", "h100", "--measured", kProfile, "--fit"}).code,
      1);
}

TEST(CliFeatures, MissingProfileIsAnInputErrorNamingIt) {
  const Result r =
      RunCli({kSmallCnn, "--hw", "h100", "--measured", "/nonexistent/p.json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Contains(r.err, "/nonexistent/p.json")) << r.err;
}

}  // namespace
}  // namespace ridgeline
