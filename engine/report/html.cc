#include "engine/report/html.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "engine/analysis.h"
#include "engine/report/bars.h"
#include "engine/report/layer_rows.h"
#include "engine/report/layer_shapes.h"
#include "engine/report/line_chart.h"
#include "engine/report/report_template.h"
#include "engine/report/sections.h"
#include "engine/report/svg.h"
#include "engine/report/units.h"
#include "engine/report/xml_escape.h"
#include "fmt/format.h"

namespace ridgeline::engine::report {
namespace {

constexpr double kChartWidth = 1240;
// Op types with their own colour in the breakdown; the rest are "other ops".
constexpr size_t kMaxOpTypeSegments = 10;
constexpr std::string_view kOpTypeColors[kMaxOpTypeSegments] = {
    "#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1",
    "#5f9ea0", "#9c755f", "#c9a227", "#d37295", "#6b6ecf"};
constexpr std::string_view kOtherColor = "#a0a7ae";
constexpr std::string_view kDispatchColor = "#4a4f55";

std::string Esc(std::string_view s) { return EscapeXml(s); }

// Layers listed in the tables: the ones drawn in the plot.
bool IsListed(const LayerResult& l) { return IsPlotted(l); }

std::string DeviceName(const Analysis& a) {
  return a.hardware.name.empty() ? a.hardware.key : a.hardware.name;
}

std::string PrecisionText(const Assumptions& as) {
  return as.precision.empty() ? std::string("model dtypes") : as.precision;
}

double Ridge(const Assumptions& as) {
  return as.memory_bandwidth_bytes_per_s > 0
             ? as.peak_flops_per_s / as.memory_bandwidth_bytes_per_s
             : 0;
}

double TotalLatency(const Analysis& a) {
  if (a.summary.latency_s > 0) return a.summary.latency_s;
  double sum = 0;
  for (const LayerResult& l : a.layers) sum += l.latency_s;
  return sum;
}

std::string Pill(Bound bound) {
  const std::string_view name = BoundName(bound);
  return fmt::format("<span class=\"pill {0}\">{0}</span>", Esc(name));
}

std::string BoundCss() {
  std::string css;
  for (Bound b :
       {Bound::kCompute, Bound::kMemory, Bound::kOverhead, Bound::kNone}) {
    css += fmt::format(".pill.{} {{ background: {}; }}\n", Esc(BoundName(b)),
                       BoundColor(b));
  }
  return css;
}

std::string Card(std::string_view key, std::string_view value,
                 std::string_view sub) {
  return fmt::format(
      "<div class=\"card\"><div class=\"k\">{}</div><div class=\"v\">{}</div>"
      "<div class=\"s\">{}</div></div>\n",
      Esc(key), Esc(value), Esc(sub));
}

std::string KeyValueList(const std::vector<KeyValue>& rows) {
  std::string out = "<dl class=\"kv\">\n";
  for (const KeyValue& kv : rows) {
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", Esc(kv.key), Esc(kv.value));
  }
  out += "</dl>\n";
  return out;
}

std::string SummaryHtml(const Analysis& a) {
  const Summary& s = a.summary;
  const Assumptions& as = a.assumptions;
  const double total = TotalLatency(a);
  const auto share = [&](double t) {
    return FormatPercent(total > 0 ? t / total : 0);
  };
  int64_t views = 0;
  for (const LayerResult& l : a.layers) views += l.cost.view ? 1 : 0;

  std::string out = "<div class=\"cards\">\n";
  out += Card("Latency", FormatSeconds(s.latency_s),
              fmt::format("per inference, batch {}", a.batch));
  out += Card("Throughput", fmt::format("{:.4g} /s", s.throughput_per_s),
              "inferences per second (batch / latency)");
  out += Card("Compute", FormatSi(s.flops, "FLOP"),
              fmt::format("{} MACs, 1 MAC = {:g} FLOPs", FormatSi(s.macs, ""),
                          as.flops_per_mac));
  out += Card("MFU", FormatPercent(s.mfu),
              fmt::format("of the {} peak, {}FLOP/s", as.peak_precision,
                          FormatSi(as.peak_flops_per_s, "")));
  out += Card("Memory traffic", FormatSi(s.bytes, "B"),
              "bytes read + written by all layers");
  out += Card("Parameters", FormatSi(static_cast<double>(s.params), ""),
              fmt::format("weights {}", FormatSi(s.weight_bytes, "B")));
  out += Card("Peak activations", FormatSi(s.peak_activation_bytes, "B"),
              fmt::format("{} device memory ({})",
                          s.fits_in_memory ? "fits in" : "does NOT fit in",
                          FormatSi(a.hardware.memory_capacity_bytes, "B")));
  out += Card("Bound", std::string(BoundName(s.bound)),
              "the roofline regime holding most of the time");
  out += Card("Runtime", a.assumptions.runtime,
              fmt::format("{} kernels; {} host (shape) layers", s.kernels,
                          s.host_layers));
  out += Card("Overhead", FormatSeconds(s.overhead_s),
              fmt::format("{} of latency: fixed kernel cost, launch, "
                          "tile/wave quantization, per-inference",
                          share(s.overhead_s)));
  out += Card("Layers", fmt::format("{}", s.layers),
              fmt::format("non-view; plus {} views", views));
  out += Card(
      "Compute-bound", fmt::format("{} layers", s.compute_bound_layers),
      fmt::format("{} ({} of latency)", FormatSeconds(s.compute_bound_time_s),
                  share(s.compute_bound_time_s)));
  out += Card(
      "Memory-bound", fmt::format("{} layers", s.memory_bound_layers),
      fmt::format("{} ({} of latency)", FormatSeconds(s.memory_bound_time_s),
                  share(s.memory_bound_time_s)));
  out += Card(
      "Overhead-dominated", fmt::format("{} layers", s.overhead_bound_layers),
      fmt::format("{} ({} of latency)", FormatSeconds(s.overhead_bound_time_s),
                  share(s.overhead_bound_time_s)));
  out += "</div>\n";
  for (const std::string& line : WarningLines(a)) {
    out += fmt::format("<div class=\"warn\">{}</div>\n", Esc(line));
  }
  return out;
}

std::string AssumptionsBlock(const Analysis& a) {
  // The same items as the text and Markdown reports, plus the ridge points.
  std::vector<KeyValue> rows;
  rows.push_back({"device", DeviceName(a)});
  for (const auto& [key, value] : AssumptionItems(a)) {
    rows.push_back({key, value});
  }
  for (const auto& [key, value] : RooflineItems(a)) {
    if (key.find("ridge") != std::string::npos) rows.push_back({key, value});
  }
  rows.push_back({"batch", fmt::format("{}", a.batch)});
  rows.push_back({"units", "bytes in decimal SI units (1 MB = 10^6 B)"});
  return KeyValueList(rows);
}

// One line with the assumptions that move the numbers most.
std::string KeyAssumptions(const Analysis& a) {
  const Assumptions& as = a.assumptions;
  return fmt::format(
      "<p class=\"keyassume\"><b>Assumed:</b> {} peak {} x {:g} compute "
      "efficiency; {} x {:g} memory efficiency; {} per-layer tax; {} dispatch "
      "tax; 1 MAC = {:g} FLOPs. <a href=\"#assumptions\">All assumptions</a>"
      "</p>\n",
      Esc(as.peak_precision), Esc(FormatSi(as.peak_flops_per_s, "FLOP/s")),
      as.compute_efficiency,
      Esc(FormatSi(as.memory_bandwidth_bytes_per_s, "B/s")),
      as.memory_efficiency, Esc(FormatSeconds(as.per_layer_tax_s)),
      Esc(FormatSeconds(as.dispatch_tax_s)), as.flops_per_mac);
}

// Check boxes that show or hide each device's points (several devices).
std::string DeviceToggles(const std::vector<const Analysis*>& all) {
  if (all.size() < 2) return "";
  std::string out = "<div class=\"toggles\">Points shown for:";
  for (size_t i = 0; i < all.size(); ++i) {
    out += fmt::format(
        " <label><input type=\"checkbox\" data-device=\"{}\"{}> "
        "<span class=\"swatch\" style=\"border-color:{}\"></span>{}</label>",
        Esc(all[i]->hardware.key), i == 0 ? " checked" : "", DeviceColor(i),
        Esc(DeviceName(*all[i])));
  }
  out += "</div>\n";
  return out;
}

std::string DevicesTable(const std::vector<const Analysis*>& all) {
  if (all.size() < 2) return "";
  std::string out =
      "<section id=\"devices\"><h2>Devices</h2>\n<table>\n<thead><tr>"
      "<th>Device</th><th class=\"num\">Peak</th><th class=\"num\">Bandwidth"
      "</th><th class=\"num\">Ridge (FLOP/B)</th><th class=\"num\">Latency"
      "</th><th class=\"num\">Throughput (/s)</th><th class=\"num\">MFU</th>"
      "<th>Bound</th><th>Fits in memory</th></tr></thead>\n<tbody>\n";
  for (const Analysis* a : all) {
    const Assumptions& as = a->assumptions;
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{} ({})</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{:.3g}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{:.4g}</td><td class=\"num\">{}</td><td>{}</td>"
        "<td>{}</td></tr>\n",
        Esc(DeviceName(*a)), Esc(FormatSi(as.peak_flops_per_s, "FLOP/s")),
        Esc(as.peak_precision),
        Esc(FormatSi(as.memory_bandwidth_bytes_per_s, "B/s")), Ridge(as),
        Esc(FormatSeconds(a->summary.latency_s)), a->summary.throughput_per_s,
        Esc(FormatPercent(a->summary.mfu)), Pill(a->summary.bound),
        a->summary.fits_in_memory ? "yes" : "no");
  }
  out += "</tbody>\n</table>\n</section>\n";
  return out;
}

// Op types of `primary` by total latency, largest first.
std::vector<std::string> OpTypesByTime(const Analysis& primary) {
  std::map<std::string, double> time;
  for (const LayerResult& l : primary.layers) {
    if (IsListed(l)) time[l.op_type] += l.latency_s;
  }
  std::vector<std::pair<std::string, double>> sorted(time.begin(), time.end());
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const auto& x, const auto& y) { return x.second > y.second; });
  std::vector<std::string> out;
  for (const auto& [op, t] : sorted) out.push_back(op);
  return out;
}

