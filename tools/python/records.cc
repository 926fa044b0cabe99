#include "tools/python/records.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "engine/hardware.h"
#include "engine/report/hardware_list.h"
#include "engine/runtime.h"
#include "pybind11/stl.h"
#include "tools/python/py_json.h"
#include "zoo/catalog.h"
#include "zoo/hardware_catalog.h"
#include "zoo/runtime_catalog.h"

namespace ridgeline::python {

namespace py = pybind11;

absl::StatusOr<py::list> HardwareList() {
  absl::StatusOr<std::vector<engine::Hardware>> all = zoo::HardwareCatalog();
  if (!all.ok()) return all.status();
  py::list out;
  for (const engine::Hardware& h : *all) {
    out.append(ToPython(engine::report::HardwareJson(h)));
  }
  return out;
}

absl::StatusOr<py::list> ZooList() {
  absl::StatusOr<std::vector<zoo::ModelEntry>> all = zoo::ModelCatalog();
  if (!all.ok()) return all.status();
  py::list out;
  for (const zoo::ModelEntry& e : *all) {
    out.append(ToPython(zoo::ModelEntryJson(e)));
  }
  return out;
}

absl::StatusOr<py::list> RuntimeList() {
  absl::StatusOr<std::vector<engine::Runtime>> all = zoo::RuntimeCatalog();
  if (!all.ok()) return all.status();
  py::list out;
  for (const engine::Runtime& r : *all) {
    out.append(ToPython(engine::report::RuntimeJson(r)));
  }
  return out;
}

absl::StatusOr<std::string> ZooName(const std::string& name) {
  absl::StatusOr<zoo::ModelEntry> e = zoo::FindZooModel(name);
  if (!e.ok()) return e.status();
  return e->name;
}

}  // namespace ridgeline::python
