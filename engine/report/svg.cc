#include "engine/report/svg.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "engine/analysis.h"
#include "engine/report/layer_shapes.h"
#include "engine/report/svg_writer.h"
#include "engine/report/text.h"
#include "engine/report/units.h"
#include "fmt/format.h"

namespace ridgeline::engine::report {
namespace {

// Approximate advance of one character of the 11 px legend font, used to
// size the legend box (no font metrics without a browser).
constexpr double kCharWidthPx = 6.3;
constexpr double kLegendLinePx = 16;
// Headroom above the highest roof, and extent past the largest ridge point.
constexpr double kRoofHeadroom = 1.8;
constexpr double kRidgeRightExtent = 3;
constexpr double kPointRightExtent = 3;
constexpr int kMinDecades = 2;
constexpr int kMaxDecadesX = 8;
constexpr int kMaxDecadesY = 9;

// One device's roofs.
struct Roof {
  double peak = 0;       // FLOP/s
  double bandwidth = 0;  // bytes/s
  double compute_eff = 1;
  double memory_eff = 1;
  bool valid() const { return peak > 0 && bandwidth > 0; }
  double ridge() const { return peak / bandwidth; }
  double effective_peak() const { return peak * compute_eff; }
  double effective_bandwidth() const { return bandwidth * memory_eff; }
  double effective_ridge() const {
    return effective_peak() / effective_bandwidth();
  }
};

Roof RoofOf(const Analysis& a) {
  Roof r;
  r.peak = a.assumptions.peak_flops_per_s;
  r.bandwidth = a.assumptions.memory_bandwidth_bytes_per_s;
  r.compute_eff = a.assumptions.compute_efficiency > 0
                      ? a.assumptions.compute_efficiency
                      : 1;
  r.memory_eff =
      a.assumptions.memory_efficiency > 0 ? a.assumptions.memory_efficiency : 1;
  return r;
}

double Attained(const LayerResult& layer) {
  return layer.latency_s > 0 ? layer.flops / layer.latency_s : 0;
}

double TotalLatency(const Analysis& a) {
  if (a.summary.latency_s > 0) return a.summary.latency_s;
  double sum = 0;
  for (const LayerResult& l : a.layers) sum += l.latency_s;
  return sum;
}

// Largest decade <= v and smallest decade >= v (v > 0).
double FloorDecade(double v) {
  return std::pow(10.0, std::floor(std::log10(v)));
}
double CeilDecade(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

// Widens [lo, hi] to at least kMinDecades and caps it at max_decades below hi.
void FixSpan(double& lo, double& hi, int max_decades) {
  if (!(lo > 0) || !(hi > lo)) {
    // Nothing usable: a default window around hi (or 1).
    if (!(hi > 0)) hi = 1;
    lo = hi / std::pow(10.0, kMinDecades);
  }
  while (hi / lo < std::pow(10.0, kMinDecades) * 0.999) {
    lo /= 10;
  }
  const double max_ratio = std::pow(10.0, max_decades);
  if (hi / lo > max_ratio) lo = hi / max_ratio;
}

// Maps data values to pixels on log axes.
class Frame {
 public:
  Frame(const SvgOptions& o, const RooflineAxes& axes)
      : left_(o.margin_left),
        right_(o.width - o.margin_right),
        top_(o.margin_top),
        bottom_(o.height - o.margin_bottom),
        axes_(axes),
        lx0_(std::log10(axes.x_min)),
        lx1_(std::log10(axes.x_max)),
        ly0_(std::log10(axes.y_min)),
        ly1_(std::log10(axes.y_max)) {}

  double X(double v) const {
    return left_ + (std::log10(v) - lx0_) / (lx1_ - lx0_) * (right_ - left_);
  }
  double Y(double v) const {
    return bottom_ - (std::log10(v) - ly0_) / (ly1_ - ly0_) * (bottom_ - top_);
  }
  // Pixels per decade.
  double DecadeX() const { return (right_ - left_) / (lx1_ - lx0_); }
  double DecadeY() const { return (bottom_ - top_) / (ly1_ - ly0_); }
  bool InX(double v) const { return v >= axes_.x_min && v <= axes_.x_max; }
  bool InY(double v) const { return v >= axes_.y_min && v <= axes_.y_max; }
  double ClampX(double v) const {
    return std::clamp(v > 0 ? v : axes_.x_min, axes_.x_min, axes_.x_max);
  }
  double ClampY(double v) const {
    return std::clamp(v > 0 ? v : axes_.y_min, axes_.y_min, axes_.y_max);
  }

  double left() const { return left_; }
  double right() const { return right_; }
  double top() const { return top_; }
  double bottom() const { return bottom_; }
  const RooflineAxes& axes() const { return axes_; }

 private:
  double left_, right_, top_, bottom_;
  RooflineAxes axes_;
  double lx0_, lx1_, ly0_, ly1_;
};

std::string Points(const std::vector<std::pair<double, double>>& pts) {
  std::string out;
  for (const auto& [x, y] : pts) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{:.2f},{:.2f}", x, y);
  }
  return out;
}

std::string ShortDeviceName(const Hardware& hw) {
  return hw.name.empty() ? hw.key : hw.name;
}

void DrawAxes(const Frame& f, SvgWriter& svg) {
  const RooflineAxes& a = f.axes();
  svg.Open("g", Attr("class", "axes"));
  // Grid: major lines at decades, minor ticks at 2..9 x decade.
  const int ex0 = static_cast<int>(std::ceil(std::log10(a.x_min) - 1e-9));
  const int ex1 = static_cast<int>(std::floor(std::log10(a.x_max) + 1e-9));
  const int ey0 = static_cast<int>(std::ceil(std::log10(a.y_min) - 1e-9));
  const int ey1 = static_cast<int>(std::floor(std::log10(a.y_max) + 1e-9));
  for (int e = ex0 - 1; e <= ex1; ++e) {
    for (int m = 2; m <= 9; ++m) {
      const double v = m * std::pow(10.0, e);
      if (!f.InX(v)) continue;
      svg.Empty("line", Attr("class", "minor") + Px("x1", f.X(v)) +
                            Px("x2", f.X(v)) + Px("y1", f.bottom()) +
                            Px("y2", f.bottom() - 4) + Attr("stroke", "#888"));
    }
  }
  for (int e = ey0 - 1; e <= ey1; ++e) {
    for (int m = 2; m <= 9; ++m) {
      const double v = m * std::pow(10.0, e);
      if (!f.InY(v)) continue;
      svg.Empty("line", Attr("class", "minor") + Px("x1", f.left()) +
                            Px("x2", f.left() + 4) + Px("y1", f.Y(v)) +
                            Px("y2", f.Y(v)) + Attr("stroke", "#888"));
    }
  }
  for (int e = ex0; e <= ex1; ++e) {
    const double x = f.X(std::pow(10.0, e));
    svg.Empty("line", Attr("class", "grid") + Px("x1", x) + Px("x2", x) +
                          Px("y1", f.top()) + Px("y2", f.bottom()) +
                          Attr("stroke", "#e3e3e3"));
    svg.Text(Attr("class", "tick-x") + Px("x", x) + Px("y", f.bottom() + 16) +
                 Attr("text-anchor", "middle"),
             DecadeLabel(e));
  }
  for (int e = ey0; e <= ey1; ++e) {
    const double y = f.Y(std::pow(10.0, e));
    svg.Empty("line", Attr("class", "grid") + Px("x1", f.left()) +
                          Px("x2", f.right()) + Px("y1", y) + Px("y2", y) +
                          Attr("stroke", "#e3e3e3"));
    svg.Text(Attr("class", "tick-y") + Px("x", f.left() - 7) + Px("y", y + 4) +
                 Attr("text-anchor", "end"),
             DecadeLabel(e));
  }
  svg.Empty("rect", Attr("class", "frame") + Px("x", f.left()) +
                        Px("y", f.top()) + Px("width", f.right() - f.left()) +
                        Px("height", f.bottom() - f.top()) +
                        Attr("fill", "none") + Attr("stroke", "#888"));
  svg.Text(Attr("class", "axis-title") + Px("x", (f.left() + f.right()) / 2) +
               Px("y", f.bottom() + 38) + Attr("text-anchor", "middle") +
               Attr("font-size", "13"),
           "Arithmetic intensity (FLOP/byte, log scale)");
  const double cy = (f.top() + f.bottom()) / 2;
  svg.Text(Attr("class", "axis-title") + Px("x", 18) + Px("y", cy) +
               Attr("text-anchor", "middle") + Attr("font-size", "13") +
               Attr("transform", fmt::format("rotate(-90 18 {:.2f})", cy)),
           "Attained performance (FLOP/s, log scale)");
  svg.Close("g");
}

// A text label that wants to sit at `y`; labels are pushed apart.
struct RoofLabel {
  double y = 0;
  std::string text;
  std::string color;
};

void DrawRoofs(const std::vector<const Analysis*>& analyses, const Frame& f,
               std::string_view clip_url, SvgWriter& svg) {
  const RooflineAxes& a = f.axes();
  std::vector<RoofLabel> labels;
  const bool many = analyses.size() > 1;
  svg.Open("g", Attr("class", "roofs"));
  for (size_t i = 0; i < analyses.size(); ++i) {
    const Analysis& an = *analyses[i];
    const Roof roof = RoofOf(an);
    if (!roof.valid()) continue;
    const std::string color(DeviceColor(i));
    const std::string device = ShortDeviceName(an.hardware);
    // A roof min(peak, bw * x) is straight on log-log axes except at the
    // ridge, so three points draw it exactly; the clip path trims it.
    const auto roof_points = [&](double peak, double bw) {
      std::vector<std::pair<double, double>> pts;
      const double ridge = peak / bw;
      pts.emplace_back(f.X(a.x_min), f.Y(std::min(peak, bw * a.x_min)));
      if (ridge > a.x_min && ridge < a.x_max) {
        pts.emplace_back(f.X(ridge), f.Y(peak));
      }
      pts.emplace_back(f.X(a.x_max), f.Y(std::min(peak, bw * a.x_max)));
      return Points(pts);
    };
    svg.Open("g", Attr("class", "roof") + Attr("data-device", an.hardware.key) +
                      Attr("clip-path", clip_url));
    svg.Open("polyline",
             Attr("class", "roof-peak") +
                 Attr("points", roof_points(roof.peak, roof.bandwidth)) +
                 Attr("fill", "none") + Attr("stroke", color) +
                 Attr("stroke-width", "2.2"));
    svg.Title(fmt::format(
        "{}: peak {}FLOP/s ({}), memory {}B/s, ridge {:.3g} "
        "FLOP/byte",
        device, FormatSi(roof.peak, ""), an.assumptions.peak_precision,
        FormatSi(roof.bandwidth, ""), roof.ridge()));
    svg.Close("polyline");
    svg.Open("polyline",
             Attr("class", "roof-effective") +
                 Attr("points", roof_points(roof.effective_peak(),
                                            roof.effective_bandwidth())) +
                 Attr("fill", "none") + Attr("stroke", color) +
                 Attr("stroke-width", "1.5") + Attr("stroke-dasharray", "7 5"));
    svg.Title(fmt::format(
        "{}: effective roof at {:.0f}% compute and {:.0f}% memory efficiency: "
        "{}FLOP/s, {}B/s, ridge {:.3g} FLOP/byte",
        device, 100 * roof.compute_eff, 100 * roof.memory_eff,
        FormatSi(roof.effective_peak(), ""),
        FormatSi(roof.effective_bandwidth(), ""), roof.effective_ridge()));
    svg.Close("polyline");
    svg.Close("g");

    // Ridge markers (diamonds; circles are reserved for layers) and labels.
    const auto ridge_marker = [&](double x, double y, bool filled,
                                  std::string_view cls,
                                  const std::string& label) {
      if (!f.InX(x) || !f.InY(y)) return;
      const double px = f.X(x);
      const double py = f.Y(y);
      // One device: a dotted drop line and a label; several: only the
      // marker (the legend lists every ridge point).
      if (!many) {
        svg.Empty("line", Attr("class", "ridge-line") + Px("x1", px) +
                              Px("x2", px) + Px("y1", py) +
                              Px("y2", f.bottom()) + Attr("stroke", color) +
                              Attr("stroke-width", "0.8") +
                              Attr("stroke-dasharray", "2 3"));
      }
      svg.Open("path",
               Attr("class", cls) + Num("data-intensity", x) +
                   Attr("d", fmt::format("M{:.2f} {:.2f}l5 5l-5 5l-5 -5z", px,
                                         py - 5)) +
                   Attr("fill", filled ? color : std::string("#fff")) +
                   Attr("stroke", color) + Attr("stroke-width", "1.5"));
      svg.Title(label);
      svg.Close("path");
      if (many) return;
      // Peak ridge: label above-left (clear of the flat roof and of the
      // slope below it); effective ridge: below-right.
      svg.Text(Attr("class", "ridge-label") +
                   Px("x", filled ? px - 8 : px + 8) +
                   Px("y", py + (filled ? -8 : 16)) +
                   Attr("text-anchor", filled ? "end" : "start") +
                   Attr("fill", color) + Attr("font-size", "11"),
               fmt::format("{}{:.3g}", filled ? "ridge " : "eff. ridge ", x));
    };
    ridge_marker(roof.ridge(), roof.peak, true, "ridge",
                 fmt::format("{}: ridge point {:.3g} FLOP/byte (peak / "
                             "bandwidth)",
                             device, roof.ridge()));
    ridge_marker(roof.effective_ridge(), roof.effective_peak(), false,
                 "ridge-effective",
                 fmt::format("{}: effective ridge point {:.3g} FLOP/byte",
                             device, roof.effective_ridge()));

    // Right-end labels of the flat roofs (one device; with several the
    // legend says it all).
    if (!many && f.InY(roof.peak)) {
      labels.push_back(
          {f.Y(roof.peak) - 6,
           fmt::format("peak {}FLOP/s ({})", FormatSi(roof.peak, ""),
                       an.assumptions.peak_precision),
           color});
    }
    if (!many && f.InY(roof.effective_peak())) {
      labels.push_back(
          {f.Y(roof.effective_peak()) + 14,
           fmt::format("effective {}FLOP/s (x{:.2g})",
                       FormatSi(roof.effective_peak(), ""), roof.compute_eff),
           color});
    }
    // Memory-slope label, rotated along the slope, near the left end of its
    // visible part (layers rarely sit that far left).
    const double x_lo = std::max(a.x_min, a.y_min / roof.bandwidth);
    const double x_hi =
        std::min({roof.ridge(), a.x_max, a.y_max / roof.bandwidth});
    if (x_hi > x_lo * 1.5) {
      const double xm = x_lo * std::pow(x_hi / x_lo, many ? 0.12 : 0.3);
      const double angle =
          -std::atan2(f.DecadeY(), f.DecadeX()) * 180 / 3.14159265358979;
      const double px = f.X(xm);
      const double py = f.Y(roof.bandwidth * xm) - 6;
      svg.Text(Attr("class", "slope-label") + Px("x", px) + Px("y", py) +
                   Attr("text-anchor", "start") + Attr("fill", color) +
                   Attr("font-size", "11") +
                   Attr("transform", fmt::format("rotate({:.2f} {:.2f} {:.2f})",
                                                 angle, px, py)),
               fmt::format("{}B/s", FormatSi(roof.bandwidth, "")));
    }
  }
  // Push labels apart (13 px) and keep them inside the plot.
  std::sort(labels.begin(), labels.end(),
            [](const RoofLabel& x, const RoofLabel& y) { return x.y < y.y; });
  for (size_t i = 0; i < labels.size(); ++i) {
    labels[i].y = std::max(labels[i].y, f.top() + 12);
    if (i > 0) labels[i].y = std::max(labels[i].y, labels[i - 1].y + 13);
  }
  for (const RoofLabel& l : labels) {
    svg.Text(Attr("class", "roof-label") + Px("x", f.right() - 6) +
                 Px("y", l.y) + Attr("text-anchor", "end") +
                 Attr("fill", l.color) + Attr("font-size", "11"),
             l.text);
  }
  svg.Close("g");
}

struct PointSpec {
  const LayerResult* layer = nullptr;
  double share = 0;
  double radius = 0;
};

void DrawPoints(const std::vector<const Analysis*>& analyses, const Frame& f,
                const SvgOptions& options, SvgWriter& svg) {
  const bool many = analyses.size() > 1;
  for (size_t i = 0; i < analyses.size(); ++i) {
    const Analysis& an = *analyses[i];
    const double total = TotalLatency(an);
    std::vector<PointSpec> specs;
    double max_share = 0;
    for (const LayerResult& l : an.layers) {
      if (!IsPlotted(l)) continue;
      PointSpec s;
      s.layer = &l;
      s.share = total > 0 ? l.latency_s / total : 0;
      max_share = std::max(max_share, s.share);
      specs.push_back(s);
    }
    for (PointSpec& s : specs) {
      const double r = max_share > 0
                           ? options.max_radius * std::sqrt(s.share / max_share)
                           : options.min_radius;
      s.radius = std::max(options.min_radius, r);
    }
    // Large points first so small ones stay visible on top.
    std::stable_sort(specs.begin(), specs.end(),
                     [](const PointSpec& x, const PointSpec& y) {
                       return x.radius > y.radius;
                     });
    const std::string device = ShortDeviceName(an.hardware);
    const bool hidden = i > 0 && !options.show_other_device_points;
    svg.Open("g", Attr("class", "points") +
                      Attr("data-device", an.hardware.key) +
                      (hidden ? Attr("display", "none") : std::string()));
    for (const PointSpec& s : specs) {
      const LayerResult& l = *s.layer;
      const double attained = Attained(l);
      const bool clamped = !(l.intensity > 0) || !(attained > 0) ||
                           !f.InX(l.intensity) || !f.InY(attained);
      const std::string shapes = LayerShapes(l);
      const std::string bound(BoundName(l.bound));
      // Fill: the roofline regime; an overhead-dominated layer gets a ring in
      // the overhead colour.
      const Bound regime = l.regime == Regime::kCompute  ? Bound::kCompute
                           : l.regime == Regime::kMemory ? Bound::kMemory
                                                         : l.bound;
      // Other devices' points: a ring in the device's colour; the first
      // device's: a thin white ring separating overlapping points (a hollow
      // ring for clamped ones).
      std::string_view stroke = "#ffffff";
      if (many && i > 0) {
        stroke = DeviceColor(i);
      } else if (clamped) {
        stroke = BoundColor(regime);
      } else if (l.overhead_dominated) {
        stroke = BoundColor(Bound::kOverhead);
      }
      std::string attrs =
          Attr("class", clamped ? "pt clamped" : "pt") +
          Px("cx", f.X(f.ClampX(l.intensity))) +
          Px("cy", f.Y(f.ClampY(attained))) + Px("r", s.radius) +
          Attr("fill", clamped ? std::string("#fff")
                               : std::string(BoundColor(regime))) +
          Attr("fill-opacity", clamped ? "0.9" : "0.72") +
          Attr("stroke", stroke) +
          Attr("stroke-width", (many && i > 0) || clamped ? "1.2"
                               : l.overhead_dominated     ? "1.6"
                                                          : "0.8") +
          Attr("data-name", l.name) + Attr("data-op", l.op_type) +
          Attr("data-shapes", shapes) + Num("data-node", l.node) +
          Attr("data-device", an.hardware.key) + Num("data-flops", l.flops) +
          Num("data-bytes", l.bytes) + Num("data-intensity", l.intensity) +
          Num("data-attained-flops-per-s", attained) +
          Num("data-latency-s", l.latency_s) + Num("data-share", s.share) +
          Attr("data-bound", bound) +
          Attr("data-regime", std::string(RegimeName(l.regime))) +
          Num("data-overhead-share",
              l.latency_s > 0 ? l.t_overhead_s / l.latency_s : 0) +
          Attr("data-clamped", clamped ? "1" : "0");
      svg.Open("circle", attrs);
      std::string tip =
          fmt::format("{}\n{}{}{}", l.name, l.op_type,
                      l.domain.empty() ? "" : " (" + l.domain + ")",
                      many ? " on " + device : "");
      if (!shapes.empty()) tip += fmt::format("\nshapes: {}", shapes);
      tip += fmt::format(
          "\n{} | {} | {:.3g} FLOP/byte\nattained {}\nlatency {} ({} of "
          "total), "
          "{}-bound ({} regime)\ncompute {} | memory {} | overhead {}",
          FormatSi(l.flops, "FLOP"), FormatSi(l.bytes, "B"), l.intensity,
          FormatSi(attained, "FLOP/s"), FormatSeconds(l.latency_s),
          FormatPercent(s.share), bound, RegimeName(l.regime),
          FormatSeconds(l.t_compute_s), FormatSeconds(l.t_memory_s),
          FormatSeconds(l.t_overhead_s));
      if (clamped) tip += "\n(outside the axes: drawn at the edge)";
      svg.Title(tip);
      svg.Close("circle");
    }
    svg.Close("g");
  }
}

void DrawLegend(const std::vector<const Analysis*>& analyses, const Frame& f,
                SvgWriter& svg) {
  struct Line {
    enum Kind { kRoof, kEffective, kBound, kNote } kind;
    std::string color;
    std::string text;
  };
  std::vector<Line> lines;
  for (size_t i = 0; i < analyses.size(); ++i) {
    const Analysis& an = *analyses[i];
    const Roof roof = RoofOf(an);
    if (!roof.valid()) {
      lines.push_back({Line::kNote, "#a00",
                       fmt::format("{}: no peak/bandwidth, no roof drawn",
                                   ShortDeviceName(an.hardware))});
      continue;
    }
    const std::string color(DeviceColor(i));
    lines.push_back(
        {Line::kRoof, color,
         fmt::format("{}: {}FLOP/s {}, {}B/s, ridge {:.3g} FLOP/B",
                     ShortDeviceName(an.hardware), FormatSi(roof.peak, ""),
                     an.assumptions.peak_precision,
                     FormatSi(roof.bandwidth, ""), roof.ridge())});
    lines.push_back(
        {Line::kEffective, color,
         fmt::format("effective: x{:.2g} compute, x{:.2g} memory, ridge {:.3g}",
                     roof.compute_eff, roof.memory_eff,
                     roof.effective_ridge())});
  }
  for (Bound b : {Bound::kCompute, Bound::kMemory}) {
    lines.push_back({Line::kBound, std::string(BoundColor(b)),
                     fmt::format("{}-bound layer", BoundName(b))});
  }
  lines.push_back({Line::kBound, std::string(BoundColor(Bound::kOverhead)),
                   "ring: overhead-dominated layer"});
  lines.push_back({Line::kNote, "#555", "point area = share of latency"});

  size_t longest = 0;
  for (const Line& l : lines) longest = std::max(longest, l.text.size());
  const double x0 = f.left() + 10;
  const double y0 = f.top() + 10;
  const double w = 36 + kCharWidthPx * static_cast<double>(longest);
  const double h = 8 + kLegendLinePx * static_cast<double>(lines.size());
  svg.Open("g", Attr("class", "legend"));
  svg.Empty("rect", Px("x", x0) + Px("y", y0) + Px("width", w) +
                        Px("height", h) + Attr("fill", "#ffffff") +
                        Attr("fill-opacity", "0.88") + Attr("stroke", "#ccc") +
                        Attr("rx", "4"));
  double y = y0 + 4 + kLegendLinePx / 2;
  for (const Line& l : lines) {
    const double sx = x0 + 8;
    switch (l.kind) {
      case Line::kRoof:
      case Line::kEffective:
        svg.Empty(
            "line",
            Px("x1", sx) + Px("x2", sx + 20) + Px("y1", y) + Px("y2", y) +
                Attr("stroke", l.color) +
                Attr("stroke-width", l.kind == Line::kRoof ? "2.2" : "1.5") +
                (l.kind == Line::kEffective ? Attr("stroke-dasharray", "7 5")
                                            : std::string()));
        break;
      case Line::kBound:
        // A round rect, not a <circle>: circles are reserved for layers.
        svg.Empty("rect", Attr("class", "legend-swatch") + Px("x", sx + 5) +
                              Px("y", y - 5) + Px("width", 10) +
                              Px("height", 10) + Px("rx", 5) +
                              Attr("fill", l.color) +
                              Attr("fill-opacity", "0.8"));
        break;
      case Line::kNote:
        break;
    }
    svg.Text(Px("x", sx + 28) + Px("y", y + 4) + Attr("font-size", "11") +
                 Attr("fill", l.kind == Line::kNote ? l.color : "#222"),
             l.text);
    y += kLegendLinePx;
  }
  svg.Close("g");
}

}  // namespace

bool IsPlotted(const LayerResult& layer) {
  return !layer.cost.view && !layer.skipped && layer.latency_s > 0;
}

std::string DecadeLabel(int exponent) {
  static constexpr std::string_view kPrefixes[] = {"",  "k", "M", "G",
                                                   "T", "P", "E"};
  if (exponent < 0) {
    return fmt::format("{:.{}f}", std::pow(10.0, exponent), -exponent);
  }
  if (exponent / 3 >= 7) return fmt::format("1e{}", exponent);
  const int within = exponent % 3;  // 0 -> "1", 1 -> "10", 2 -> "100"
  return fmt::format("{}{}",
                     within == 0   ? "1"
                     : within == 1 ? "10"
                                   : "100",
                     kPrefixes[exponent / 3]);
}

std::string_view BoundColor(Bound bound) {
  switch (bound) {
    case Bound::kCompute:
      return "#e4572e";
    case Bound::kMemory:
      return "#2e86de";
    case Bound::kOverhead:
      return "#9b59b6";
    case Bound::kNone:
      break;
  }
  return "#9e9e9e";
}

std::string_view DeviceColor(size_t index) {
  static constexpr std::string_view kColors[] = {
      "#222222", "#16a085", "#d35400", "#8e44ad",
      "#c0392b", "#2c3e50", "#7f8c8d", "#b7950b"};
  return kColors[index % (sizeof(kColors) / sizeof(kColors[0]))];
}

RooflineAxes ChooseRooflineAxes(const std::vector<const Analysis*>& analyses,
                                const SvgOptions& options) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double x_lo = kInf, x_hi = 0, y_lo = kInf, y_hi = 0;
  for (const Analysis* a : analyses) {
    if (a == nullptr) continue;
    const Roof roof = RoofOf(*a);
    if (roof.valid()) {
      x_lo = std::min({x_lo, roof.ridge(), roof.effective_ridge()});
      x_hi = std::max(x_hi, kRidgeRightExtent *
                                std::max(roof.ridge(), roof.effective_ridge()));
      y_hi = std::max(y_hi, kRoofHeadroom * roof.peak);
    }
    for (const LayerResult& l : a->layers) {
      if (!IsPlotted(l)) continue;
      if (l.intensity > 0) {
        x_lo = std::min(x_lo, l.intensity);
        x_hi = std::max(x_hi, kPointRightExtent * l.intensity);
      }
      const double attained = Attained(l);
      if (attained > 0) {
        y_lo = std::min(y_lo, attained);
        y_hi = std::max(y_hi, attained);
      }
    }
  }
  RooflineAxes axes;
  axes.x_min = x_lo < kInf ? FloorDecade(x_lo) : 0;
  axes.x_max = x_hi > 0 ? CeilDecade(x_hi) : 0;
  axes.y_min = y_lo < kInf ? FloorDecade(y_lo) : 0;
  axes.y_max = y_hi > 0 ? CeilDecade(y_hi) : 0;
  FixSpan(axes.x_min, axes.x_max, kMaxDecadesX);
  FixSpan(axes.y_min, axes.y_max, kMaxDecadesY);
  if (options.x_min > 0) axes.x_min = options.x_min;
  if (options.x_max > 0) axes.x_max = options.x_max;
  if (options.y_min > 0) axes.y_min = options.y_min;
  if (options.y_max > 0) axes.y_max = options.y_max;
  // Explicit but inverted or empty ranges fall back to one decade.
  if (!(axes.x_max > axes.x_min)) axes.x_max = axes.x_min * 10;
  if (!(axes.y_max > axes.y_min)) axes.y_max = axes.y_min * 10;
  return axes;
}

