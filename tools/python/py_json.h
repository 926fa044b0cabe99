// Converts the report writers' JSON values (engine/report/json.h and the
// CLI's mode sections) into Python objects, value by value (no text): the
// package's records have exactly the JSON report's fields and numbers.
#ifndef RIDGELINE_TOOLS_PYTHON_PY_JSON_H_
#define RIDGELINE_TOOLS_PYTHON_PY_JSON_H_

#include "nlohmann/json.hpp"
#include "pybind11/pybind11.h"

namespace ridgeline::python {

// null -> None, booleans, integers, floats, strings, arrays -> list,
// objects -> dict (in the document's key order).
pybind11::object ToPython(const nlohmann::ordered_json& value);
pybind11::object ToPython(const nlohmann::json& value);

}  // namespace ridgeline::python

#endif  // RIDGELINE_TOOLS_PYTHON_PY_JSON_H_
