#include "zoo/catalog.h"

#include <algorithm>
#include <map>
#include <string>

#include "absl/strings/str_join.h"
#include "engine/json_fields.h"
#include "engine/precision.h"
#include "engine/report/hardware_list.h"
#include "engine/report/text_table.h"
#include "engine/report/units.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace ridgeline::zoo {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

absl::Status FieldError(std::string_view file, std::string_view field,
                        std::string_view what) {
  return absl::InvalidArgumentError(
      fmt::format("zoo file '{}': field '{}' {}", file, field, what));
}

// Parses one NAME.json into `entry` (all but the byte views).
absl::Status ParseMetadata(std::string_view path, std::string_view text,
                           ModelEntry* entry) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr,
                                           /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("zoo file '{}' is not a JSON object", path));
  }
  auto string_field = [&](const char* key, std::string* out,
                          bool required) -> absl::Status {
    auto it = j.find(key);
    if (it == j.end()) {
      return required ? FieldError(path, key, "is missing") : absl::OkStatus();
    }
    if (!it->is_string()) return FieldError(path, key, "must be a string");
    *out = it->get<std::string>();
    return absl::OkStatus();
  };
  std::string name;
  if (absl::Status s = string_field("name", &name, true); !s.ok()) return s;
  if (name != entry->name) {
    return FieldError(
        path, "name",
        fmt::format("is '{}' but the file is named '{}'", name, entry->name));
  }
  if (absl::Status s = string_field("description", &entry->description, true);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = string_field("source", &entry->source, false); !s.ok()) {
    return s;
  }
  // The published checkpoint's dtype, which analyze prices the stored (fp32)
  // graph at unless --precision is given.
  if (absl::Status s =
          string_field("native_precision", &entry->native_precision, false);
      !s.ok()) {
    return s;
  }
  if (!entry->native_precision.empty()) {
    const engine::Precision* p = engine::FindPrecision(entry->native_precision);
    if (p == nullptr || !p->selectable) {
      return FieldError(
          path, "native_precision",
          fmt::format("must be one of {}", engine::SelectablePrecisionList()));
    }
    if (absl::Status s = string_field("native_precision_source",
                                      &entry->native_precision_source, true);
        !s.ok()) {
      return s;
    }
  }
  auto params = j.find("params");
  if (params == j.end() || !params->is_number_integer() ||
      params->get<int64_t>() < 0) {
    return FieldError(path, "params", "must be a non-negative integer");
  }
  entry->params = params->get<int64_t>();

  auto dims = j.find("default_dims");
  if (dims != j.end()) {
    if (!dims->is_object()) {
      return FieldError(path, "default_dims", "must be an object");
    }
    for (auto it = dims->begin(); it != dims->end(); ++it) {
      if (!it->is_number_integer() || it->get<int64_t>() < 1) {
        return FieldError(path, fmt::format("default_dims.{}", it.key()),
                          "must be a positive integer");
      }
      entry->default_dims.emplace_back(it.key(), it->get<int64_t>());
    }
    std::sort(entry->default_dims.begin(), entry->default_dims.end());
  }

  auto ml = j.find("mlsysim");
  if (ml != j.end()) {
    if (!ml->is_object())
      return FieldError(path, "mlsysim", "must be an object");
    auto cls = ml->find("class");
    if (cls != ml->end()) {
      if (!cls->is_string()) {
        return FieldError(path, "mlsysim.class", "must be a string");
      }
      absl::StatusOr<engine::ModelClass> c =
          engine::ParseModelClass(cls->get<std::string>());
      if (!c.ok()) {
        return FieldError(path, "mlsysim.class",
                          "must be \"cnn\" or \"transformer\"");
      }
      entry->model_class = *c;
    }
    auto layers = ml->find("layers");
    if (layers != ml->end()) {
      if (!layers->is_number_integer() || layers->get<int64_t>() < 1) {
        return FieldError(path, "mlsysim.layers", "must be a positive integer");
      }
      entry->mlsysim_layers = layers->get<int64_t>();
    }
    auto tokens = ml->find("tokens");
    if (tokens != ml->end()) {
      if (tokens->is_string()) {
        entry->tokens_dim = tokens->get<std::string>();
      } else if (tokens->is_number_integer() && tokens->get<int64_t>() >= 1) {
        entry->tokens_per_sample = tokens->get<int64_t>();
      } else {
        return FieldError(path, "mlsysim.tokens",
                          "must be a dim name or a positive integer");
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

// Each entry's graph and metadata file, by the name both files share
// (pointers into `files`, which must outlive the map).
using FilePair = std::pair<const EmbeddedFile*, const EmbeddedFile*>;
std::map<std::string, FilePair> PairFiles(
    const std::vector<EmbeddedFile>& files) {
  std::map<std::string, FilePair> by_name;  // name -> (onnx, json)
  for (const EmbeddedFile& f : files) {
    std::string_view path = f.path;
    if (path.substr(0, kModelsPrefix.size()) != kModelsPrefix) continue;
    std::string_view base = path.substr(kModelsPrefix.size());
    if (base.find('/') != std::string_view::npos) continue;
    if (EndsWith(base, ".onnx")) {
      by_name[std::string(base.substr(0, base.size() - 5))].first = &f;
    } else if (EndsWith(base, ".json")) {
      by_name[std::string(base.substr(0, base.size() - 5))].second = &f;
    }
  }
  return by_name;
}

absl::StatusOr<ModelEntry> ParseEntry(const std::string& name,
                                      const FilePair& pair) {
  const auto& [onnx, json] = pair;
  if (onnx == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("zoo file '{}' has no graph '{}{}.onnx'", json->path,
                    kModelsPrefix, name));
  }
  if (json == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("zoo file '{}' has no metadata '{}{}.json'", onnx->path,
                    kModelsPrefix, name));
  }
  ModelEntry entry;
  entry.name = name;
  if (absl::Status s = ParseMetadata(json->path, json->bytes, &entry);
      !s.ok()) {
    return s;
  }
  entry.onnx = onnx->bytes;
  entry.metadata_json = json->bytes;
  return entry;
}

absl::Status NoSuchModel(std::string_view name,
                         const std::vector<std::string>& names) {
  return absl::NotFoundError(fmt::format(
      "no zoo model '{}' (the zoo has: {})", name,
      names.empty() ? std::string("nothing") : absl::StrJoin(names, ", ")));
}

}  // namespace

