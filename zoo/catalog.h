// The built-in model zoo: every zoo/models/NAME.onnx (a weightless graph
// traced by tools/trace_zoo.py) with its NAME.json metadata, compiled into
// the binary. `analyze --list-zoo` lists it; `analyze --zoo NAME` imports an
// entry's graph exactly like a file, with the entry's default dims unless
// --batch / --dim rebind them.
//
//   absl::StatusOr<std::vector<zoo::ModelEntry>> zoo = zoo::ModelCatalog();
//   absl::StatusOr<zoo::ModelEntry> e = zoo::FindModel(*zoo, "resnet50");
//   importers::ImportOptions o;
//   o.dims = zoo::EntryDims(*e, user_dims, user_batch);
//   auto g = importers::ImportWeightlessOnnxBytes(e->onnx, e->name, o);
#ifndef RIDGELINE_ZOO_CATALOG_H_
#define RIDGELINE_ZOO_CATALOG_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "engine/report/report.h"
#include "engine/report/text_table.h"
#include "engine/whole_model.h"
#include "nlohmann/json.hpp"
#include "zoo/zoo.h"

namespace ridgeline::zoo {

// Directory prefix of the embedded model files.
inline constexpr std::string_view kModelsPrefix = "models/";

// The metadata property that marks a zoo graph as weightless (its
// initializers point at an external file that is intentionally absent).
inline constexpr std::string_view kWeightlessProperty = "ridgeline.weightless";

struct ModelEntry {
  std::string name;         // "resnet50", "llama-3.1-8b-decode", ...
  std::string description;  // one line
  std::string source;       // architecture, config and tracing details
  // Elements of the graph's initializers (exact; every initializer is a
  // weight).
  int64_t params = 0;
  // The published checkpoint's dtype ("bf16", "fp16"; "" = the graph's own
  // dtypes), what `analyze --zoo NAME` prices the stored graph at unless
  // --precision is given, and where it comes from (the checkpoint's
  // config.json torch_dtype).
  std::string native_precision;
  std::string native_precision_source;
  // Default values of the graph's symbolic dims, sorted by name.
  std::vector<std::pair<std::string, int64_t>> default_dims;
  // mlsysim's view of the model (whole-model estimate, --mlsysim).
  engine::ModelClass model_class = engine::ModelClass::kCnn;
  int64_t mlsysim_layers = 0;  // 0 = unknown
  // Tokens per sample for the transformer op rule: the value of the dim
  // named `tokens_dim` ("sequence") when set, else `tokens_per_sample`.
  std::string tokens_dim;
  int64_t tokens_per_sample = 1;
  std::string_view onnx;           // the serialized weightless ModelProto
  std::string_view metadata_json;  // the whole NAME.json
};

// Parses `files` (paths "models/NAME.onnx" and "models/NAME.json"; other
// files are ignored). Every .json needs its .onnx and vice versa. Errors
// name the file and the field. Entries sorted by name.
absl::StatusOr<std::vector<ModelEntry>> ParseModelCatalog(
    const std::vector<EmbeddedFile>& files);

// The embedded zoo: ParseModelCatalog(Files(kModelsPrefix)).
absl::StatusOr<std::vector<ModelEntry>> ModelCatalog();

// Finds an entry by name, case-insensitively; NotFound lists the names.
absl::StatusOr<ModelEntry> FindModel(const std::vector<ModelEntry>& catalog,
                                     std::string_view name);

// The embedded entry FindModel(ModelCatalog(), name) finds, parsing only its
// metadata (`analyze --zoo NAME` needs one entry, not the catalog).
absl::StatusOr<ModelEntry> FindZooModel(std::string_view name);

// The dims to import an entry with: its defaults, then `batch` (--batch N
// sets the dim named "batch"), then `user_dims` (--dim NAME=VALUE) on top.
absl::flat_hash_map<std::string, int64_t> EntryDims(
    const ModelEntry& entry,
    const absl::flat_hash_map<std::string, int64_t>& user_dims,
    std::optional<int64_t> batch);

// Whole-model options reproducing mlsysim for this entry at `dims` (from
// EntryDims): method kMlsysim, its model class and layer count, tokens per
// sample.
engine::WholeModelOptions MlsysimOptions(
    const ModelEntry& entry,
    const absl::flat_hash_map<std::string, int64_t>& dims);

// The `--list-zoo` table: name, parameters, native precision, default
// dims, description; at most `max_width` columns wide
// (engine::report::TextTable::max_width).
std::string FormatModelList(const std::vector<ModelEntry>& catalog,
                            size_t max_width = engine::report::kMaxTableWidth);

// One entry as `--list-zoo --format json` and the Python package's
// zoo_models() show it: name, description, params, native_precision and
// native_precision_source (null: the graph's own dtypes), default_dims,
// source.
nlohmann::ordered_json ModelEntryJson(const ModelEntry& entry);

// `--list-zoo` in `format`: the table (FormatModelList), csv/md of the
// same columns, or the JSON array of ModelEntryJson.
void WriteModelList(const std::vector<ModelEntry>& catalog,
                    engine::report::Format format, std::ostream& out,
                    size_t max_width = engine::report::kMaxTableWidth);

}  // namespace ridgeline::zoo

#endif  // RIDGELINE_ZOO_CATALOG_H_
