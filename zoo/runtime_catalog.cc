#include "zoo/runtime_catalog.h"

#include <algorithm>
#include <string>

#include "zoo/entry_catalog.h"
#include "zoo/entry_names.h"

namespace ridgeline::zoo {

absl::StatusOr<std::vector<engine::Runtime>> RuntimeCatalog() {
  return LoadEntryCatalog<engine::Runtime>(kRuntimePrefix,
                                           engine::ParseRuntimeJson);
}

std::string_view DefaultRuntimeKey(const engine::Hardware& hardware) {
  const double fp32 = hardware.PeakFlops("fp32").value_or(0);
  double matrix = 0;
  for (const char* p : {"fp16", "bf16"}) {
    matrix = std::max(matrix, hardware.PeakFlops(p).value_or(0));
  }
  return matrix > 2 * fp32 ? "compiled" : "ort-cpu";
}

absl::StatusOr<engine::Runtime> ResolveRuntime(std::string_view name) {
  if (name.ends_with(".json")) {
    return engine::LoadRuntimeFile(std::string(name));
  }
  // Only the entry found is parsed (RuntimeCatalog parses them all).
  const std::vector<NamedFile> files = ReadEntryNames(kRuntimePrefix);
  absl::StatusOr<size_t> i = engine::MatchRuntimeName(NamesOf(files), name);
  if (!i.ok()) return i.status();
  return engine::ParseRuntimeJson(files[*i].file.bytes, files[*i].origin);
}

}  // namespace ridgeline::zoo