std::string Breakdown(const std::vector<const Analysis*>& all) {
  const std::vector<std::string> ops = OpTypesByTime(*all.front());
  // Ops past the palette share one "other ops" segment.
  const size_t named =
      ops.size() <= kMaxOpTypeSegments ? ops.size() : kMaxOpTypeSegments - 1;
  std::vector<StackedBar> by_op;
  std::vector<StackedBar> by_bound;
  for (const Analysis* a : all) {
    StackedBar op_bar{.label = DeviceName(*a)};
    std::map<std::string, double> time;
    for (const LayerResult& l : a->layers) {
      if (IsListed(l)) time[l.op_type] += l.latency_s;
    }
    double other = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
      const double t = time.count(ops[i]) ? time[ops[i]] : 0;
      time.erase(ops[i]);
      if (i < named) {
        op_bar.segments.push_back({ops[i], t, std::string(kOpTypeColors[i])});
      } else {
        other += t;
      }
    }
    for (const auto& [op, t] : time) other += t;  // ops only on this device
    if (other > 0) {
      op_bar.segments.push_back({"other ops", other, std::string(kOtherColor)});
    }
    const double dispatch = a->assumptions.dispatch_tax_s;
    if (dispatch > 0) {
      op_bar.segments.push_back(
          {"dispatch tax", dispatch, std::string(kDispatchColor)});
    }
    by_op.push_back(std::move(op_bar));

    StackedBar bound_bar{.label = DeviceName(*a)};
    // Roofline time by regime, and the overhead apart.
    double t_bound[3] = {0, 0, 0};
    for (const LayerResult& l : a->layers) {
      if (!IsListed(l)) continue;
      const double roof = l.latency_s - l.t_overhead_s;
      if (l.regime == Regime::kCompute) t_bound[0] += roof;
      if (l.regime == Regime::kMemory) t_bound[1] += roof;
      t_bound[2] += l.t_overhead_s;
    }
    const Bound bounds[3] = {Bound::kCompute, Bound::kMemory, Bound::kOverhead};
    const char* const labels[3] = {"compute regime (roofline)",
                                   "memory regime (roofline)",
                                   "kernel overhead"};
    for (int i = 0; i < 3; ++i) {
      bound_bar.segments.push_back(
          {labels[i], t_bound[i], std::string(BoundColor(bounds[i]))});
    }
    if (dispatch > 0) {
      bound_bar.segments.push_back(
          {"dispatch tax", dispatch, std::string(kDispatchColor)});
    }
    by_bound.push_back(std::move(bound_bar));
  }
  std::string out =
      "<h3>By op type</h3>\n<div class=\"plot\" id=\"breakdown-op\">";
  out += RenderStackedBarsSvg(by_op, kChartWidth);
  out +=
      "</div>\n<h3>By bound</h3>\n<div class=\"plot\" id=\"breakdown-bound\">";
  out += RenderStackedBarsSvg(by_bound, kChartWidth);
  out +=
      "</div>\n<p class=\"note\">Each layer's whole latency (including its "
      "per-layer tax) counts for its op type and for its bound; the "
      "dispatch tax is paid once per inference.</p>\n";
  return out;
}