std::string RenderRooflineSvg(const std::vector<const Analysis*>& input,
                              const SvgOptions& options) {
  std::vector<const Analysis*> analyses;
  for (const Analysis* a : input) {
    if (a != nullptr) analyses.push_back(a);
  }
  const RooflineAxes axes = ChooseRooflineAxes(analyses, options);
  const Frame f(options, axes);
  const std::string id_prefix = options.id.empty() ? "roofline" : options.id;

  std::string root = Attr("class", "roofline") +
                     Attr("font-family", kFontFamily) +
                     Attr("font-size", "12") + Attr("fill", "#222");
  if (!options.id.empty()) root += Attr("id", options.id);
  if (!analyses.empty()) root += Attr("data-model", analyses[0]->model);
  SvgWriter svg(options.width, options.height, root);

  std::string title = options.title;
  if (title.empty() && !analyses.empty()) {
    const Assumptions& as = analyses[0]->assumptions;
    const std::string tail = fmt::format(
        " ({}, 1 MAC = {:g} FLOPs)",
        as.precision.empty() ? "model dtypes" : as.precision, as.flops_per_mac);
    // A long model path is elided in the middle to the plot's width (the
    // whole path stays in data-model), instead of running off the right.
    constexpr double kTitleCharPx = 8.5;  // 15 px semibold, approximate
    const double room_px = options.width - f.left() - 8;
    const size_t room =
        static_cast<size_t>(std::max(0.0, room_px / kTitleCharPx));
    const size_t fixed = DisplayWidth("Roofline: ") + DisplayWidth(tail);
    const std::string model = EscapeControl(
        analyses[0]->model.empty() ? "model" : analyses[0]->model);
    title = fmt::format("Roofline: {}{}",
                        ElideMiddle(model, room > fixed + 8 ? room - fixed : 8),
                        tail);
  }
  svg.Empty("rect", Px("x", 0) + Px("y", 0) + Px("width", options.width) +
                        Px("height", options.height) + Attr("fill", "#ffffff"));
  svg.Text(Attr("class", "plot-title") + Px("x", f.left()) + Px("y", 24) +
               Attr("font-size", "15") + Attr("font-weight", "600"),
           title);
  svg.Open("defs", "");
  svg.Open("clipPath", Attr("id", id_prefix + "-clip"));
  svg.Empty("rect", Px("x", f.left()) + Px("y", f.top()) +
                        Px("width", f.right() - f.left()) +
                        Px("height", f.bottom() - f.top()));
  svg.Close("clipPath");
  svg.Close("defs");

  DrawAxes(f, svg);
  DrawRoofs(analyses, f, fmt::format("url(#{}-clip)", id_prefix), svg);
  DrawPoints(analyses, f, options, svg);
  DrawLegend(analyses, f, svg);
  return std::move(svg).Finish();
}

}  // namespace ridgeline::engine::report
