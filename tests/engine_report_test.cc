// Report writers on the toy analysis (tests/engine_test_util.h): the JSON
// schema of engine/report/JSON_SCHEMA.md, CSV rows, table and Markdown
// sections, and the unit formatting.
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "engine/report/json.h"
#include "engine/report/report.h"
#include "engine/report/sections.h"
#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/engine_test_util.h"

namespace ridgeline::engine::report {
namespace {

Analysis ToyAnalysis() {
  static const graph::Graph* g = new graph::Graph(testing::ToyGraph());
  static const CounterRegistry* r = new CounterRegistry(testing::ToyRegistry());
  AnalyzeOptions o = testing::ToyOptions();
  o.registry = r;
  absl::StatusOr<Analysis> a = Analyze(*g, testing::ToyHardware(), o);
  EXPECT_TRUE(a.ok()) << a.status();
  Analysis out = *a;
  out.model = "toy.onnx";
  return out;
}

std::string Render(Format f, ReportOptions opts = {}) {
  std::ostringstream out;
  WriteReport(ToyAnalysis(), f, opts, out);
  return out.str();
}

bool Contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(UnitsTest, HumanUnits) {
  EXPECT_EQ(FormatSi(4.09e9, "FLOP"), "4.09 GFLOP");
  EXPECT_EQ(FormatSi(25.6e6, "B"), "25.6 MB");
  EXPECT_EQ(FormatSi(999.6, "B"), "1.00 kB");
  EXPECT_EQ(FormatSi(3.35e12, "B/s"), "3.35 TB/s");
  EXPECT_EQ(FormatSi(0, "B"), "0 B");
  EXPECT_EQ(FormatSeconds(1.5e-5), "15.0 us");
  EXPECT_EQ(FormatSeconds(0.0123), "12.3 ms");
  EXPECT_EQ(FormatSeconds(2.5), "2.50 s");
  EXPECT_EQ(FormatSeconds(5e-9), "5.00 ns");
  // Negative values (a what-if that costs time) keep three digits too.
  EXPECT_EQ(FormatSeconds(-527.53e-9), "-528 ns");
  EXPECT_EQ(FormatSeconds(-0.0123), "-12.3 ms");
  EXPECT_EQ(FormatSi(-25.6e6, "B"), "-25.6 MB");
  EXPECT_EQ(FormatNumber(0.25), "0.250");
  EXPECT_EQ(FormatNumber(72.8), "72.8");
  EXPECT_EQ(FormatNumber(1843.2), "1843");
  EXPECT_EQ(FormatPercent(0.1234), "12.3%");
}

// The formatters the what-if, measured and fit tables used to keep apart
// (what_if_format, measured_report's FormatDuration, fit's "ms").
TEST(UnitsTest, OneModuleForEveryTable) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::nan("");
  EXPECT_EQ(FormatSi(inf, "B"), "n/a");
  EXPECT_EQ(FormatSi(nan, "FLOP"), "n/a");
  EXPECT_EQ(FormatSeconds(-inf), "n/a");
  EXPECT_EQ(FormatSpeedup(1.234), "1.23x");
  EXPECT_EQ(FormatSpeedup(nan), "n/a");
  EXPECT_EQ(FormatDuration(2.5), "2.500 s");
  EXPECT_EQ(FormatDuration(0.0012), "1.200 ms");
  EXPECT_EQ(FormatDuration(4.5e-5), "45.0 us");
  EXPECT_EQ(FormatDuration(nan), "-");
  EXPECT_EQ(FormatMilliseconds(2.5e-5), "0.025 ms");
  EXPECT_EQ(FormatMilliseconds(1.5), "1500.000 ms");
  EXPECT_EQ(FormatShare(1, 4), "25.0%");
  EXPECT_EQ(FormatShare(1, 0), "-");
  EXPECT_EQ(FormatShare(1, 40000), "0.00250%");
}

TEST(TextTableTest, ItemsPadLabelsToOneColumn) {
  const Items items = {{"latency", "1.00 ms"}, {"bound", "memory"}};
  // "latency" is 7 wide: "bound" gets 2 spaces of padding, then 2 apart.
  EXPECT_EQ(RenderItems(items, "  "),
            "  latency  1.00 ms\n"
            "  bound    memory\n");
  // At least min_width: values of several blocks line up.
  EXPECT_EQ(RenderItems({{"a", "1"}}, "", 4), "a     1\n");
  // Model text is escaped; an empty value leaves no trailing spaces.
  EXPECT_EQ(RenderItems({{"x\x1b[2J", ""}, {"y", "2"}}, ""),
            "x\\x1b[2J\n"
            "y         2\n");
}

// Prose values wrap at spaces within max_width, continuation lines starting
// in the value column. "  source  " puts the value at column 10; at
// max_width 50 a line holds 40 columns of value (kMinItemValueWidth, also
// the floor when max_width leaves less).
TEST(TextTableTest, ItemsWrapLongValuesIntoTheValueColumn) {
  const std::string ten = "aaaaaaaaa ";  // 9 letters + a space
  const std::string value = ten + ten + ten + ten + ten + "end";
  // 5 x 10 + 3 = 53 columns: "aaaaaaaaa" x 4 joined by spaces is 39 wide,
  // the 5th word would make 49 > 40, so it starts the next line.
  const std::string first = ten + ten + ten + "aaaaaaaaa";
  const std::string pad(10, ' ');
  EXPECT_EQ(RenderItems({{"source", value}}, "  ", 0, 50),
            "  source  " + first + "\n" + pad + "aaaaaaaaa end\n");
  // A line that fits, or no max_width, is one line as before.
  EXPECT_EQ(RenderItems({{"source", "short"}}, "  ", 0, 50),
            "  source  short\n");
  EXPECT_EQ(RenderItems({{"source", value}}, "  "),
            "  source  " + value + "\n");
  // A word wider than the room stays whole on its own line.
  const std::string url(60, 'u');
  EXPECT_EQ(RenderItems({{"source", "see " + url + " here"}}, "  ", 0, 50),
            "  source  see\n" + pad + url + "\n" + pad + "here\n");
}

// A table wider than max_width: the name column (left-aligned) shrinks
// first down to 12 columns; the shape column marked `keep` and the
// right-aligned numbers are never cut. Widths by hand: name 32, shape 13,
// bytes 7, two spaces apart: 56 columns.
TEST(TextTableTest, NamesShrinkFirstNumbersAreNeverCut) {
  TextTable t;
  t.headers = {"name", "shape", "bytes"};
  t.right_align = {false, false, true};
  t.keep = {false, true, false};
  t.rows = {{"/model/layers.0/self_attn/MatMul", "[1,512,28,28]", "2.60 MB"}};
  t.max_width = 56;
  EXPECT_EQ(RenderText(t),
            "name                              shape            bytes\n"
            "--------------------------------  -------------  -------\n"
            "/model/layers.0/self_attn/MatMul  [1,512,28,28]  2.60 MB\n");
  // 40 columns: the name gets 40 - 2 - 13 - 2 - 7 = 16, elided in the
  // middle: 13 characters kept, a third (4) of the head, 9 of the tail.
  t.max_width = 40;
  EXPECT_EQ(RenderText(t),
            "name              shape            bytes\n"
            "----------------  -------------  -------\n"
            "/mod...tn/MatMul  [1,512,28,28]  2.60 MB\n");
  // 30 columns: the name stops at 12 (3 + ... + 6); with the indent the
  // table is 2 + 12 + 2 + 13 + 2 + 7 = 38 wide: the shape and the number
  // stay whole and one note under the table says so.
  t.max_width = 30;
  EXPECT_EQ(RenderText(t, "  "),
            "  name          shape            bytes\n"
            "  ------------  -------------  -------\n"
            "  /mo...MatMul  [1,512,28,28]  2.60 MB\n"
            "  (wider than 30 columns: numbers are never cut)\n");
  EXPECT_EQ(OverflowNote(30), "(wider than 30 columns: numbers are never cut)");
}

TEST(ReportTest, RidgePoints) {
  const Analysis a = ToyAnalysis();
  // 1000 FLOP/s / 100 B/s = 10 FLOP/B; effective 0.5 x 1000 / (1 x 100) = 5.
  EXPECT_DOUBLE_EQ(RidgePoint(a), 10);
  EXPECT_DOUBLE_EQ(EffectiveRidgePoint(a), 5);
}

TEST(ReportTest, JsonFollowsTheSchema) {
  const nlohmann::json j = nlohmann::json::parse(Render(Format::kJson));
  for (const char* key :
       {"model", "hardware", "assumptions", "layers", "summary"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["model"], "toy.onnx");
  EXPECT_EQ(j["hardware"]["key"], "toy");
  EXPECT_EQ(j["hardware"]["peak_flops_per_s"]["fp32"], 1000.0);
  const auto& as = j["assumptions"];
  EXPECT_EQ(as["flops_per_mac"], 2.0);
  EXPECT_EQ(as["compute_efficiency"], 0.5);
  EXPECT_EQ(as["memory_efficiency"], 1.0);
  EXPECT_EQ(as["per_layer_tax_s"], 1.0);
  EXPECT_EQ(as["dispatch_tax_s"], 0.5);
  EXPECT_EQ(as["peak_precision"], "fp32");
  EXPECT_EQ(as["ridge_point_flop_per_byte"], 10.0);

  ASSERT_EQ(j["layers"].size(), 4u);  // every layer, the view included
  for (const auto& layer : j["layers"]) {
    for (const char* key :
         {"name", "op", "domain", "inputs", "outputs", "macs", "flops",
          "bytes_read", "bytes_written", "bytes", "intensity", "t_compute_s",
          "t_memory_s", "t_overhead_s", "latency_s", "bound"}) {
      EXPECT_TRUE(layer.contains(key)) << key;
    }
  }
  const auto& a = j["layers"][0];
  EXPECT_EQ(a["name"], "a");
  EXPECT_EQ(a["inputs"][0]["name"], "x");
  EXPECT_EQ(a["inputs"][0]["shape"], nlohmann::json::array({10}));
  EXPECT_EQ(a["inputs"][0]["dtype"], "float32");
  EXPECT_EQ(a["latency_s"], 5.0);  // seconds, see engine_analysis_test.cc
  EXPECT_EQ(a["bound"], "compute");
  EXPECT_EQ(j["layers"][1]["bound"], "none");  // the view

  const auto& s = j["summary"];
  for (const char* key : {"layers", "macs", "flops", "bytes", "params",
                          "weight_bytes", "latency_s", "throughput_per_s",
                          "mfu", "bound", "unknown_ops", "unresolved"}) {
    EXPECT_TRUE(s.contains(key)) << key;
  }
  EXPECT_EQ(s["layers"], 3);
  EXPECT_DOUBLE_EQ(s["latency_s"].get<double>(), 15.6);
  EXPECT_EQ(s["bound"], "memory");
  EXPECT_TRUE(s["unknown_ops"].is_array());
}

TEST(ReportTest, CsvHasOneRowPerLayer) {
  const std::string csv = Render(Format::kCsv);
  std::istringstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u);  // header + 4 layers
  EXPECT_EQ(lines[0].rfind("index,name,op,domain,output_shape,macs,flops,", 0),
            0u);
  EXPECT_TRUE(Contains(lines[1], ",compute")) << lines[1];
  // The shape has commas, so it is quoted.
  EXPECT_TRUE(Contains(lines[2], "\"[4,5]\"")) << lines[2];
}

TEST(ReportTest, TableHasLayersSummaryRooflineAndAssumptions) {
  ReportOptions top1;
  top1.top = 1;
  const std::string t = Render(Format::kTable, top1);
  for (const char* what :
       {"Summary", "Roofline", "Assumptions", "ridge point",
        "effective ridge point", "memory-bound layers", "FLOPs per MAC",
        "dispatch tax", "other (2 layers)", "zero-latency views (1: V x1)",
        "per-layer tax", "hardware source", "round numbers for tests"}) {
    EXPECT_TRUE(Contains(t, what)) << what << "\n" << t;
  }
  // Top 1 by latency is b (9 s).
  EXPECT_TRUE(Contains(t, "9.00 s")) << t;

  ReportOptions all;
  all.all_layers = true;
  const std::string every = Render(Format::kTable, all);
  EXPECT_FALSE(Contains(every, "zero-latency views ("));
  EXPECT_FALSE(Contains(every, "other ("));
}

TEST(ReportTest, MarkdownTable) {
  const std::string md = Render(Format::kMarkdown);
  EXPECT_EQ(md.rfind("# toy.onnx on Toy accelerator", 0), 0u) << md;
  EXPECT_TRUE(Contains(md, "| # | name | op |")) << md;
  EXPECT_TRUE(Contains(md, "## Assumptions"));
}

TEST(ReportTest, ParseFormat) {
  EXPECT_EQ(*ParseFormat("md"), Format::kMarkdown);
  EXPECT_EQ(*ParseFormat("json"), Format::kJson);
  EXPECT_FALSE(ParseFormat("xml").ok());
}

}  // namespace
}  // namespace ridgeline::engine::report
