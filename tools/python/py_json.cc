#include "tools/python/py_json.h"

#include <string>

namespace ridgeline::python {

namespace py = pybind11;

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
    case Type::number_float:
      return py::float_(value.template get<double>());
    case Type::string:
      return py::str(value.template get_ref<const std::string&>());
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
