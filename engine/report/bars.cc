#include "engine/report/bars.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "engine/report/svg_writer.h"
#include "engine/report/text.h"
#include "engine/report/units.h"
#include "fmt/format.h"

namespace ridgeline::engine::report {
namespace {

constexpr double kCharWidthPx = 6.6;  // approximate, 12 px font
constexpr double kLabelColumnPx = 190;
constexpr double kValueColumnPx = 150;
constexpr double kBarHeightPx = 24;
constexpr double kBarGapPx = 12;
constexpr double kLegendColumnPx = 235;
constexpr double kLegendRowPx = 18;

std::string RootAttributes(std::string_view cls) {
  return Attr("class", cls) + Attr("font-family", kFontFamily) +
         Attr("font-size", "12") + Attr("fill", "#222");
}

// `text` in about `max_px` pixels of 12 px text, elided in the middle as
// the text tables elide (at least 8 characters are kept).
std::string Fit(std::string_view text, double max_px) {
  return ElideMiddle(text,
                     static_cast<size_t>(std::max(8.0, max_px / kCharWidthPx)));
}

double Total(const StackedBar& bar) {
  double t = 0;
  for (const StackSegment& s : bar.segments) t += std::max(0.0, s.value);
  return t;
}

// A value of a chart in `unit`, with the unit.
std::string FormatValue(double value, ChartUnit unit) {
  return unit == ChartUnit::kBytes ? FormatSi(value, "B")
                                   : FormatSeconds(value);
}

// The data attribute of a value: "data-value-s" or "data-value-bytes".
std::string DataName(std::string_view what, ChartUnit unit) {
  return fmt::format("data-{}-{}", what,
                     unit == ChartUnit::kBytes ? "bytes" : "s");
}

}  // namespace

std::string RenderStackedBarsSvg(const std::vector<StackedBar>& bars,
                                 double width, ChartUnit unit) {
  double max_total = 0;
  for (const StackedBar& b : bars) max_total = std::max(max_total, Total(b));
  // Legend entries: distinct labels in first-seen order.
  std::vector<const StackSegment*> legend;
  for (const StackedBar& b : bars) {
    for (const StackSegment& s : b.segments) {
      const bool seen = std::any_of(
          legend.begin(), legend.end(),
          [&](const StackSegment* x) { return x->label == s.label; });
      if (!seen) legend.push_back(&s);
    }
  }
  const int columns =
      std::max(1, static_cast<int>((width - 20) / kLegendColumnPx));
  const int legend_rows =
      (static_cast<int>(legend.size()) + columns - 1) / columns;
  const double bars_height =
      static_cast<double>(bars.size()) * (kBarHeightPx + kBarGapPx);
  const double height = 8 + bars_height + 8 + legend_rows * kLegendRowPx + 8;
  SvgWriter svg(width, height, RootAttributes("stacked-bars"));

  const double x0 = kLabelColumnPx;
  const double bar_width = std::max(10.0, width - x0 - kValueColumnPx);
  double y = 8;
  for (const StackedBar& b : bars) {
    const double total = Total(b);
    svg.Open("g", Attr("class", "bar") + Attr("data-label", b.label) +
                      Num(DataName("total", unit), total));
    svg.Text(Px("x", x0 - 8) + Px("y", y + kBarHeightPx / 2 + 4) +
                 Attr("text-anchor", "end"),
             Fit(b.label, x0 - 16));
    double x = x0;
    for (const StackSegment& s : b.segments) {
      if (!(s.value > 0) || !(max_total > 0)) continue;
      const double w = bar_width * s.value / max_total;
      svg.Open("rect", Attr("class", "seg") + Attr("data-label", s.label) +
                           Num(DataName("value", unit), s.value) + Px("x", x) +
                           Px("y", y) + Px("width", w) +
                           Px("height", kBarHeightPx) + Attr("fill", s.color) +
                           Attr("stroke", "#fff") +
                           Attr("stroke-width", "0.7"));
      svg.Title(
          fmt::format("{}: {} ({} of {})", s.label, FormatValue(s.value, unit),
                      FormatPercent(total > 0 ? s.value / total : 0), b.label));
      svg.Close("rect");
      const std::string inside = s.label;
      if (w > kCharWidthPx * static_cast<double>(inside.size()) + 10) {
        svg.Text(Attr("class", "seg-label") + Px("x", x + 5) +
                     Px("y", y + kBarHeightPx / 2 + 4) + Attr("fill", "#fff") +
                     Attr("pointer-events", "none"),
                 inside);
      }
      x += w;
    }
    svg.Text(Px("x", x + 8) + Px("y", y + kBarHeightPx / 2 + 4),
             FormatValue(total, unit));
    svg.Close("g");
    y += kBarHeightPx + kBarGapPx;
  }

  y += 4;
  const double first_total = bars.empty() ? 0 : Total(bars.front());
  svg.Open("g", Attr("class", "legend"));
  for (size_t i = 0; i < legend.size(); ++i) {
    const StackSegment& s = *legend[i];
    const double lx = 10 + static_cast<double>(i % columns) * kLegendColumnPx;
    const double ly = y + static_cast<double>(i / columns) * kLegendRowPx;
    svg.Empty("rect", Px("x", lx) + Px("y", ly) + Px("width", 11) +
                          Px("height", 11) + Attr("fill", s.color));
    std::string text = s.label;
    // Time and share of the first bar, when that bar has this segment.
    for (const StackSegment& f : bars.front().segments) {
      if (f.label == s.label && first_total > 0) {
        text += fmt::format(" {} ({})", FormatValue(f.value, unit),
                            FormatPercent(f.value / first_total));
        break;
      }
    }
    svg.Text(Px("x", lx + 16) + Px("y", ly + 10),
             Fit(text, kLegendColumnPx - 22));
  }
  svg.Close("g");
  return std::move(svg).Finish();
}

std::string RenderBeforeAfterSvg(const BeforeAfterChart& chart, double width) {
  constexpr double kPairHeight = 30;  // two 11 px bars and a gap
  constexpr double kLegendHeight = 24;
  double max_value = 0;
  for (const BeforeAfterBar& b : chart.bars) {
    max_value = std::max({max_value, b.before_s, b.after_s});
  }
  const double height =
      kLegendHeight + static_cast<double>(chart.bars.size()) * kPairHeight + 8;
  SvgWriter svg(width, height, RootAttributes("before-after"));
  const std::string before_color = "#a6acaf";
  const std::string after_color = "#27ae60";
  const double x0 = kLabelColumnPx + 20;
  const double value_column = 230;
  const double bar_width = std::max(10.0, width - x0 - value_column);

  // Legend.
  svg.Empty("rect", Px("x", x0) + Px("y", 5) + Px("width", 11) +
                        Px("height", 11) + Attr("fill", before_color));
  svg.Text(Px("x", x0 + 16) + Px("y", 15), chart.before_label);
  const double second =
      x0 + 40 + kCharWidthPx * static_cast<double>(chart.before_label.size());
  svg.Empty("rect", Px("x", second) + Px("y", 5) + Px("width", 11) +
                        Px("height", 11) + Attr("fill", after_color));
  svg.Text(Px("x", second + 16) + Px("y", 15), chart.after_label);

  double y = kLegendHeight;
  for (const BeforeAfterBar& b : chart.bars) {
    const double wb = max_value > 0 ? bar_width * b.before_s / max_value : 0;
    const double wa = max_value > 0 ? bar_width * b.after_s / max_value : 0;
    const double saved = b.before_s - b.after_s;
    const std::string summary = fmt::format(
        "{}: {} {} -> {} {}, saving {} ({})", b.label, chart.before_label,
        FormatSeconds(b.before_s), chart.after_label, FormatSeconds(b.after_s),
        FormatSeconds(saved),
        FormatPercent(b.before_s > 0 ? saved / b.before_s : 0));
    svg.Open("g", Attr("class", "pair") + Attr("data-label", b.label) +
                      Num("data-before-s", b.before_s) +
                      Num("data-after-s", b.after_s));
    svg.Title(summary);
    svg.Text(Px("x", x0 - 8) + Px("y", y + 15) + Attr("text-anchor", "end"),
             Fit(b.label, x0 - 16));
    svg.Empty("rect", Attr("class", "before") + Px("x", x0) + Px("y", y + 3) +
                          Px("width", std::max(wb, 0.0)) + Px("height", 11) +
                          Attr("fill", before_color));
    svg.Empty("rect", Attr("class", "after") + Px("x", x0) + Px("y", y + 15) +
                          Px("width", std::max(wa, 0.0)) + Px("height", 11) +
                          Attr("fill", after_color));
    const double tx = x0 + std::max(wb, wa) + 8;
    svg.Text(Px("x", tx) + Px("y", y + 13) + Attr("font-size", "11") +
                 Attr("fill", "#555"),
             FormatSeconds(b.before_s));
    svg.Text(
        Px("x", tx) + Px("y", y + 25) + Attr("font-size", "11"),
        fmt::format(
            "{0}  ({1}{2}, {1}{3})", FormatSeconds(b.after_s),
            saved >= 0 ? "-" : "+", FormatSeconds(std::abs(saved)),
            FormatPercent(b.before_s > 0 ? std::abs(saved) / b.before_s : 0)));
    svg.Close("g");
    y += kPairHeight;
  }
  return std::move(svg).Finish();
}

}  // namespace ridgeline::engine::report
