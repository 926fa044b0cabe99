// One row per layer in SI base units (--format csv).
#include <ostream>

#include "engine/report/layer_rows.h"
#include "engine/report/report.h"
#include "engine/report/text_table.h"
#include "fmt/format.h"
#include "fmt/ostream.h"

namespace ridgeline::engine::report {
namespace {

// Full precision (round-trippable) for machine-read numbers.
std::string Num(double x) { return fmt::format("{}", x); }

}  // namespace

void WriteCsv(const Analysis& analysis, std::ostream& out) {
  TextTable t;
  t.headers = {"index",
               "name",
               "op",
               "domain",
               "output_shape",
               "macs",
               "flops",
               "flops_per_mac",
               "bytes_read",
               "bytes_written",
               "bytes",
               "intensity_flop_per_byte",
               "t_compute_s",
               "t_memory_s",
               "t_overhead_s",
               "latency_s",
               "percent_of_total",
               "bound",
               "regime",
               "host",
               "kernel"};
  const double total = analysis.summary.latency_s;
  const double fpm = analysis.assumptions.flops_per_mac;
  for (size_t i = 0; i < analysis.layers.size(); ++i) {
    const LayerResult& l = analysis.layers[i];
    t.rows.push_back({fmt::format("{}", i),
                      l.name,
                      l.op_type,
                      l.domain,
                      OutputShapeText(l),
                      Num(l.cost.macs),
                      Num(l.flops),
                      Num(fpm),
                      Num(l.cost.bytes_read),
                      Num(l.cost.bytes_written),
                      Num(l.bytes),
                      Num(l.intensity),
                      Num(l.t_compute_s),
                      Num(l.t_memory_s),
                      Num(l.t_overhead_s),
                      Num(l.latency_s),
                      Num(total > 0 ? 100.0 * l.latency_s / total : 0),
                      l.skipped ? "skipped" : std::string(BoundName(l.bound)),
                      std::string(RegimeName(l.regime)),
                      l.host ? "1" : "0",
                      l.kernel >= 0 ? fmt::format("{}", l.kernel) : ""});
  }
  fmt::print(out, "{}", RenderCsv(t));
}

}  // namespace ridgeline::engine::report
