// The hardware catalog as a report (`analyze --list-hw`): one row per device
// with its dense peaks, bandwidth, capacity, TDP and dispatch tax.
#ifndef RIDGELINE_ENGINE_REPORT_HARDWARE_LIST_H_
#define RIDGELINE_ENGINE_REPORT_HARDWARE_LIST_H_

#include <cstddef>
#include <ostream>
#include <string_view>
#include <vector>

#include "engine/hardware.h"
#include "engine/report/report.h"
#include "engine/report/text_table.h"
#include "engine/runtime.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine::report {

// A catalog listing (devices, runtimes, the model zoo) in `format`: JSON,
// the array `json`; csv/md, `table`; a text table, `title`, a blank line
// and `table` at most `max_width` columns wide.
void WriteCatalogList(Format format, const nlohmann::ordered_json& json,
                      TextTable table, std::string_view title, size_t max_width,
                      std::ostream& out);

// One device in the hardware file format (what ParseHardwareJson reads;
// HardwareToJson is its text): the entries of `--list-hw --format json` and
// the Python package's hardware() records.
nlohmann::ordered_json HardwareJson(const Hardware& hw);

// Table/md/csv: peaks in TFLOP/s (TOP/s for int8/int4), bandwidth in GB/s,
// capacity in GiB, TDP in W, dispatch tax in us. JSON: an array of entries
// in the hardware file format.
// The table at most `max_width` columns wide (TextTable::max_width).
void WriteHardwareList(const std::vector<Hardware>& devices, Format format,
                       std::ostream& out, size_t max_width = kMaxTableWidth);

// One runtime profile as `--list-runtimes --format json` and the Python
// package's runtimes() show it: key, name, aliases, device, summary, how it
// maps the graph to kernels (fusion, fuse_sibling_gemms, kv_append_in_place,
// host_shape_ops), efficiency_model, launch_model, custom_all_reduce (when
// it has one) and the sources of its constants.
nlohmann::ordered_json RuntimeJson(const Runtime& runtime);

// `analyze --list-runtimes`: one row per runtime profile (key, device,
// fusions, KV append, launch model, efficiency model, summary). JSON: the
// array of RuntimeJson entries.
void WriteRuntimeList(const std::vector<Runtime>& runtimes, Format format,
                      std::ostream& out, size_t max_width = kMaxTableWidth);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_HARDWARE_LIST_H_