absl::StatusOr<std::vector<ModelEntry>> ParseModelCatalog(
    const std::vector<EmbeddedFile>& files) {
  std::vector<ModelEntry> out;
  for (const auto& [name, pair] : PairFiles(files)) {
    absl::StatusOr<ModelEntry> entry = ParseEntry(name, pair);
    if (!entry.ok()) return entry.status();
    out.push_back(*std::move(entry));
  }
  return out;
}

absl::StatusOr<std::vector<ModelEntry>> ModelCatalog() {
  return ParseModelCatalog(Files(kModelsPrefix));
}

absl::StatusOr<ModelEntry> FindModel(const std::vector<ModelEntry>& catalog,
                                     std::string_view name) {
  const std::string wanted = engine::LowerAscii(name);
  std::vector<std::string> names;
  for (const ModelEntry& e : catalog) {
    if (engine::LowerAscii(e.name) == wanted) return e;
    names.push_back(e.name);
  }
  return NoSuchModel(name, names);
}

absl::StatusOr<ModelEntry> FindZooModel(std::string_view name) {
  const std::string wanted = engine::LowerAscii(name);
  std::vector<std::string> names;
  const std::vector<EmbeddedFile> files = Files(kModelsPrefix);
  for (const auto& [entry_name, pair] : PairFiles(files)) {
    if (engine::LowerAscii(entry_name) == wanted) {
      return ParseEntry(entry_name, pair);
    }
    names.push_back(entry_name);
  }
  return NoSuchModel(name, names);
}

