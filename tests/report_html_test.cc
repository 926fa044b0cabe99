// Unit tests of the HTML and SVG report writers (engine/report/html.h,
// svg.h), on hand-built analyses: no importer, no counters.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/analysis.h"
#include "engine/report/bars.h"
#include "engine/report/html.h"
#include "engine/report/line_chart.h"
#include "engine/report/svg.h"
#include "engine/report/xml_escape.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ridgeline::engine::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(std::string_view text, std::string_view needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string_view::npos;
       pos = text.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

// The opening tag of the <circle> whose data-name is `name` (escaped form).
std::string CircleTag(const std::string& svg, const std::string& name) {
  const size_t at = svg.find("data-name=\"" + name + "\"");
  if (at == std::string::npos) return "";
  const size_t open = svg.rfind("<circle", at);
  const size_t close = svg.find('>', at);
  return svg.substr(open, close - open + 1);
}

std::string AttrOf(const std::string& tag, const std::string& attr) {
  const std::string key = " " + attr + "=\"";
  const size_t start = tag.find(key);
  if (start == std::string::npos) return "<absent>";
  const size_t value = start + key.size();
  const size_t end = tag.find('"', value);
  if (end == std::string::npos) return "<absent>";
  return tag.substr(value, end - value);
}

LayerResult Layer(int node, std::string name, std::string op, double flops,
                  double bytes, double t_compute, double t_memory, double tax,
                  Bound bound) {
  LayerResult l;
  l.node = node;
  l.name = std::move(name);
  l.op_type = std::move(op);
  l.flops = flops;
  l.bytes = bytes;
  l.intensity = bytes > 0 ? flops / bytes : 0;
  l.t_compute_s = t_compute;
  l.t_memory_s = t_memory;
  l.t_overhead_s = tax;
  l.latency_s = std::max(t_compute, t_memory) + tax;
  l.bound = bound;
  return l;
}

// A toy device: 100 TFLOP/s fp16, 1 TB/s, so the ridge point is
// 1e14 / 1e12 = 100 FLOP/byte; at 50% compute efficiency the effective roof
// is 5e13 FLOP/s and the effective ridge 5e13 / 1e12 = 50 FLOP/byte.
// Layers (compute time = flops / 5e13, memory time = bytes / 1e12, tax 10 us):
//   conv1: 2e9 FLOP, 2e7 B: intensity 100, t_c 40 us, t_m 20 us,
//          latency 50 us, attained 2e9 / 50e-6 = 4e13 FLOP/s
//   relu1: 1e6 FLOP, 8e6 B: intensity 0.125, t_m 8 us, latency 18 us
//   flat : Reshape, a view (no point, no row)
//   fc   : 4e6 FLOP, 8e6 B: intensity 0.5, t_m 8 us, latency 18 us,
//          attained 4e6 / 18e-6 = 2.222e11 FLOP/s
//   add<&"'>: 1e3 FLOP, 1.2e4 B: t_m 12 ns, the 10 us tax dominates
// Total latency 50 + 18 + 18 + 10.012 = 96.012 us (no dispatch tax).
Analysis ToyAnalysis(std::string key = "toy", std::string name = "Toy GPU") {
  Analysis a;
  a.model = "toy-net";
  a.hardware.key = key;
  a.hardware.name = name;
  a.hardware.memory_capacity_bytes = 16e9;
  a.assumptions.flops_per_mac = 2;
  a.assumptions.compute_efficiency = 0.5;
  a.assumptions.memory_efficiency = 1.0;
  a.assumptions.per_layer_tax_s = 10e-6;
  a.assumptions.precision = "model dtypes";
  a.assumptions.peak_precision = "fp16";
  a.assumptions.peak_flops_per_s = 1e14;
  a.assumptions.memory_bandwidth_bytes_per_s = 1e12;
  a.layers.push_back(Layer(0, "conv1", "Conv", 2e9, 2e7, 40e-6, 20e-6, 10e-6,
                           Bound::kCompute));
  a.layers.push_back(Layer(1, "relu1", "Relu", 1e6, 8e6, 0.02e-6, 8e-6, 10e-6,
                           Bound::kMemory));
  LayerResult view;
  view.node = 2;
  view.name = "flat";
  view.op_type = "Reshape";
  view.cost.view = true;
  a.layers.push_back(view);
  a.layers.push_back(
      Layer(3, "fc", "Gemm", 4e6, 8e6, 0.08e-6, 8e-6, 10e-6, Bound::kMemory));
  a.layers.push_back(Layer(4, "add<&\"'>", "Add", 1e3, 1.2e4, 0.02e-9, 12e-9,
                           10e-6, Bound::kOverhead));
  TensorInfo in{.name = "x", .dims = {1, 3, 8, 8}, .shape_known = true};
  TensorInfo out{.name = "y", .dims = {1, 16, 8, 8}, .shape_known = true};
  a.layers[0].inputs = {in};
  a.layers[0].outputs = {out};
  a.summary.layers = 4;
  a.summary.view_layers = 1;
  a.summary.flops = 2e9 + 1e6 + 4e6 + 1e3;
  a.summary.latency_s = 96.012e-6;
  a.summary.throughput_per_s = 1 / 96.012e-6;
  a.summary.bound = Bound::kCompute;
  return a;
}

