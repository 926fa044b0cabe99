// The built-in catalogs as Python records (dicts and lists) built from the
// library's structs: devices, models, runtime profiles. Units are SI
// (seconds, bytes, FLOP/s).
#ifndef RIDGELINE_TOOLS_PYTHON_RECORDS_H_
#define RIDGELINE_TOOLS_PYTHON_RECORDS_H_

#include <string>

#include "absl/status/statusor.h"
#include "pybind11/pybind11.h"

namespace ridgeline::python {

// The hardware zoo: the entries of analyze --list-hw --format json (key,
// name, aliases, peaks per precision, bandwidth, capacity, TDP, dispatch
// tax, source, kernel model, interconnect).
absl::StatusOr<pybind11::list> HardwareList();
// The model zoo (analyze --list-zoo): name, description, params, default
// dims, source.
absl::StatusOr<pybind11::list> ZooList();
// The runtime profiles (analyze --list-runtimes): key, name, aliases,
// device, summary.
absl::StatusOr<pybind11::list> RuntimeList();
// The zoo entry's canonical name; NotFound (listing the names) otherwise.
absl::StatusOr<std::string> ZooName(const std::string& name);

}  // namespace ridgeline::python

#endif  // RIDGELINE_TOOLS_PYTHON_RECORDS_H_
