#include "tools/python/py_json.h"

#include <cmath>
#include <string>

namespace ridgeline::python {

namespace py = pybind11;

py::str Text(std::string_view text) {
  PyObject* s = PyUnicode_DecodeUTF8(
      text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

py::list Texts(const std::vector<std::string>& lines) {
  py::list out;
  for (const std::string& line : lines) out.append(Text(line));
  return out;
}

std::string Dump(const nlohmann::ordered_json& value, int indent) {
  return value.dump(indent, ' ', false,
                    nlohmann::ordered_json::error_handler_t::replace);
}

namespace {

template <typename Json>
py::object Convert(const Json& value) {
  using Type = typename Json::value_t;
  switch (value.type()) {
    case Type::null:
    case Type::discarded:
      return py::none();
    case Type::boolean:
      return py::bool_(value.template get<bool>());
    case Type::number_integer:
      return py::int_(value.template get<int64_t>());
    case Type::number_unsigned:
      return py::int_(value.template get<uint64_t>());
    case Type::number_float: {
      // NaN and the infinities: null, as the JSON report writes them.
      const double x = value.template get<double>();
      return std::isfinite(x) ? py::object(py::float_(x)) : py::none();
    }
    case Type::string:
      return Text(value.template get_ref<const std::string&>());
    case Type::array: {
      py::list list;
      for (const auto& item : value) list.append(Convert(item));
      return list;
    }
    case Type::object: {
      py::dict dict;
      for (const auto& [key, item] : value.items()) {
        dict[py::str(key)] = Convert(item);
      }
      return dict;
    }
    case Type::binary:
      break;
  }
  return py::none();
}

}  // namespace

py::object ToPython(const nlohmann::ordered_json& value) {
  return Convert(value);
}

py::object ToPython(const nlohmann::json& value) { return Convert(value); }

}  // namespace ridgeline::python
