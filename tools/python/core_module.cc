// ridgeline._core: the pybind11 extension under the Python package
// (tools/python/ridgeline). The headline figures come from the library's
// structs (engine::Summary); records (layers, sweeps, whole-model estimates,
// what-ifs) are the JSON writers' objects converted value by value
// (py_json.h), so they carry exactly the CLI's --format json fields. Statuses
// become ValueError (arguments) or ridgeline.ModelError (models), with the
// CLI's messages; the GIL is released while the library works.
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/analysis.h"
#include "engine/report/report.h"
#include "engine/sweep.h"
#include "engine/whole_model.h"
#include "graph/fmt_absl.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "tools/analyze/modes.h"
#include "tools/python/py_json.h"
#include "tools/python/records.h"
#include "tools/python/session.h"

namespace ridgeline::python {
namespace {

namespace py = pybind11;

// ridgeline.ModelError, created by DefineModule.
PyObject* model_error_type = nullptr;

// Sets the Python error for `status` and throws (the GIL must be held).
[[noreturn]] void Raise(const absl::Status& status) {
  PyObject* type = IsModelError(status) ? model_error_type : PyExc_ValueError;
  PyErr_SetObject(type, Text(MessageOf(status)).ptr());
  throw py::error_already_set();
}

template <typename T>
T Unwrap(absl::StatusOr<T> value) {
  if (!value.ok()) Raise(value.status());
  return *std::move(value);
}

// Runs `fn` without the GIL (it must not touch Python objects).
template <typename Fn>
auto Released(Fn&& fn) {
  py::gil_scoped_release release;
  return fn();
}

// The CLI's sections for the what-if options the session was opened with.
py::tuple WhatIf(const Session& s) {
  auto [json, text] = Released([&] {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    absl::Status st = tools::analyze::AddWhatIfJson(s.context(), &j);
    absl::StatusOr<std::string> t =
        st.ok() ? tools::analyze::WhatIfText(s.context())
                : absl::StatusOr<std::string>(st);
    return std::make_pair(std::move(j), std::move(t));
  });
  return py::make_tuple(ToPython(json), Text(Unwrap(std::move(text))));
}

py::list WholeModel(const Session& s) {
  const tools::analyze::RunContext& ctx = s.context();
  std::vector<engine::WholeModelOptions> methods(1);  // lumped
  if (ctx.options->mlsysim) {
    methods.push_back(tools::analyze::EstimateOptions(ctx));
  }
  py::list out;
  for (const engine::WholeModelOptions& m : methods) {
    out.append(ToPython(
        engine::WholeModelJson(Unwrap(engine::WholeModel(ctx.analysis, m)))));
  }
  return out;
}

py::str Table(const Session& s) {
  std::ostringstream out;
  engine::report::WriteReport(s.context().analysis,
                              engine::report::Format::kTable,
                              s.context().options->report, out);
  return Text(out.str());
}

void DefineModule(py::module_& m) {
  m.doc() = "ridgeline's C++ library (the analyze CLI's), for the package.";
  static py::exception<void> model_error(m, "ModelError", PyExc_ValueError);
  model_error.attr("__module__") = "ridgeline";
  model_error.attr("__doc__") =
      "The model could not be imported: unreadable file, malformed ONNX, "
      "dims it cannot take. A ValueError; the message is the analyze CLI's "
      "(it names the model).";
  model_error_type = model_error.ptr();

  py::class_<Session, std::unique_ptr<Session>>(m, "Session")
      .def_static(
          "open",
          [](const std::vector<std::string>& args,
             std::optional<py::bytes> model_bytes) {
            std::optional<std::string> bytes;
            if (model_bytes) bytes = std::string(*model_bytes);
            return Unwrap(Released(
                [&] { return Session::Open(args, std::move(bytes)); }));
          },
          py::arg("args"), py::arg("model_bytes") = py::none())
      .def_property_readonly(
          "summary",
          [](const Session& s) {
            const engine::Summary& x = s.context().analysis.summary;
            py::dict d;
            d["latency_s"] = x.latency_s;
            d["throughput_per_s"] = x.throughput_per_s;
            d["mfu"] = x.mfu;
            d["bound"] = std::string(engine::BoundName(x.bound));
            d["macs"] = x.macs;
            d["flops"] = x.flops;
            d["bytes"] = x.bytes;
            d["params"] = x.params;
            d["batch"] = s.context().analysis.batch;
            return d;
          })
      .def_property_readonly(
          "model",
          [](const Session& s) { return Text(s.context().model_name); })
      .def_property_readonly(
          "hardware", [](const Session& s) { return s.context().hw.key; })
      .def_property_readonly(
          "runtime", [](const Session& s) { return s.context().runtime.key; })
      .def_property_readonly(
          "warnings", [](const Session& s) { return Texts(s.warnings()); })
      .def("document",
           [](const Session& s) {
             return ToPython(Unwrap(Released([&] { return s.Document(); })));
           })
      .def(
          "to_json",
          [](const Session& s, int indent) {
            return Text(
                Dump(Unwrap(Released([&] { return s.Document(); })), indent) +
                "\n");
          },
          py::arg("indent") = 2)
      .def("mode_text",
           [](const Session& s) {
             return Text(Unwrap(Released([&] { return s.ModeText(); })));
           })
      .def("to_html",
           [](const Session& s) {
             return Text(Unwrap(Released(
                 [&] { return tools::analyze::RenderPicture(s.context()); })));
           })
      .def("table", &Table)
      .def("sweep",
           [](const Session& s, const std::string& spec) {
             engine::SweepResult r =
                 Unwrap(Released([&] { return s.Sweep(spec); }));
             return py::make_tuple(ToPython(engine::SweepJson(r)),
                                   Text(engine::FormatSweep(r)));
           })
      .def("serve_sweep",
           [](const Session& s, const std::string& list) {
             auto [json, text] =
                 Unwrap(Released([&] { return s.ServeSweep(list); }));
             return py::make_tuple(ToPython(json), Text(text));
           })
      .def("what_if", &WhatIf)
      .def("whole_model", &WholeModel);

  m.def("hardware", [] { return Unwrap(HardwareList()); });
  m.def("zoo_models", [] { return Unwrap(ZooList()); });
  m.def("runtimes", [] { return Unwrap(RuntimeList()); });
  m.def("zoo_name",
        [](const std::string& name) { return Unwrap(ZooName(name)); });
}

}  // namespace
}  // namespace ridgeline::python

PYBIND11_MODULE(_core, m) { ridgeline::python::DefineModule(m); }
