// The roofline plot as a self-contained SVG document: log-log axes
// (arithmetic intensity in FLOP/byte on x, attained FLOP/s on y), for each
// device its peak roof (solid) and effective roof at the chosen efficiencies
// (dashed) with the ridge points marked, and one <circle class="pt"> per
// non-view layer at (intensity, flops / latency), its area proportional to
// the layer's share of latency and its colour the layer's bound.
//
//   std::string svg = report::RenderRooflineSvg({&analysis}, {});
//
// Each point carries data-* attributes for scripts and tests (units in the
// name or below): data-name, data-op, data-shapes, data-node, data-device,
// data-flops (FLOPs), data-bytes (bytes), data-intensity (FLOP/byte),
// data-attained-flops-per-s, data-latency-s, data-share (fraction of the
// model's latency), data-bound, data-clamped ("1" when drawn at the axis edge
// because it is outside the axes, e.g. a layer with 0 FLOPs); and a <title>
// shown on hover. No other element of the plot is a <circle>.
#ifndef RIDGELINE_ENGINE_REPORT_SVG_H_
#define RIDGELINE_ENGINE_REPORT_SVG_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/analysis.h"

namespace ridgeline::engine::report {

struct SvgOptions {
  // Size of the document in pixels.
  double width = 960;
  double height = 600;
  // The plot area is [margin_left, width - margin_right] horizontally and
  // [margin_top, height - margin_bottom] vertically.
  double margin_left = 78;
  double margin_right = 24;
  double margin_top = 40;
  double margin_bottom = 54;
  // Axis ranges: x in FLOP/byte, y in FLOP/s. 0 = chosen from the data
  // (ChooseRooflineAxes).
  double x_min = 0;
  double x_max = 0;
  double y_min = 0;
  double y_max = 0;
  // Plot title; "" = "Roofline: <model> (<precision>, 1 MAC = N FLOPs)".
  std::string title;
  // Radius in pixels of the point with the largest share of latency; the
  // others scale with sqrt(share) (area proportional to share), at least
  // min_radius.
  double max_radius = 15;
  double min_radius = 2.5;
  // id attribute of the root <svg> ("" = none); also prefixes internal ids so
  // several plots can live in one HTML page.
  std::string id;
  // With several devices: false hides (display="none") the point groups of
  // all but the first analysis, for a page that toggles them; the points are
  // still in the document.
  bool show_other_device_points = true;
};

// Axis ranges of a roofline plot (x: FLOP/byte, y: FLOP/s).
struct RooflineAxes {
  double x_min = 0;
  double x_max = 0;
  double y_min = 0;
  double y_max = 0;
};

// The ranges RenderRooflineSvg uses: the options' explicit ranges where set;
// otherwise whole decades enclosing, on x, the plotted layers' positive
// intensities, the ridge points, and 3x the largest of them; on y, the
// layers' positive attained FLOP/s and 1.8x the highest peak. At least 2
// decades per axis, at most 8 (x) and 9 (y) below the top.
RooflineAxes ChooseRooflineAxes(const std::vector<const Analysis*>& analyses,
                                const SvgOptions& options);

// Renders the plot. `analyses` are the same model on one or more devices
// (several roofs and a legend); null entries are skipped. Points are drawn
// for every analysis, grouped in <g class="points" data-device="KEY">, one
// per timed layer: not a view, not skipped, latency > 0 (IsPlotted).
std::string RenderRooflineSvg(const std::vector<const Analysis*>& analyses,
                              const SvgOptions& options);

// Whether `layer` is drawn as a point (and listed in the HTML tables): not a
// view, not skipped, and with a positive latency.
bool IsPlotted(const LayerResult& layer);

// Fill colour of points of each bound (CSS colour, shared with the HTML).
std::string_view BoundColor(Bound bound);
// Line colour of the i-th device's roofs.
std::string_view DeviceColor(size_t index);

// The tick label of the decade 10^exponent: "0.01", "0.1", "1", "10", "100",
// "1k", "10k", "100k", "1M", ... "1E", then "1e21".
std::string DecadeLabel(int exponent);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_SVG_H_