// Explicit axes: x 0.1..1000 FLOP/B (4 decades), y 1e10..1e14 FLOP/s
// (4 decades). Default size 960 x 600 and margins 78/24/40/54 make the plot
// area x 78..936 (858 px) and y 40..546 (506 px).
SvgOptions FixedAxes() {
  SvgOptions o;
  o.x_min = 0.1;
  o.x_max = 1000;
  o.y_min = 1e10;
  o.y_max = 1e14;
  return o;
}

TEST(XmlEscapeTest, EscapesMarkupAndRepairsBadText) {
  EXPECT_EQ(EscapeXml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(EscapeXml("µs ok\ttab"), "µs ok\ttab");
  // Invalid UTF-8 and a control character become U+FFFD.
  EXPECT_EQ(EscapeXml("x\xff y\x01"), "x\xEF\xBF\xBD y\xEF\xBF\xBD");
  // Overlong encoding of '/' (0xC0 0xAF) is not valid UTF-8.
  EXPECT_EQ(EscapeXml("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(RooflineSvgTest, OneCirclePerNonViewLayer) {
  const Analysis a = ToyAnalysis();
  const std::string svg = RenderRooflineSvg({&a}, SvgOptions{});
  // 5 layers, one of them a view.
  EXPECT_EQ(Count(svg, "<circle"), 4u);
  EXPECT_EQ(Count(svg, "class=\"pt"), 4u);
  EXPECT_THAT(svg, HasSubstr("data-name=\"conv1\""));
  EXPECT_THAT(svg, Not(HasSubstr("data-name=\"flat\"")));
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  // Hover text and data attributes of conv1.
  const std::string tag = CircleTag(svg, "conv1");
  EXPECT_EQ(AttrOf(tag, "data-op"), "Conv");
  EXPECT_EQ(AttrOf(tag, "data-bound"), "compute");
  EXPECT_EQ(AttrOf(tag, "data-flops"), "2000000000");
  EXPECT_EQ(AttrOf(tag, "data-bytes"), "20000000");
  EXPECT_EQ(AttrOf(tag, "data-latency-s"), "5e-05");
  // '>' is escaped in attributes and text alike.
  EXPECT_EQ(AttrOf(tag, "data-shapes"), "[1,3,8,8] -&gt; [1,16,8,8]");
  EXPECT_THAT(svg,
              HasSubstr("<title>conv1\nConv\nshapes: [1,3,8,8] -&gt; "
                        "[1,16,8,8]\n2.00 GFLOP | 20.0 MB | 100 FLOP/byte"));
  // A layer without tensor information has no shapes.
  EXPECT_EQ(AttrOf(CircleTag(svg, "fc"), "data-shapes"), "");
}

TEST(RooflineSvgTest, EscapesLayerNames) {
  Analysis a = ToyAnalysis();
  a.layers[1].name = "</title><script>alert(1)</script>";
  const std::string svg = RenderRooflineSvg({&a}, SvgOptions{});
  EXPECT_THAT(svg, Not(HasSubstr("<script>")));
  EXPECT_THAT(svg, Not(HasSubstr("add<&")));
  EXPECT_THAT(svg, HasSubstr("data-name=\"add&lt;&amp;&quot;&#39;&gt;\""));
  EXPECT_THAT(svg, HasSubstr("&lt;/title&gt;&lt;script&gt;alert(1)"));
}

TEST(RooflineSvgTest, LogScalePositionsByHand) {
  const Analysis a = ToyAnalysis();
  const std::string svg = RenderRooflineSvg({&a}, FixedAxes());
  // conv1: x = 78 + (log10(100) - log10(0.1)) / 4 * 858 = 78 + 0.75 * 858
  //          = 721.50
  //        y = 546 - (log10(4e13) - 10) / 4 * 506
  //          = 546 - (3.60206 / 4) * 506 = 546 - 455.66 = 90.34
  const std::string conv = CircleTag(svg, "conv1");
  EXPECT_EQ(AttrOf(conv, "cx"), "721.50");
  EXPECT_EQ(AttrOf(conv, "cy"), "90.34");
  // fc: x = 78 + (log10(0.5) + 1) / 4 * 858 = 78 + 0.174743 * 858 = 227.93
  //     y = 546 - (log10(2.2222e11) - 10) / 4 * 506
  //       = 546 - 0.336697 * 506 = 546 - 170.37 = 375.63
  const std::string fc = CircleTag(svg, "fc");
  EXPECT_EQ(AttrOf(fc, "cx"), "227.93");
  EXPECT_EQ(AttrOf(fc, "cy"), "375.63");
  // Radii: area proportional to share of latency; the largest (conv1,
  // 50 us) gets 15 px, fc (18 us) 15 * sqrt(18 / 50) = 15 * 0.6 = 9 px.
  EXPECT_EQ(AttrOf(conv, "r"), "15.00");
  EXPECT_EQ(AttrOf(fc, "r"), "9.00");
  // Peak roof min(1e14, 1e12 * x): at x = 0.1 it is 1e11 -> y = 546 -
  // (1/4) * 506 = 419.50; the ridge (100, 1e14) is at (721.50, 40.00); flat
  // to the right edge (936.00, 40.00).
  EXPECT_THAT(svg, HasSubstr("points=\"78.00,419.50 721.50,40.00 "
                             "936.00,40.00\""));
  // Effective roof min(5e13, 1e12 * x): ridge at x = 50:
  //   x = 78 + (log10(50) + 1) / 4 * 858 = 78 + 0.674743 * 858 = 656.93
  //   y = 546 - (log10(5e13) - 10) / 4 * 506 = 546 - 0.924743 * 506 = 78.08
  EXPECT_THAT(svg, HasSubstr("points=\"78.00,419.50 656.93,78.08 "
                             "936.00,78.08\""));
  // Decade tick labels on both axes.
  for (const char* label : {">0.1<", ">1<", ">10<", ">100<", ">1k<", ">10G<",
                            ">100G<", ">1T<", ">10T<", ">100T<"}) {
    EXPECT_THAT(svg, HasSubstr(label));
  }
  EXPECT_THAT(svg, HasSubstr("Arithmetic intensity (FLOP/byte, log scale)"));
  EXPECT_THAT(svg, HasSubstr("Attained performance (FLOP/s, log scale)"));
}

TEST(RooflineSvgTest, AutomaticAxesEncloseLayersAndRoofs) {
  const Analysis a = ToyAnalysis();
  const RooflineAxes axes = ChooseRooflineAxes({&a}, SvgOptions{});
  // Smallest intensity 1e3 / 1.2e4 = 0.083 -> decade 0.01; largest of
  // 3 x the largest of (intensity 100, ridge 100) = 300 -> 1000.
  EXPECT_DOUBLE_EQ(axes.x_min, 0.01);
  EXPECT_DOUBLE_EQ(axes.x_max, 1000);
  // Smallest attained 1e3 / 10.012e-6 = 9.99e7 -> 1e7; largest of (4e13,
  // 1.8 x peak 1e14 = 1.8e14) -> 1e15.
  EXPECT_DOUBLE_EQ(axes.y_min, 1e7);
  EXPECT_DOUBLE_EQ(axes.y_max, 1e15);
}

TEST(RooflineSvgTest, ZeroFlopLayerIsClampedToTheEdge) {
  Analysis a = ToyAnalysis();
  a.layers.push_back(Layer(5, "transpose", "Transpose", 0, 4e6, 0, 4e-6, 10e-6,
                           Bound::kMemory));
  const std::string svg = RenderRooflineSvg({&a}, FixedAxes());
  EXPECT_EQ(Count(svg, "<circle"), 5u);
  const std::string tag = CircleTag(svg, "transpose");
  EXPECT_EQ(AttrOf(tag, "class"), "pt clamped");
  EXPECT_EQ(AttrOf(tag, "data-clamped"), "1");
  EXPECT_EQ(AttrOf(tag, "cx"), "78.00");   // left edge
  EXPECT_EQ(AttrOf(tag, "cy"), "546.00");  // bottom edge
}

TEST(RooflineSvgTest, SkippedLayersAreNotDrawn) {
  Analysis a = ToyAnalysis();
  LayerResult skipped;
  skipped.node = 9;
  skipped.name = "mystery";
  skipped.op_type = "Conv";
  skipped.skipped = true;
  a.layers.push_back(skipped);
  const std::string svg = RenderRooflineSvg({&a}, SvgOptions{});
  EXPECT_EQ(Count(svg, "<circle"), 4u);
}

TEST(RooflineSvgTest, TwoDevicesDrawTwoRoofsAndALegend) {
  const Analysis a = ToyAnalysis();
  Analysis b = ToyAnalysis("big", "Big GPU");
  b.assumptions.peak_flops_per_s = 4e14;
  b.assumptions.memory_bandwidth_bytes_per_s = 2e12;
  const std::string svg = RenderRooflineSvg({&a, &b}, SvgOptions{});
  EXPECT_EQ(Count(svg, "class=\"roof-peak\""), 2u);
  EXPECT_EQ(Count(svg, "class=\"roof-effective\""), 2u);
  EXPECT_EQ(Count(svg, "class=\"ridge\""), 2u);
  EXPECT_EQ(Count(svg, "<g class=\"points\" data-device=\"toy\""), 1u);
  EXPECT_EQ(Count(svg, "<g class=\"points\" data-device=\"big\""), 1u);
  // 4 points per device.
  EXPECT_EQ(Count(svg, "<circle"), 8u);
  // Legend lines name both devices; ridge of Big GPU = 4e14 / 2e12 = 200.
  EXPECT_THAT(svg,
              HasSubstr("Toy GPU: 100 TFLOP/s fp16, 1.00 TB/s, ridge 100"));
  EXPECT_THAT(svg,
              HasSubstr("Big GPU: 400 TFLOP/s fp16, 2.00 TB/s, ridge 200"));
}

TEST(RooflineSvgTest, DecadeLabels) {
  EXPECT_EQ(DecadeLabel(-2), "0.01");
  EXPECT_EQ(DecadeLabel(0), "1");
  EXPECT_EQ(DecadeLabel(2), "100");
  EXPECT_EQ(DecadeLabel(3), "1k");
  EXPECT_EQ(DecadeLabel(13), "10T");
  EXPECT_EQ(DecadeLabel(15), "1P");
}

TEST(FillTemplateTest, OnePassAndUnknownKeysKept) {
  EXPECT_EQ(FillTemplate("<{{A}}|{{B}}|{{C}}>", {{"A", "{{B}}"}, {"B", "b"}}),
            "<{{B}}|b|{{C}}>");
  EXPECT_EQ(FillTemplate("x {{ y", {}), "x {{ y");
}

HtmlReportInput ToyInput(const Analysis& a) {
  HtmlReportInput in;
  in.primary = &a;
  in.generator = "analyze toy.onnx --hw toy --format html";
  return in;
}

TEST(HtmlReportTest, SelfContainedWithAllSections) {
  const Analysis a = ToyAnalysis();
  const std::string html = RenderHtmlReport(ToyInput(a));
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, Not(HasSubstr("{{")));  // every placeholder filled
  for (const char* id :
       {"id=\"summary\"", "id=\"assumptions\"", "id=\"roofline\"",
        "id=\"breakdown\"", "id=\"top\"", "id=\"layers\"",
        "id=\"layer-filter\"", "id=\"layer-table\"", "<style>", "<script>"}) {
    EXPECT_THAT(html, HasSubstr(id));
  }
  EXPECT_EQ(Count(html, "<circle"), 4u);
  // Layer rows carry data-search; 4 non-view layers, the view collapsed.
  EXPECT_EQ(Count(html, "data-search="), 4u);
  EXPECT_THAT(html, HasSubstr("1 view layers (Reshape x1)"));
  // No network: the only URL is the SVG namespace (an identifier, never
  // fetched); no external scripts, styles or fonts.
  std::string stripped = html;
  for (size_t p; (p = stripped.find("http://www.w3.org/2000/svg")) !=
                 std::string::npos;) {
    stripped.erase(p, 26);
  }
  EXPECT_THAT(stripped, Not(HasSubstr("http:")));
  EXPECT_THAT(stripped, Not(HasSubstr("https:")));
  EXPECT_THAT(stripped, Not(HasSubstr("<link")));
  EXPECT_THAT(stripped, Not(HasSubstr(" src=")));
  EXPECT_THAT(stripped, Not(HasSubstr("@import")));
  EXPECT_THAT(stripped, Not(HasSubstr("@font-face")));
  // The assumptions are spelled out.
  EXPECT_THAT(html, HasSubstr("FLOPs per MAC"));
  EXPECT_THAT(html, HasSubstr("per-layer tax"));
  // Sortable headers with column keys.
  EXPECT_THAT(html, HasSubstr("<th data-key=\"latency_s\" data-type=\"num\""));
  EXPECT_THAT(html, HasSubstr("<th data-key=\"name\" data-type=\"text\""));
}

TEST(HtmlReportTest, EscapesModelStrings) {
  Analysis a = ToyAnalysis();
  a.model = "<b>model</b>";
  a.layers[0].name = "</script><script>alert(1)</script>";
  a.layers[1].name = "{{TITLE}}";
  a.layers[1].op_type = "Op\"><img onerror=x>";
  a.summary.unknown_ops = {"evil:<Op>"};
  const std::string html = RenderHtmlReport(ToyInput(a));
  EXPECT_THAT(html, Not(HasSubstr("<script>alert")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("<b>model")));
  EXPECT_THAT(html, HasSubstr("&lt;/script&gt;&lt;script&gt;alert(1)"));
  EXPECT_THAT(html, HasSubstr("&lt;b&gt;model&lt;/b&gt;"));
  EXPECT_THAT(html, HasSubstr("evil:&lt;Op&gt;"));
  // A name that looks like a placeholder is text, not substituted.
  EXPECT_THAT(html, HasSubstr("data-name=\"{{TITLE}}\""));
  // Exactly one <script> element: the report's own.
  EXPECT_EQ(Count(html, "<script"), 1u);
}

TEST(HtmlReportTest, OtherDevicesAndExtraSections) {
  const Analysis a = ToyAnalysis();
  Analysis b = ToyAnalysis("big", "Big GPU");
  b.assumptions.peak_flops_per_s = 4e14;
  HtmlReportInput in = ToyInput(a);
  in.other_hardware = {&b};
  in.comparisons.push_back(
      {.title = "Whole model",
       .columns = {"configuration", "latency"},
       .rows = {{"as is", "96.0 us"}, {"fused <all>", "60.0 us"}}});
  BeforeAfterChart chart{
      .title = "Fusion", .before_label = "unfused", .after_label = "fused"};
  chart.bars.push_back(
      {.label = "conv1+relu1", .before_s = 68e-6, .after_s = 50e-6});
  chart.bars.push_back({.label = "total", .before_s = 96e-6, .after_s = 78e-6});
  in.before_after.push_back(chart);
  in.sections.push_back(
      {.title = "Quantization settings", .rows = {{"weights", "int8"}}});
  const std::string html = RenderHtmlReport(in);
  EXPECT_EQ(Count(html, "<circle"), 8u);
  // The page shows the first device's points; a check box shows the others.
  EXPECT_THAT(html, HasSubstr("<g class=\"points\" data-device=\"toy\">"));
  EXPECT_THAT(
      html,
      HasSubstr("<g class=\"points\" data-device=\"big\" display=\"none\">"));
  EXPECT_THAT(html, HasSubstr("<input type=\"checkbox\" data-device=\"big\">"));
  EXPECT_THAT(html, HasSubstr("id=\"devices\""));
  EXPECT_THAT(html, HasSubstr("data-key=\"latency_s@big\""));
  EXPECT_THAT(html, HasSubstr("title=\"Latency of the layer on Big GPU\""));
  EXPECT_EQ(Count(html, "class=\"pair\""), 2u);
  EXPECT_THAT(html, HasSubstr("fused &lt;all&gt;"));
  EXPECT_THAT(html, HasSubstr("<dt>weights</dt><dd>int8</dd>"));
  EXPECT_THAT(html, HasSubstr("href=\"#before-after-0\">Fusion</a>"));
}

TEST(HtmlReportTest, WithoutAnalysisStillAPage) {
  const std::string html = RenderHtmlReport(HtmlReportInput{});
  EXPECT_THAT(html, HasSubstr("no analysis was given"));
  EXPECT_THAT(html, Not(HasSubstr("{{")));
}

TEST(BarsTest, BeforeAfterSavingsByHand) {
  BeforeAfterChart chart;
  chart.bars.push_back({.label = "g", .before_s = 40e-6, .after_s = 30e-6});
  const std::string svg = RenderBeforeAfterSvg(chart, 800);
  // Saving 40 - 30 = 10 us = 25% of 40 us.
  EXPECT_THAT(svg, HasSubstr("30.0 us  (-10.0 us, -25.0%)"));
}

TEST(BarsTest, StackedSegmentsShareOneScale) {
  // Width 800: bars span 800 - 190 (labels) - 150 (values) = 460 px for the
  // largest total (4 s); a 1 s segment is 460 / 4 = 115 px wide.
  std::vector<StackedBar> bars = {
      {.label = "a", .segments = {{"x", 1, "#000"}, {"y", 3, "#111"}}},
      {.label = "b", .segments = {{"x", 1, "#000"}}}};
  const std::string svg = RenderStackedBarsSvg(bars, 800);
  EXPECT_EQ(Count(svg, "class=\"seg\""), 3u);
  EXPECT_EQ(Count(svg, "width=\"115.00\""), 2u);
  EXPECT_THAT(svg, HasSubstr("width=\"345.00\""));  // 3 s = 3 * 115
}

TEST(BarsTest, StackedBytesUseByteUnits) {
  // The serving memory stack: 16 GB + 4 GB needed beside an 80 GB device.
  // Width 800: 460 px for the largest total (80 GB); 16 GB is 460 x 16 / 80
  // = 92 px, 4 GB 23 px. The legend gives each segment's share of the first
  // bar: 16 / 20 = 80%.
  std::vector<StackedBar> bars = {
      {.label = "needed",
       .segments = {{"weights", 16e9, "#000"}, {"KV cache", 4e9, "#111"}}},
      {.label = "capacity", .segments = {{"capacity", 80e9, "#222"}}}};
  const std::string svg = RenderStackedBarsSvg(bars, 800, ChartUnit::kBytes);
  EXPECT_EQ(Count(svg, "data-value-bytes="), 3u);
  EXPECT_EQ(Count(svg, "data-total-bytes="), 2u);
  EXPECT_EQ(Count(svg, "data-value-s="), 0u);
  EXPECT_THAT(svg, HasSubstr("data-value-bytes=\"16000000000\""));
  EXPECT_THAT(svg, HasSubstr("width=\"92.00\""));
  EXPECT_THAT(svg, HasSubstr("width=\"23.00\""));
  EXPECT_THAT(svg, HasSubstr("width=\"460.00\""));
  EXPECT_THAT(svg, HasSubstr("weights 16.0 GB (80.0%)"));
  EXPECT_THAT(svg, HasSubstr(">20.0 GB<"));  // the first bar's total
  EXPECT_THAT(svg, HasSubstr(">80.0 GB<"));
}

TEST(LineChartTest, LinearTicksByHand) {
  // 512..767 in at most 8 ticks: raw step 255 / 7 = 36.4 -> 50 (1, 2, 5 x
  // 10^k); multiples of 50 inside: 550 .. 750.
  EXPECT_EQ(LinearTicks(512, 767, 8),
            (std::vector<double>{550, 600, 650, 700, 750}));
  // 0..7.7 ms: raw 1.1 ms -> 2 ms: 0, 2, 4, 6 ms.
  const std::vector<double> y = LinearTicks(0, 7.7e-3, 8);
  ASSERT_EQ(y.size(), 4u);
  EXPECT_DOUBLE_EQ(y[3], 6e-3);
  EXPECT_EQ(LinearTicks(3, 3, 8), (std::vector<double>{3}));
}

TEST(LineChartTest, PointsAxesAndLabelsByHand) {
  LineChart chart{.title = "TPOT <by> context",
                  .x_label = "Context (tokens)",
                  .y_label = "Time per output token (s)"};
  chart.points = {{.x = 100, .y_s = 1e-3},
                  {.x = 150, .y_s = 1e-3},
                  {.x = 200, .y_s = 2e-3}};
  const std::string svg = RenderLineChartSvg(chart, 800);
  EXPECT_EQ(Count(svg, "<circle class=\"pt\""), 3u);
  EXPECT_EQ(Count(svg, "<polyline class=\"line\""), 1u);
  // Plot area x 90..776 (800 - 24), y 40..346 (400 - 54); x 100..200; y 0
  // to 1.1 x 2 ms = 2.2 ms. (150, 1 ms): x = 90 + 686 / 2 = 433, y = 346 -
  // 306 x 1 / 2.2 = 206.91; (200, 2 ms): x = 776, y = 346 - 306 / 1.1 =
  // 67.82.
  EXPECT_THAT(svg, HasSubstr("data-x=\"150\" data-y-s=\"0.001\" "
                             "cx=\"433.00\" cy=\"206.91\""));
  EXPECT_THAT(svg, HasSubstr("cx=\"776.00\" cy=\"67.82\""));
  // x ticks: raw step 100 / 7 = 14.3 -> 20: 100, 120, ..., 200 (6); y
  // ticks: raw 2.2 ms / 7 = 0.31 ms -> 0.5 ms: 0 s .. 2.00 ms (5).
  EXPECT_EQ(Count(svg, "class=\"tick-x\""), 6u);
  EXPECT_EQ(Count(svg, "class=\"tick-y\""), 5u);
  EXPECT_THAT(svg, HasSubstr(">120</text>"));
  EXPECT_THAT(svg, HasSubstr(">500 us</text>"));
  EXPECT_THAT(svg, HasSubstr(">1.50 ms</text>"));
  // Axis titles with their units; model-provided text escaped.
  EXPECT_THAT(svg, HasSubstr(">Context (tokens)</text>"));
  EXPECT_THAT(svg, HasSubstr(">Time per output token (s)</text>"));
  EXPECT_THAT(svg, HasSubstr("TPOT &lt;by&gt; context"));
  EXPECT_THAT(svg, Not(HasSubstr("<by>")));
}

TEST(HtmlReportTest, LineAndStackedBarSections) {
  const Analysis a = ToyAnalysis();
  HtmlReportInput in;
  in.primary = &a;
  in.line_charts.push_back({.title = "TPOT", .points = {{1, 1e-3}}});
  in.stacked_bars.push_back(
      {.title = "Memory",
       .unit = ChartUnit::kBytes,
       .bars = {{.label = "needed", .segments = {{"weights", 1e9, "#000"}}}},
       .note = "a <note>"});
  const std::string html = RenderHtmlReport(in);
  EXPECT_THAT(html, HasSubstr("<section id=\"line-chart-0\""));
  EXPECT_THAT(html, HasSubstr("<section id=\"stacked-bars-0\""));
  EXPECT_THAT(html, HasSubstr("href=\"#line-chart-0\""));
  EXPECT_THAT(html, HasSubstr("data-value-bytes=\"1000000000\""));
  EXPECT_THAT(html, HasSubstr("a &lt;note&gt;"));
}

}  // namespace
}  // namespace ridgeline::engine::report