std::string TopLayers(const Analysis& a, int k) {
  std::vector<const LayerResult*> layers;
  for (const LayerResult& l : a.layers) {
    if (IsListed(l)) layers.push_back(&l);
  }
  std::stable_sort(layers.begin(), layers.end(),
                   [](const LayerResult* x, const LayerResult* y) {
                     return x->latency_s > y->latency_s;
                   });
  if (k >= 0 && layers.size() > static_cast<size_t>(k)) layers.resize(k);
  const double total = TotalLatency(a);
  const double top_share =
      layers.empty() || !(total > 0) ? 0 : layers.front()->latency_s / total;
  std::string out =
      "<table id=\"top-table\">\n<thead><tr><th class=\"num\">#</th>"
      "<th>Name</th><th>Op</th><th>Output shape</th><th class=\"num\">FLOPs"
      "</th><th class=\"num\">Bytes</th><th class=\"num\">FLOP/B</th>"
      "<th class=\"num\">Latency</th><th>Share of latency</th>"
      "<th>Bound</th></tr></thead>\n<tbody>\n";
  double covered = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerResult& l = *layers[i];
    const double share = total > 0 ? l.latency_s / total : 0;
    covered += share;
    const double bar_px = top_share > 0 ? 120 * share / top_share : 0;
    out += fmt::format(
        "<tr data-name=\"{0}\" data-node=\"{1}\"><td class=\"num\">{2}</td>"
        "<td class=\"name\" title=\"{0}\">{0}</td><td>{3}</td><td>{4}</td>"
        "<td class=\"num\">{5}</td><td class=\"num\">{6}</td>"
        "<td class=\"num\">{7:.3g}</td><td class=\"num\">{8}</td>"
        "<td><span class=\"sharebar\" style=\"width:{9:.1f}px\"></span>{10}"
        "</td><td>{11}</td></tr>\n",
        Esc(l.name), l.node, i + 1, Esc(l.op_type), Esc(OutputShapeText(l)),
        Esc(FormatSi(l.flops, "")), Esc(FormatSi(l.bytes, "B")), l.intensity,
        Esc(FormatSeconds(l.latency_s)), bar_px, Esc(FormatPercent(share)),
        Pill(l.bound));
  }
  out += "</tbody>\n</table>\n";
  out += fmt::format(
      "<p class=\"note\">The top {} layers take {} of the model's "
      "latency.</p>\n",
      layers.size(), FormatPercent(covered));
  return out;
}