absl::flat_hash_map<std::string, int64_t> EntryDims(
    const ModelEntry& entry,
    const absl::flat_hash_map<std::string, int64_t>& user_dims,
    std::optional<int64_t> batch) {
  absl::flat_hash_map<std::string, int64_t> dims;
  for (const auto& [k, v] : entry.default_dims) dims[k] = v;
  if (batch.has_value()) dims["batch"] = *batch;
  for (const auto& [k, v] : user_dims) dims[k] = v;
  return dims;
}

engine::WholeModelOptions MlsysimOptions(
    const ModelEntry& entry,
    const absl::flat_hash_map<std::string, int64_t>& dims) {
  engine::WholeModelOptions o;
  o.method = engine::WholeModelMethod::kMlsysim;
  o.model_class = entry.model_class;
  if (entry.mlsysim_layers > 0) o.layers = entry.mlsysim_layers;
  o.tokens_per_sample = entry.tokens_per_sample;
  if (!entry.tokens_dim.empty()) {
    auto it = dims.find(entry.tokens_dim);
    if (it != dims.end()) o.tokens_per_sample = it->second;
  }
  return o;
}

namespace {

engine::report::TextTable ModelTable(const std::vector<ModelEntry>& catalog) {
  engine::report::TextTable table;
  table.headers = {"name", "params", "precision", "default dims",
                   "description"};
  table.right_align = {false, true, false, false, false};
  table.keep = {true, false, true, true, false};  // --zoo NAME; values
  for (const ModelEntry& e : catalog) {
    std::vector<std::string> dims;
    for (const auto& [k, v] : e.default_dims) {
      dims.push_back(fmt::format("{}={}", k, v));
    }
    table.rows.push_back(
        {e.name, engine::report::FormatSi(static_cast<double>(e.params), ""),
         e.native_precision.empty() ? "graph" : e.native_precision,
         absl::StrJoin(dims, " "), e.description});
  }
  return table;
}

}  // namespace

std::string FormatModelList(const std::vector<ModelEntry>& catalog,
                            size_t max_width) {
  engine::report::TextTable table = ModelTable(catalog);
  table.max_width = max_width;
  std::string out = engine::report::RenderText(table);
  out += fmt::format(
      "{} models; params are the elements of each graph's initializers; "
      "precision is what --zoo NAME prices the graph at without --precision "
      "(the published checkpoint's dtype; graph: the stored graph's own "
      "dtypes). Analyze one with --zoo NAME; --batch N / --dim NAME=VALUE "
      "rebind its dims.\n",
      catalog.size());
  return out;
}

nlohmann::ordered_json ModelEntryJson(const ModelEntry& e) {
  nlohmann::ordered_json j;
  j["name"] = e.name;
  j["description"] = e.description;
  j["params"] = e.params;
  j["native_precision"] = e.native_precision.empty()
                              ? nlohmann::ordered_json(nullptr)
                              : nlohmann::ordered_json(e.native_precision);
  j["native_precision_source"] =
      e.native_precision_source.empty()
          ? nlohmann::ordered_json(nullptr)
          : nlohmann::ordered_json(e.native_precision_source);
  nlohmann::ordered_json dims = nlohmann::ordered_json::object();
  for (const auto& [k, v] : e.default_dims) dims[k] = v;
  j["default_dims"] = std::move(dims);
  j["source"] = e.source;
  return j;
}

void WriteModelList(const std::vector<ModelEntry>& catalog,
                    engine::report::Format format, std::ostream& out,
                    size_t max_width) {
  if (format == engine::report::Format::kTable) {
    out << FormatModelList(catalog, max_width);
    return;
  }
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ModelEntry& e : catalog) list.push_back(ModelEntryJson(e));
  engine::report::WriteCatalogList(format, list, ModelTable(catalog), "",
                                   max_width, out);
}

}  // namespace ridgeline::zoo
