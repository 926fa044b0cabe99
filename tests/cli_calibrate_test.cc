// `calibrate`'s command line (tools/calibrate/options.h, run.h) on the tools'
// shared flag table (tools/cli/flags.h), and its summary table. No test
// here measures the host: every run below stops at a usage error or --help.
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/calibrate/calibrate.h"
#include "tools/calibrate/options.h"
#include "tools/calibrate/run.h"

namespace ridgeline::calibrate {
namespace {

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

Result RunCalibrate(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Result r;
  r.code = CalibrateMain(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// The first line of `text`, without its '\n'.
std::string FirstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

TEST(CalibrateCliTest, BadFlagsAreUsageErrorsNamingTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--bogus"}, "calibrate: unknown flag '--bogus'"},
           {{"--seconds", "abc"},
            "calibrate: --seconds: invalid value 'abc' (expected a number in "
            "[0, 3600])"},
           {{"--seconds=4000"},
            "calibrate: --seconds: invalid value '4000' (expected a number in "
            "[0, 3600])"},
           {{"--threads", "2"},
            "calibrate: --threads: invalid value '2' (expected all|1)"},
           {{"--array-mb", "0.5"},
            "calibrate: --array-mb: invalid value '0.5' (expected a number in "
            "[1, 65536])"},
           {{"--key", ""},
            "calibrate: --key: invalid value '' (expected a non-empty key)"},
           {{"--key"}, "calibrate: --key needs a value (KEY)"},
           {{"--help=yes"}, "calibrate: --help takes no value"},
           {{"host.json"},
            "calibrate: unexpected argument 'host.json' (calibrate takes "
            "flags only)"},
       }) {
    const Result r = RunCalibrate(c.args);
    EXPECT_EQ(r.code, kExitUsage) << ::testing::PrintToString(c.args);
    EXPECT_EQ(FirstLine(r.err), c.message);
    EXPECT_NE(r.err.find("\nusage: calibrate [-o FILE]"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");  // nothing measured, nothing written
  }
}

TEST(CalibrateCliTest, FlagsAreParsedOnceTyped) {
  absl::StatusOr<CalibrateArgs> a =
      ParseCalibrateArgs({"--seconds=2.5", "--threads", "1", "--array-mb", "8",
                          "--key", "box", "--output", "box.json"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_FALSE(a->help);
  EXPECT_EQ(a->output, "box.json");
  EXPECT_EQ(a->measure.seconds, 2.5);
  EXPECT_EQ(a->measure.entry_threads, 1);
  EXPECT_EQ(a->measure.array_bytes, size_t{8} << 20);
  EXPECT_EQ(a->measure.key, "box");

  absl::StatusOr<CalibrateArgs> defaults = ParseCalibrateArgs({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->output, "");
  EXPECT_EQ(defaults->measure.seconds, 10);
  EXPECT_EQ(defaults->measure.entry_threads, 0);  // all
  EXPECT_EQ(defaults->measure.array_bytes, size_t{256} << 20);
  EXPECT_EQ(defaults->measure.key, "host");
}

TEST(CalibrateCliTest, HelpIsWrittenByTheFlagTable) {
  for (const char* flag : {"--help", "-h"}) {
    const Result r = RunCalibrate({flag});
    EXPECT_EQ(r.code, kExitOk);
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("\n  -o, --output FILE    write the entry to FILE"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\n  --threads all|1      whose numbers go"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\n  -h, --help           print this help and exit\n"),
              std::string::npos)
        << r.out;
  }
}

TEST(CalibrateCliTest, SummaryIsOneTextTable) {
  HostInfo info{
      .cpu_model = "Test CPU", .memory_bytes = 64e9, .hardware_threads = 16};
  Measurements m;
  m.hardware_threads = 16;
  m.flops_1 = {
      .threads = 1, .flops_per_s = 224e9, .isa = "avx2 fma", .repetitions = 12};
  m.flops_all = {.threads = 16,
                 .flops_per_s = 3.1e12,
                 .isa = "avx2 fma",
                 .repetitions = 4};
  m.bandwidth_1 = {.threads = 1,
                   .bytes_per_s = 30e9,
                   .median_bytes_per_s = 29.5e9,
                   .passes = 8};
  m.bandwidth_all = {.threads = 16,
                     .bytes_per_s = 120e9,
                     .median_bytes_per_s = 115e9,
                     .passes = 6};
  m.load_average = "0.50 0.40 0.30 1/200 99";
  // Written by hand: columns two spaces apart, numbers right-aligned, three
  // significant digits with decimal prefixes.
  const std::string expected =
      "host  Test CPU (16 hardware threads, 64.0 GB memory)\n"
      "measurement      threads          best     median  runs  kernel\n"
      "---------------  -------  ------------  ---------  ----  ------------\n"
      "fp32 FMA peak          1   224 GFLOP/s          -    12  avx2 fma\n"
      "fp32 FMA peak         16  3.10 TFLOP/s          -     4  avx2 fma\n"
      "triad bandwidth        1     30.0 GB/s  29.5 GB/s     8  STREAM triad\n"
      "triad bandwidth       16      120 GB/s   115 GB/s     6  STREAM triad\n"
      "conventions            best and median of the runs; 1 FMA = 2 FLOPs; "
      "triad bytes as STREAM counts them (24 per element); decimal prefixes "
      "(1 GB = 1e9 B)\n"
      "load average at start  0.50 0.40 0.30 1/200 99\n";
  EXPECT_EQ(FormatMeasurements(info, m), expected);
}

}  // namespace
}  // namespace ridgeline::calibrate