struct Column {
  std::string key;
  std::string label;
  bool numeric = false;
  std::string title;  // hover text of the header
};

std::string LayerTable(const Analysis& a,
                       const std::vector<const Analysis*>& others) {
  std::vector<Column> columns = {
      {"idx", "#", true},
      {"name", "Name", false},
      {"op", "Op", false},
      {"shape", "Output shape", false},
      {"flops", "FLOPs", true},
      {"bytes", "Bytes", true},
      {"intensity", "FLOP/B", true},
      {"t_compute_s", "T compute", true},
      {"t_memory_s", "T memory", true},
      {"latency_s", "Latency", true},
      {"share", "% total", true},
      {"bound", "Bound", false},
  };
  // Per other device: the same layer's latency there (matched by node).
  std::vector<absl::flat_hash_map<int, const LayerResult*>> other_layers;
  for (const Analysis* o : others) {
    columns.push_back({"latency_s@" + o->hardware.key,
                       "Latency " + o->hardware.key, true,
                       "Latency of the layer on " + DeviceName(*o)});
    auto& m = other_layers.emplace_back();
    for (const LayerResult& l : o->layers) m[l.node] = &l;
  }

  std::string out =
      "<table id=\"layer-table\" class=\"sortable\">\n<thead><tr>";
  for (const Column& c : columns) {
    out += fmt::format(
        "<th data-key=\"{}\" data-type=\"{}\"{}{}>{}</th>", Esc(c.key),
        c.numeric ? "num" : "text", c.numeric ? " class=\"num\"" : "",
        c.title.empty() ? "" : " title=\"" + Esc(c.title) + "\"", Esc(c.label));
  }
  out += "</tr></thead>\n<tbody>\n";
  const double total = TotalLatency(a);
  std::map<std::string, int> view_ops;
  int views = 0;
  std::vector<std::string> skipped;
  int index = 0;
  for (const LayerResult& l : a.layers) {
    ++index;
    if (l.skipped) {
      skipped.push_back(l.name);
      continue;
    }
    if (!IsListed(l)) {  // views and other zero-latency layers
      ++views;
      ++view_ops[l.op_type];
      continue;
    }
    const std::string shape = OutputShapeText(l);
    const std::string bound(BoundName(l.bound));
    const double share = total > 0 ? l.latency_s / total : 0;
    out += fmt::format(
        "<tr data-name=\"{}\" data-node=\"{}\" data-search=\"{}\">",
        Esc(l.name), l.node,
        Esc(fmt::format("{} {} {} {}", l.name, l.op_type, shape, bound)));
    const auto num = [&](double v, std::string_view shown) {
      out +=
          fmt::format("<td class=\"num\" data-v=\"{}\">{}</td>", v, Esc(shown));
    };
    num(index, fmt::format("{}", index));
    out += fmt::format("<td class=\"name\" title=\"{}\">{}</td>",
                       Esc(fmt::format("{}\n{}", l.name, LayerShapes(l))),
                       Esc(l.name));
    out += fmt::format(
        "<td>{}{}</td>", Esc(l.op_type),
        l.domain.empty() ? "" : " <small>(" + Esc(l.domain) + ")</small>");
    out += fmt::format("<td>{}</td>", Esc(shape));
    num(l.flops, FormatSi(l.flops, ""));
    num(l.bytes, FormatSi(l.bytes, "B"));
    num(l.intensity, fmt::format("{:.3g}", l.intensity));
    num(l.t_compute_s, FormatSeconds(l.t_compute_s));
    num(l.t_memory_s, FormatSeconds(l.t_memory_s));
    num(l.latency_s, FormatSeconds(l.latency_s));
    num(share, FormatPercent(share));
    out += fmt::format("<td data-v=\"{}\">{}</td>", Esc(bound), Pill(l.bound));
    for (const auto& m : other_layers) {
      auto it = m.find(l.node);
      if (it == m.end()) {
        out += "<td class=\"num\" data-v=\"-1\">-</td>";
      } else {
        num(it->second->latency_s, FormatSeconds(it->second->latency_s));
      }
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n";
  if (views > 0) {
    std::string kinds;
    for (const auto& [op, n] : view_ops) {
      if (!kinds.empty()) kinds += ", ";
      kinds += fmt::format("{} x{}", op, n);
    }
    out += fmt::format(
        "<tbody class=\"views\"><tr><td colspan=\"{}\">{} view layers ({}): "
        "zero latency, not listed one by one</td></tr></tbody>\n",
        columns.size(), views, Esc(kinds));
  }
  if (!skipped.empty()) {
    std::string names;
    for (size_t i = 0; i < skipped.size(); ++i) {
      if (i == 10) {
        names += fmt::format(", ... ({} more)", skipped.size() - 10);
        break;
      }
      names += (i > 0 ? ", " : "") + skipped[i];
    }
    out += fmt::format(
        "<tbody class=\"views skipped\"><tr><td colspan=\"{}\">{} layers "
        "not costed (see the warnings in the summary): {}</td></tr></tbody>\n",
        columns.size(), skipped.size(), Esc(names));
  }
  out += "</table>\n";
  return out;
}

std::string SectionId(std::string_view prefix, size_t i) {
  return fmt::format("{}-{}", prefix, i);
}

void ExtraSections(const HtmlReportInput& in, std::string& body,
                   std::string& nav) {
  for (size_t i = 0; i < in.comparisons.size(); ++i) {
    const ComparisonTable& t = in.comparisons[i];
    const std::string id = SectionId("comparison", i);
    nav += fmt::format("<a href=\"#{}\">{}</a>", id, Esc(t.title));
    body += fmt::format(
        "<section id=\"{}\" class=\"extra\"><h2>{}</h2>\n"
        "<table>\n<thead><tr>",
        id, Esc(t.title));
    // The first column names the row; the others are values.
    for (size_t c = 0; c < t.columns.size(); ++c) {
      body += fmt::format("<th{}>{}</th>", c > 0 ? " class=\"num\"" : "",
                          Esc(t.columns[c]));
    }
    body += "</tr></thead>\n<tbody>\n";
    for (const std::vector<std::string>& row : t.rows) {
      body += "<tr>";
      for (size_t c = 0; c < row.size(); ++c) {
        body += fmt::format("<td{}>{}</td>", c > 0 ? " class=\"num\"" : "",
                            Esc(row[c]));
      }
      body += "</tr>\n";
    }
    body += "</tbody>\n</table>\n";
    if (!t.note.empty()) {
      body += fmt::format("<p class=\"note\">{}</p>\n", Esc(t.note));
    }
    body += "</section>\n";
  }
  for (size_t i = 0; i < in.line_charts.size(); ++i) {
    const LineChart& c = in.line_charts[i];
    const std::string id = SectionId("line-chart", i);
    nav += fmt::format("<a href=\"#{}\">{}</a>", id, Esc(c.title));
    body += fmt::format(
        "<section id=\"{}\" class=\"extra\"><h2>{}</h2>\n<div class=\"plot\">{}"
        "</div>\n",
        id, Esc(c.title), RenderLineChartSvg(c, kChartWidth));
    if (!c.note.empty()) {
      body += fmt::format("<p class=\"note\">{}</p>\n", Esc(c.note));
    }
    body += "</section>\n";
  }
  for (size_t i = 0; i < in.stacked_bars.size(); ++i) {
    const StackedBarChart& c = in.stacked_bars[i];
    const std::string id = SectionId("stacked-bars", i);
    nav += fmt::format("<a href=\"#{}\">{}</a>", id, Esc(c.title));
    body += fmt::format(
        "<section id=\"{}\" class=\"extra\"><h2>{}</h2>\n<div class=\"plot\">{}"
        "</div>\n",
        id, Esc(c.title), RenderStackedBarsSvg(c.bars, kChartWidth, c.unit));
    if (!c.note.empty()) {
      body += fmt::format("<p class=\"note\">{}</p>\n", Esc(c.note));
    }
    body += "</section>\n";
  }
  for (size_t i = 0; i < in.before_after.size(); ++i) {
    const BeforeAfterChart& c = in.before_after[i];
    const std::string id = SectionId("before-after", i);
    nav += fmt::format("<a href=\"#{}\">{}</a>", id, Esc(c.title));
    body += fmt::format(
        "<section id=\"{}\" class=\"extra\"><h2>{}</h2>\n<div class=\"plot\">{}"
        "</div>\n",
        id, Esc(c.title), RenderBeforeAfterSvg(c, kChartWidth));
    if (!c.note.empty()) {
      body += fmt::format("<p class=\"note\">{}</p>\n", Esc(c.note));
    }
    body += "</section>\n";
  }
  for (size_t i = 0; i < in.sections.size(); ++i) {
    const KeyValueSection& s = in.sections[i];
    const std::string id = SectionId("section", i);
    nav += fmt::format("<a href=\"#{}\">{}</a>", id, Esc(s.title));
    body += fmt::format("<section id=\"{}\" class=\"extra\"><h2>{}</h2>\n{}",
                        id, Esc(s.title), KeyValueList(s.rows));
    if (!s.note.empty()) {
      body += fmt::format("<p class=\"note\">{}</p>\n", Esc(s.note));
    }
    body += "</section>\n";
  }
}

}  // namespace

std::string FillTemplate(
    std::string_view text,
    const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  out.reserve(text.size() * 2);
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) break;
    const size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    const std::string_view key = text.substr(open + 2, close - open - 2);
    const auto it =
        std::find_if(values.begin(), values.end(),
                     [&](const auto& kv) { return kv.first == key; });
    out.append(text.substr(pos, open - pos));
    if (it == values.end()) {
      out.append("{{");  // not a placeholder we know: keep it, move on
      pos = open + 2;
      continue;
    }
    out.append(it->second);
    pos = close + 2;
  }
  out.append(text.substr(pos));
  return out;
}

