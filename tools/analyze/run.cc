#include "tools/analyze/run.h"

#include <fstream>

#include "engine/analysis.h"
#include "engine/hardware.h"
#include "engine/report/hardware_list.h"
#include "engine/report/report.h"
#include "fmt/format.h"
#include "fmt/ostream.h"
#include "graph/fmt_absl.h"
#include "importers/onnx_importer.h"
#include "zoo/hardware_catalog.h"

namespace ridgeline::tools::analyze {
namespace {

int Fail(std::ostream& err, std::string_view message) {
  fmt::print(err, "analyze: error: {}\n", message);
  return kExitInput;
}

// The device catalog: the zoo plus the --hw-file entry (which replaces a zoo
// entry with the same key).
absl::StatusOr<std::vector<engine::Hardware>> Catalog(
    const Options& o, std::optional<engine::Hardware>* from_file) {
  absl::StatusOr<std::vector<engine::Hardware>> zoo = zoo::HardwareCatalog();
  if (!zoo.ok()) return zoo.status();
  if (o.hw_file.empty()) return zoo;
  absl::StatusOr<engine::Hardware> hw = engine::LoadHardwareFile(o.hw_file);
  if (!hw.ok()) return hw.status();
  *from_file = *hw;
  std::erase_if(*zoo,
                [&](const engine::Hardware& h) { return h.key == hw->key; });
  zoo->push_back(*hw);
  return zoo;
}

// The batch the graph was bound with: the first dim of the first graph input
// of rank >= 2 when known, else --batch, else 1. Warns when --batch could not
// be applied because that dim is static.
int64_t GraphBatch(const graph::Graph& g, const Options& o, std::ostream& err) {
  for (int t : g.Inputs()) {
    const graph::Tensor& in = g.tensor(t);
    if (!in.shape_known || in.dims.size() < 2) continue;
    const int64_t b = in.dims[0];
    if (o.batch && *o.batch != b) {
      fmt::print(err,
                 "analyze: warning: --batch {} not applied: input '{}' has a "
                 "static first dim of {}; throughput uses batch {}\n",
                 *o.batch, in.name, b, b);
    }
    return b > 0 ? b : 1;
  }
  return o.batch.value_or(1);
}

}  // namespace

int RunAnalyze(const Options& options, std::ostream& out, std::ostream& err) {
  if (options.help) {
    fmt::print(out, "{}", UsageText());
    return kExitOk;
  }
  std::optional<engine::Hardware> from_file;
  absl::StatusOr<std::vector<engine::Hardware>> catalog =
      Catalog(options, &from_file);
  if (!catalog.ok()) return Fail(err, MessageOf(catalog.status()));

  std::ofstream file;
  std::ostream* sink = &out;
  auto open_output = [&]() -> bool {
    if (options.output_path.empty()) return true;
    file.open(options.output_path, std::ios::binary | std::ios::trunc);
    if (!file) return false;
    sink = &file;
    return true;
  };

  if (options.list_hw) {
    if (!open_output()) {
      return Fail(
          err, fmt::format("{}: cannot open for writing", options.output_path));
    }
    engine::report::WriteHardwareList(*catalog, options.format, *sink);
    return kExitOk;
  }

  engine::Hardware hw;
  if (options.hw.empty()) {
    hw = *from_file;
  } else {
    absl::StatusOr<engine::Hardware> found =
        engine::FindHardware(*catalog, options.hw.front());
    if (!found.ok()) return Fail(err, MessageOf(found.status()));
    hw = *found;
  }

  importers::ImportOptions import;
  for (const auto& [name, value] : options.dims) import.dims[name] = value;
  import.batch = options.batch;
  absl::StatusOr<graph::Graph> g =
      importers::ImportOnnxFile(options.model_path, import);
  if (!g.ok()) {
    std::string_view message = MessageOf(g.status());
    return Fail(err, message.find(options.model_path) == std::string_view::npos
                         ? fmt::format("{}: {}", options.model_path, message)
                         : std::string(message));
  }
  for (const std::string& w : g->warnings) {
    fmt::print(err, "analyze: warning: {}: {}\n", options.model_path, w);
  }

  engine::AnalyzeOptions analyze = options.analyze;
  analyze.batch = GraphBatch(*g, options, err);
  absl::StatusOr<engine::Analysis> analysis = engine::Analyze(*g, hw, analyze);
  if (!analysis.ok()) {
    return Fail(err, fmt::format("{}: {}", options.model_path,
                                 MessageOf(analysis.status())));
  }
  analysis->model = options.model_path;

  const engine::Summary& s = analysis->summary;
  if (!s.skipped_layers.empty() || !s.unknown_ops.empty()) {
    fmt::print(err,
               "analyze: warning: {}: {} layer(s) skipped (unresolved shapes "
               "or counting errors), {} op type(s) without a counter; see the "
               "report's warnings/summary\n",
               options.model_path, s.skipped_layers.size(),
               s.unknown_ops.size());
  }

  if (!open_output()) {
    return Fail(
        err, fmt::format("{}: cannot open for writing", options.output_path));
  }
  engine::report::WriteReport(*analysis, options.format, options.report, *sink);
  if (file.is_open()) {
    file.close();
    if (!file) {
      return Fail(err, fmt::format("{}: write failed", options.output_path));
    }
  }
  return kExitOk;
}

int AnalyzeMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  absl::StatusOr<Options> options = ParseArgs(args);
  if (!options.ok()) {
    fmt::print(err, "analyze: {}\n\n{}", MessageOf(options.status()),
               UsageText());
    return kExitUsage;
  }
  return RunAnalyze(*options, out, err);
}

}  // namespace ridgeline::tools::analyze
