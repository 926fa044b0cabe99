// Converts the report writers' JSON values (engine/report/json.h and the
// CLI's mode sections) into Python objects, value by value (no text): the
// package's records have exactly the JSON report's fields and numbers.
#ifndef RIDGELINE_TOOLS_PYTHON_PY_JSON_H_
#define RIDGELINE_TOOLS_PYTHON_PY_JSON_H_

#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"
#include "pybind11/pybind11.h"

namespace ridgeline::python {

// Text for Python: UTF-8, with invalid bytes (a model's names are not
// checked) replaced by U+FFFD instead of raising UnicodeDecodeError.
pybind11::str Text(std::string_view text);
pybind11::list Texts(const std::vector<std::string>& lines);
// The JSON text, invalid UTF-8 replaced likewise.
std::string Dump(const nlohmann::ordered_json& value, int indent);

// null -> None, booleans, integers, floats (NaN and infinities -> None, as
// the JSON report prints null), strings, arrays -> list, objects -> dict (in
// the document's key order).
pybind11::object ToPython(const nlohmann::ordered_json& value);
pybind11::object ToPython(const nlohmann::json& value);

}  // namespace ridgeline::python

#endif  // RIDGELINE_TOOLS_PYTHON_PY_JSON_H_
