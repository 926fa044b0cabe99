#include "engine/report/line_chart.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/report/svg_writer.h"
#include "engine/report/units.h"
#include "fmt/format.h"

namespace ridgeline::engine::report {
namespace {

constexpr double kHeight = 400;
constexpr double kMarginLeft = 90;
constexpr double kMarginRight = 24;
constexpr double kMarginTop = 40;
constexpr double kMarginBottom = 54;
constexpr int kMaxTicks = 8;
constexpr double kHeadroom = 1.1;  // y axis top = 1.1 x the largest value
constexpr std::string_view kLineColor = "#4e79a7";

}  // namespace

std::vector<double> LinearTicks(double lo, double hi, int max_ticks) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) {
    return std::isfinite(lo) ? std::vector<double>{lo} : std::vector<double>{};
  }
  const double raw = (hi - lo) / std::max(1, max_ticks - 1);
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * decade;
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * decade >= raw * (1 - 1e-9)) {
      step = m * decade;
      break;
    }
  }
  std::vector<double> ticks;
  const double first = std::ceil(lo / step - 1e-9);
  const double last = std::floor(hi / step + 1e-9);
  for (double k = first; k <= last; ++k) ticks.push_back(k * step);
  return ticks;
}

std::string RenderLineChartSvg(const LineChart& chart, double width) {
  double x_lo = 0, x_hi = 0, y_hi = 0;
  for (size_t i = 0; i < chart.points.size(); ++i) {
    const LinePoint& p = chart.points[i];
    x_lo = i == 0 ? p.x : std::min(x_lo, p.x);
    x_hi = i == 0 ? p.x : std::max(x_hi, p.x);
    y_hi = std::max(y_hi, p.y_s);
  }
  if (!(x_hi > x_lo)) {  // one point (or none): a window around it
    x_lo -= 1;
    x_hi += 1;
  }
  y_hi = y_hi > 0 ? y_hi * kHeadroom : 1e-3;
  const double left = kMarginLeft, right = width - kMarginRight;
  const double top = kMarginTop, bottom = kHeight - kMarginBottom;
  const auto px = [&](double x) {
    return left + (x - x_lo) / (x_hi - x_lo) * (right - left);
  };
  const auto py = [&](double y) { return bottom - y / y_hi * (bottom - top); };

  SvgWriter svg(width, kHeight,
                Attr("class", "line-chart") + Attr("font-family", kFontFamily) +
                    Attr("font-size", "12") + Attr("fill", "#222"));
  svg.Empty("rect", Px("x", 0) + Px("y", 0) + Px("width", width) +
                        Px("height", kHeight) + Attr("fill", "#ffffff"));
  svg.Text(Attr("class", "plot-title") + Px("x", left) + Px("y", 24) +
               Attr("font-size", "15") + Attr("font-weight", "600"),
           chart.title);

  svg.Open("g", Attr("class", "axes"));
  for (const double x : LinearTicks(x_lo, x_hi, kMaxTicks)) {
    svg.Empty("line", Attr("class", "grid") + Px("x1", px(x)) +
                          Px("x2", px(x)) + Px("y1", top) + Px("y2", bottom) +
                          Attr("stroke", "#e3e3e3"));
    svg.Text(Attr("class", "tick-x") + Px("x", px(x)) + Px("y", bottom + 16) +
                 Attr("text-anchor", "middle"),
             FormatNumber(x));
  }
  for (const double y : LinearTicks(0, y_hi, kMaxTicks)) {
    svg.Empty("line", Attr("class", "grid") + Px("x1", left) + Px("x2", right) +
                          Px("y1", py(y)) + Px("y2", py(y)) +
                          Attr("stroke", "#e3e3e3"));
    svg.Text(Attr("class", "tick-y") + Px("x", left - 7) + Px("y", py(y) + 4) +
                 Attr("text-anchor", "end"),
             FormatSeconds(y));
  }
  svg.Empty("rect", Attr("class", "frame") + Px("x", left) + Px("y", top) +
                        Px("width", right - left) + Px("height", bottom - top) +
                        Attr("fill", "none") + Attr("stroke", "#888"));
  svg.Text(Attr("class", "axis-title") + Px("x", (left + right) / 2) +
               Px("y", bottom + 38) + Attr("text-anchor", "middle") +
               Attr("font-size", "13"),
           chart.x_label);
  const double cy = (top + bottom) / 2;
  svg.Text(Attr("class", "axis-title") + Px("x", 18) + Px("y", cy) +
               Attr("text-anchor", "middle") + Attr("font-size", "13") +
               Attr("transform", fmt::format("rotate(-90 18 {:.2f})", cy)),
           chart.y_label);
  svg.Close("g");

  std::string line;
  for (const LinePoint& p : chart.points) {
    if (!line.empty()) line += ' ';
    line += fmt::format("{:.2f},{:.2f}", px(p.x), py(p.y_s));
  }
  svg.Empty("polyline", Attr("class", "line") + Attr("points", line) +
                            Attr("fill", "none") + Attr("stroke", kLineColor) +
                            Attr("stroke-width", "2"));
  svg.Open("g", Attr("class", "points"));
  for (const LinePoint& p : chart.points) {
    svg.Open("circle", Attr("class", "pt") + Num("data-x", p.x) +
                           Num("data-y-s", p.y_s) + Px("cx", px(p.x)) +
                           Px("cy", py(p.y_s)) + Px("r", 3.5) +
                           Attr("fill", kLineColor));
    svg.Title(fmt::format("{}: {}; {}: {}", chart.x_label, FormatNumber(p.x),
                          chart.y_label, FormatSeconds(p.y_s)));
    svg.Close("circle");
  }
  svg.Close("g");
  return std::move(svg).Finish();
}

}  // namespace ridgeline::engine::report
