#include "engine/report/layer_rows.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "engine/report/units.h"
#include "fmt/format.h"

namespace ridgeline::engine::report {
namespace {

struct Totals {
  double flops = 0, bytes = 0, t_compute = 0, t_memory = 0, latency = 0;
  double t_overhead = 0;
  void Add(const LayerResult& l) {
    t_overhead += l.t_overhead_s;
    flops += l.flops;
    bytes += l.bytes;
    t_compute += l.t_compute_s;
    t_memory += l.t_memory_s;
    latency += l.latency_s;
  }
};

std::vector<std::string> NumberCells(double flops, double bytes,
                                     double t_compute, double t_memory,
                                     double latency, double total) {
  return {
      FormatSi(flops, "FLOP"),
      FormatSi(bytes, "B"),
      bytes > 0 ? fmt::format("{} FLOP/B", FormatNumber(flops / bytes)) : "-",
      FormatSeconds(t_compute),
      FormatSeconds(t_memory),
      FormatSeconds(latency),
      total > 0 ? FormatPercent(latency / total) : "-"};
}

}  // namespace

std::string ShapeText(const TensorInfo& tensor) {
  if (!tensor.shape_known) return "?";
  std::string out = "[";
  for (size_t i = 0; i < tensor.dims.size(); ++i) {
    out += fmt::format("{}{}", i > 0 ? "," : "", tensor.dims[i]);
  }
  return out + "]";
}

std::string OutputShapeText(const LayerResult& layer) {
  if (layer.outputs.empty()) return "-";
  std::string out = ShapeText(layer.outputs[0]);
  if (layer.outputs.size() > 1) {
    out += fmt::format(" +{}", layer.outputs.size() - 1);
  }
  return out;
}

TextTable BuildLayerTable(const Analysis& analysis,
                          const ReportOptions& options) {
  TextTable table;
  table.headers = {"#",        "name",    "op",        "output shape",
                   "FLOPs",    "bytes",   "intensity", "T_compute",
                   "T_memory", "latency", "% total",   "bound",
                   "regime",   "overhead"};
  table.right_align = {true, false, false, false, true,  true,  true,
                       true, true,  true,  true,  false, false, true};
  // Shapes are numbers, bound and regime short words: only the name and op
  // columns elide.
  table.keep.assign(table.headers.size(), false);
  table.keep[3] = table.keep[11] = table.keep[12] = true;
  const double total = analysis.summary.latency_s;
  const auto& layers = analysis.layers;

  auto layer_row = [&](size_t rank, const LayerResult& l) {
    std::vector<std::string> row = {
        fmt::format("{}", rank), l.name.empty() ? "(unnamed)" : l.name,
        l.domain.empty() ? l.op_type : l.domain + ":" + l.op_type,
        OutputShapeText(l)};
    if (l.skipped) {
      for (int i = 0; i < 7; ++i) row.push_back("-");
      row.push_back("skipped");
      row.push_back("-");
      row.push_back("-");
      return row;
    }
    for (std::string& cell : NumberCells(l.flops, l.bytes, l.t_compute_s,
                                         l.t_memory_s, l.latency_s, total)) {
      row.push_back(std::move(cell));
    }
    row.push_back(std::string(BoundName(l.bound)));
    row.push_back(l.host ? "host" : std::string(RegimeName(l.regime)));
    row.push_back(l.latency_s > 0 ? FormatPercent(l.t_overhead_s / l.latency_s)
                                  : "-");
    return row;
  };

  if (options.all_layers) {
    for (size_t i = 0; i < layers.size(); ++i) {
      table.rows.push_back(layer_row(i + 1, layers[i]));
    }
  } else {
    std::vector<size_t> timed;
    std::map<std::string, int> view_ops, host_ops;
    int views = 0, hosts = 0;
    for (size_t i = 0; i < layers.size(); ++i) {
      if (layers[i].skipped) continue;
      if (layers[i].host) {
        ++hosts;
        ++host_ops[layers[i].op_type];
      } else if (layers[i].cost.view || layers[i].latency_s == 0) {
        ++views;
        ++view_ops[layers[i].op_type];
      } else {
        timed.push_back(i);
      }
    }
    std::stable_sort(timed.begin(), timed.end(), [&](size_t a, size_t b) {
      return layers[a].latency_s > layers[b].latency_s;
    });
    const size_t top = static_cast<size_t>(std::max(options.top, 0));
    for (size_t r = 0; r < timed.size() && r < top; ++r) {
      table.rows.push_back(layer_row(r + 1, layers[timed[r]]));
    }
    if (timed.size() > top) {
      Totals rest;
      for (size_t r = top; r < timed.size(); ++r) rest.Add(layers[timed[r]]);
      std::vector<std::string> row = {
          "", fmt::format("other ({} layers)", timed.size() - top), "", ""};
      for (std::string& cell :
           NumberCells(rest.flops, rest.bytes, rest.t_compute, rest.t_memory,
                       rest.latency, total)) {
        row.push_back(std::move(cell));
      }
      row.push_back("");
      row.push_back("");
      row.push_back(rest.latency > 0
                        ? FormatPercent(rest.t_overhead / rest.latency)
                        : "-");
      table.rows.push_back(std::move(row));
    }
    if (hosts > 0) {
      std::string ops;
      for (const auto& [op, n] : host_ops) {
        ops += fmt::format("{}{} x{}", ops.empty() ? "" : ", ", op, n);
      }
      table.rows.push_back(
          {"", fmt::format("host shape arithmetic ({}: {})", hosts, ops), "",
           "", "-", "-", "-", "0 s", "0 s", "0 s", FormatPercent(0), "host",
           "host", "-"});
    }
    if (views > 0) {
      std::string ops;
      for (const auto& [op, n] : view_ops) {
        ops += fmt::format("{}{} x{}", ops.empty() ? "" : ", ", op, n);
      }
      table.rows.push_back(
          {"", fmt::format("zero-latency views ({}: {})", views, ops), "", "",
           "0 FLOP", "0 B", "-", "0 s", "0 s", "0 s", FormatPercent(0), "none",
           "none", "-"});
    }
  }
  const double dispatch = analysis.assumptions.dispatch_tax_s;
  table.rows.push_back({"", "per-inference cost (dispatch, sync)", "", "", "",
                        "", "", "", "", FormatSeconds(dispatch),
                        total > 0 ? FormatPercent(dispatch / total) : "-",
                        "overhead", "-", FormatPercent(1)});
  return table;
}

}  // namespace ridgeline::engine::report
