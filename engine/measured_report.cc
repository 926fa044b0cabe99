#include "engine/measured_report.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/report/text.h"
#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

using report::FormatDuration;
using report::FormatShare;

constexpr std::string_view kConventions =
    "times are per run (mean over the runs used); ratio = measured / "
    "predicted (> 1: slower than predicted); % of roof = roofline time "
    "(FLOPs / peak vs bytes / bandwidth, no efficiencies, no taxes) / measured";

std::string Ratio(double r) {
  return std::isfinite(r) ? fmt::format("{:.2f}", r) : "-";
}

std::string Percent(double fraction) {
  return std::isfinite(fraction) ? report::FormatPercent(fraction) : "-";
}

// "lo-hi", or "-" when undefined.
std::string Range(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return "-";
  return fmt::format("{:.2f}-{:.2f}", lo, hi);
}

nlohmann::ordered_json Number(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x)
                          : nlohmann::ordered_json(nullptr);
}

// A table of the comparison: `right` columns right-aligned, at most
// `max_width` wide (names elided in the middle: "/layer4...conv3/Conv").
report::TextTable Table(std::vector<std::string> headers,
                        std::vector<bool> right, size_t max_width) {
  report::TextTable t;
  t.headers = std::move(headers);
  t.right_align = std::move(right);
  t.max_width = max_width;
  return t;
}

}  // namespace

std::string FormatComparison(const Analysis& analysis, const Comparison& c,
                             const ComparisonFormatOptions& options) {
  std::string out;
  auto line = [&out](std::string s) {
    out += s;
    out += '\n';
  };
  line(fmt::format("Predicted vs measured: {} ({} profile, {} run(s) averaged)",
                   report::EscapeControl(c.profile_path), c.profile_format,
                   c.runs_used));
  line(fmt::format("  conventions: {}", kConventions));
  size_t matched_layers = 0;
  for (const MeasuredUnit& u : c.units) matched_layers += u.layers.size();
  report::TextTable totals;
  totals.headers = {"total", "predicted", "measured", "ratio", "over"};
  totals.right_align = {false, true, true, true, false};
  totals.max_width = options.max_width;
  totals.rows.push_back(
      {"whole model", FormatDuration(c.predicted_total_s),
       FormatDuration(c.measured_total_s),
       Ratio(c.predicted_total_s > 0 ? c.measured_total_s / c.predicted_total_s
                                     : NAN),
       c.measured_total_is_whole_run
           ? "measured: the runtime's whole-run events"
           : "measured: the sum of node times"});
  totals.rows.push_back(
      {"matched", FormatDuration(c.matched_predicted_s),
       FormatDuration(c.matched_measured_s),
       Ratio(c.matched_predicted_s > 0
                 ? c.matched_measured_s / c.matched_predicted_s
                 : NAN),
       fmt::format("{} units covering {} of {} layers", c.units.size(),
                   matched_layers, analysis.layers.size())});
  out += report::RenderText(totals, "  ");
  line(fmt::format(
      "  unmatched      {} measured node(s), {} ({} of measured node time); "
      "{} non-view layer(s) unmeasured, {} predicted",
      c.unmatched_nodes.size(), FormatDuration(c.unmatched_measured_s),
      FormatShare(c.unmatched_measured_s, c.measured_node_s),
      c.unmatched_layers.size(), FormatDuration(c.unmatched_predicted_s)));
  line(fmt::format(
      "  Spearman rank correlation of per-unit predicted vs measured times: {} "
      "(n = {})",
      c.spearman ? fmt::format("{:.3f}", *c.spearman) : std::string("-"),
      c.units.size()));

  // Units by measured time.
  std::vector<size_t> order(c.units.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return c.units[x].measured_s > c.units[y].measured_s;
  });
  size_t shown =
      std::min(order.size(), static_cast<size_t>(std::max(0, options.top)));
  line("");
  line(fmt::format("Layers by measured time (top {} of {} units)", shown,
                   order.size()));
  report::TextTable layers =
      Table({"name", "op", "predicted", "measured", "ratio", "% roof", "match"},
            {false, false, true, true, true, true, false}, options.max_width);
  double rest_pred = 0, rest_meas = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const MeasuredUnit& u = c.units[order[i]];
    if (i >= shown) {
      rest_pred += u.predicted_s;
      rest_meas += u.measured_s;
      continue;
    }
    std::string match(MatchKindName(u.kind));
    if (u.layers.size() > 1) {
      match += fmt::format(", {} layers fused", u.layers.size());
    }
    layers.rows.push_back({u.name, u.op_type, FormatDuration(u.predicted_s),
                           FormatDuration(u.measured_s), Ratio(u.ratio),
                           Percent(u.roof_fraction), match});
  }
  if (shown < order.size()) {
    layers.rows.push_back(
        {fmt::format("other ({} units)", order.size() - shown), "",
         FormatDuration(rest_pred), FormatDuration(rest_meas),
         Ratio(rest_pred > 0 ? rest_meas / rest_pred : NAN)});
  }
  out += report::RenderText(layers, "  ");

  line("");
  line("Ratio measured / predicted by op type (quantiles over units)");
  report::TextTable ops = Table(
      {"op", "units", "predicted", "measured", "median", "p25-p75", "min-max"},
      {false, true, true, true, true, true, true}, options.max_width);
  for (const OpTypeRatios& op : c.by_op_type) {
    ops.rows.push_back({op.op_type, fmt::format("{}", op.units),
                        FormatDuration(op.predicted_s),
                        FormatDuration(op.measured_s), Ratio(op.median),
                        Range(op.p25, op.p75), Range(op.min, op.max)});
  }
  out += report::RenderText(ops, "  ");

  line("");
  line(
      "Optimization targets (largest measured - roof time: the most an "
      "optimization could win)");
  report::TextTable targets =
      Table({"name", "op", "measured", "roof", "% roof", "gap"},
            {false, false, true, true, true, true}, options.max_width);
  for (int t : c.targets) {
    const MeasuredUnit& u = c.units[static_cast<size_t>(t)];
    targets.rows.push_back({u.name, u.op_type, FormatDuration(u.measured_s),
                            FormatDuration(u.roof_s), Percent(u.roof_fraction),
                            FormatDuration(u.measured_s - u.roof_s)});
  }
  out += report::RenderText(targets, "  ");

  if (!c.unmatched_nodes.empty()) {
    line("");
    size_t rows =
        std::min(c.unmatched_nodes.size(),
                 static_cast<size_t>(std::max(0, options.unmatched_rows)));
    line(fmt::format("Unmatched measured nodes (top {} of {})", rows,
                     c.unmatched_nodes.size()));
    report::TextTable unmatched =
        Table({"name", "op", "measured", "share"}, {false, false, true, true},
              options.max_width);
    for (size_t i = 0; i < rows; ++i) {
      const graph::MeasuredNode& n = c.unmatched_nodes[i];
      unmatched.rows.push_back({n.name, n.op_type, FormatDuration(n.seconds),
                                FormatShare(n.seconds, c.measured_node_s)});
    }
    out += report::RenderText(unmatched, "  ");
  }
  if (!c.warnings.empty()) {
    line("");
    for (const std::string& w : c.warnings) {
      line(fmt::format("warning: {}", report::EscapeControl(w)));
    }
  }
  return out;
}

