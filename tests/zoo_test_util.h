// Helpers for the zoo tests: the zoo read from the source tree (so that the
// tests exercise the committed files even without the embedding), importing
// an entry, and the hardware entries from zoo/hardware/.
#ifndef RIDGELINE_TESTS_ZOO_TEST_UTIL_H_
#define RIDGELINE_TESTS_ZOO_TEST_UTIL_H_

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/hardware.h"
#include "graph/graph.h"
#include "importers/onnx_importer.h"
#include "zoo/catalog.h"
#include "zoo/zoo.h"

namespace ridgeline::testing {

inline std::string ReadFileOrDie(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// zoo/models/* from the source tree as EmbeddedFile records (paths
// "models/NAME.ext"), kept alive for the whole test program.
inline const std::vector<zoo::EmbeddedFile>& SourceModelFiles() {
  static const auto* files = [] {
    static std::map<std::string, std::string> contents;
    const std::filesystem::path dir =
        std::filesystem::path(RIDGELINE_SOURCE_DIR) / "zoo" / "models";
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (!e.is_regular_file()) continue;
      contents["models/" + e.path().filename().string()] =
          ReadFileOrDie(e.path());
    }
    auto* out = new std::vector<zoo::EmbeddedFile>();
    for (const auto& [path, bytes] : contents) {
      out->push_back({path, bytes});
    }
    return out;
  }();
  return *files;
}

inline const std::vector<zoo::ModelEntry>& SourceZoo() {
  static const auto* zoo = [] {
    absl::StatusOr<std::vector<zoo::ModelEntry>> parsed =
        zoo::ParseModelCatalog(SourceModelFiles());
    return new std::vector<zoo::ModelEntry>(
        parsed.ok() ? *std::move(parsed) : std::vector<zoo::ModelEntry>{});
  }();
  return *zoo;
}

inline absl::StatusOr<zoo::ModelEntry> SourceEntry(std::string_view name) {
  return zoo::FindModel(SourceZoo(), name);
}

// Imports a zoo entry with its default dims, then `batch`, then `dims`.
inline absl::StatusOr<graph::Graph> ImportEntry(
    const zoo::ModelEntry& entry, std::optional<int64_t> batch = std::nullopt,
    const absl::flat_hash_map<std::string, int64_t>& dims = {}) {
  importers::ImportOptions options;
  options.dims = zoo::EntryDims(entry, dims, batch);
  return importers::ImportWeightlessOnnxBytes(entry.onnx, entry.name, options);
}

// A device from zoo/hardware/KEY.json in the source tree.
inline absl::StatusOr<engine::Hardware> SourceHardware(std::string_view key) {
  return engine::LoadHardwareFile(
      (std::filesystem::path(RIDGELINE_SOURCE_DIR) / "zoo" / "hardware" /
       (std::string(key) + ".json"))
          .string());
}

// mlsysim's assumptions: efficiency 0.5, 10 us per layer, the device's
// dispatch tax, memory efficiency 1, and the given precision.
inline engine::AnalyzeOptions MlsysimAnalyzeOptions(std::string precision,
                                                    int64_t batch) {
  engine::AnalyzeOptions o;
  o.compute_efficiency = 0.5;
  o.memory_efficiency = 1.0;
  o.per_layer_tax_s = 10e-6;
  o.precision = std::move(precision);
  o.batch = batch;
  return o;
}

}  // namespace ridgeline::testing

#endif  // RIDGELINE_TESTS_ZOO_TEST_UTIL_H_