std::string RenderHtmlReport(const HtmlReportInput& in) {
  if (in.primary == nullptr) {
    std::vector<std::pair<std::string, std::string>> empty;
    for (std::string_view key :
         {"SUMMARY", "ASSUMPTIONS", "DEVICES", "DEVICE_TOGGLES", "ROOFLINE",
          "BREAKDOWN", "TOP_LAYERS", "EXTRA_NAV", "EXTRA_SECTIONS",
          "LAYER_TABLE"}) {
      empty.emplace_back(std::string(key), "");
    }
    empty.emplace_back("TITLE", "ridgeline report");
    empty.emplace_back("SUBTITLE", "no analysis was given");
    empty.emplace_back("BOUND_CSS", BoundCss());
    empty.emplace_back("FOOTER", "Generated by ridgeline.");
    return FillTemplate(ReportTemplate(), empty);
  }
  const Analysis& a = *in.primary;
  std::vector<const Analysis*> all = {&a};
  std::vector<const Analysis*> others;
  for (const Analysis* o : in.other_hardware) {
    if (o != nullptr && o != &a) {
      all.push_back(o);
      others.push_back(o);
    }
  }
  const std::string model = a.model.empty() ? "model" : a.model;
  const std::string title = in.title.empty()
                                ? fmt::format("{} on {}", model, DeviceName(a))
                                : in.title;
  std::string devices;
  for (const Analysis* x : all) {
    if (!devices.empty()) devices += ", ";
    devices += DeviceName(*x);
  }
  const std::string subtitle = fmt::format(
      "ridgeline roofline report | {} | {} | batch {} | 1 MAC = {:g} FLOPs",
      devices, PrecisionText(a.assumptions), a.batch,
      a.assumptions.flops_per_mac);

  SvgOptions svg_options;
  svg_options.id = "roofline-plot";
  svg_options.width = kChartWidth;
  svg_options.height = 640;
  svg_options.show_other_device_points = false;  // toggled on the page

  std::string extra_body;
  std::string extra_nav;
  ExtraSections(in, extra_body, extra_nav);

  const std::string footer =
      in.generator.empty()
          ? std::string(
                "Generated by ridgeline. Self-contained page: no "
                "network access, no external resources.")
          : fmt::format(
                "Generated by {}. Self-contained page: no network "
                "access, no external resources.",
                Esc(in.generator));

  return FillTemplate(ReportTemplate(),
                      {
                          {"TITLE", Esc(title)},
                          {"SUBTITLE", Esc(subtitle)},
                          {"BOUND_CSS", BoundCss()},
                          {"SUMMARY", SummaryHtml(a) + KeyAssumptions(a)},
                          {"DEVICE_TOGGLES", DeviceToggles(all)},
                          {"ASSUMPTIONS", AssumptionsBlock(a)},
                          {"DEVICES", DevicesTable(all)},
                          {"ROOFLINE", RenderRooflineSvg(all, svg_options)},
                          {"BREAKDOWN", Breakdown(all)},
                          {"TOP_LAYERS", TopLayers(a, in.top_layers)},
                          {"EXTRA_NAV", extra_nav},
                          {"EXTRA_SECTIONS", extra_body},
                          {"LAYER_TABLE", LayerTable(a, others)},
                          {"FOOTER", footer},
                      });
}

}  // namespace ridgeline::engine::report