// Keys in alphabetical order, as the report has always listed them.
nlohmann::ordered_json MeasuredLayerJson(const Comparison& c, int layer) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  auto unmeasured = [&j](const std::string* with) {
    j["measured_s"] = nullptr;
    if (with != nullptr) j["measured_with"] = *with;
    j["ratio"] = nullptr;
    return j;
  };
  if (layer < 0 || static_cast<size_t>(layer) >= c.unit_of_layer.size()) {
    return unmeasured(nullptr);
  }
  int u = c.unit_of_layer[static_cast<size_t>(layer)];
  if (u < 0) return unmeasured(nullptr);
  const MeasuredUnit& unit = c.units[static_cast<size_t>(u)];
  if (unit.anchor != layer) return unmeasured(&unit.name);
  if (unit.layers.size() > 1) j["fused_layers"] = unit.layers.size();
  j["match"] = std::string(MatchKindName(unit.kind));
  j["measured_s"] = unit.measured_s;
  j["ratio"] = Number(unit.ratio);
  j["roof_fraction"] = Number(unit.roof_fraction);
  return j;
}

nlohmann::ordered_json MeasuredSummaryJson(const Comparison& c) {
  using Json = nlohmann::ordered_json;
  Json ops = Json::array();
  for (const OpTypeRatios& op : c.by_op_type) {
    ops.push_back({{"measured_s", op.measured_s},
                   {"op", op.op_type},
                   {"predicted_s", op.predicted_s},
                   {"ratio_max", Number(op.max)},
                   {"ratio_median", Number(op.median)},
                   {"ratio_min", Number(op.min)},
                   {"ratio_p25", Number(op.p25)},
                   {"ratio_p75", Number(op.p75)},
                   {"units", op.units}});
  }
  Json j = Json::object();
  j["by_op_type"] = std::move(ops);
  j["conventions"] = std::string(kConventions);
  j["format"] = c.profile_format;
  size_t matched_layers = 0;
  for (const MeasuredUnit& u : c.units) matched_layers += u.layers.size();
  j["matched"] = {
      {"layers", matched_layers},
      {"measured_s", c.matched_measured_s},
      {"predicted_s", c.matched_predicted_s},
      {"ratio", Number(c.matched_predicted_s > 0
                           ? c.matched_measured_s / c.matched_predicted_s
                           : NAN)},
      {"units", c.units.size()}};
  j["measured_node_s"] = c.measured_node_s;
  j["measured_s"] = c.measured_total_s;
  j["measured_s_source"] =
      c.measured_total_is_whole_run ? "whole-run events" : "sum of node times";
  j["predicted_s"] = c.predicted_total_s;
  j["profile"] = c.profile_path;
  j["ratio"] = Number(
      c.predicted_total_s > 0 ? c.measured_total_s / c.predicted_total_s : NAN);
  j["runs"] = c.runs_used;
  j["spearman"] = c.spearman ? Json(*c.spearman) : Json(nullptr);
  Json targets = Json::array();
  for (int t : c.targets) {
    const MeasuredUnit& u = c.units[static_cast<size_t>(t)];
    targets.push_back({{"measured_s", u.measured_s},
                       {"name", u.name},
                       {"op", u.op_type},
                       {"roof_fraction", Number(u.roof_fraction)},
                       {"roof_s", u.roof_s}});
  }
  j["targets"] = std::move(targets);
  j["unmatched_layers"] = {{"count", c.unmatched_layers.size()},
                           {"predicted_s", c.unmatched_predicted_s}};
  Json names = Json::array();
  for (const graph::MeasuredNode& n : c.unmatched_nodes) {
    names.push_back(
        {{"measured_s", n.seconds}, {"name", n.name}, {"op", n.op_type}});
  }
  j["unmatched_nodes"] = {{"count", c.unmatched_nodes.size()},
                          {"measured_s", c.unmatched_measured_s},
                          {"nodes", std::move(names)}};
  j["warnings"] = c.warnings;
  return j;
}

}  // namespace ridgeline::engine
