#include "zoo/runtime_catalog.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "zoo/zoo.h"

namespace ridgeline::zoo {

absl::StatusOr<std::vector<engine::Runtime>> RuntimeCatalog() {
  std::vector<engine::Runtime> catalog;
  absl::flat_hash_map<std::string, std::string> owner;
  for (const EmbeddedFile& f : Files(kRuntimePrefix)) {
    if (!f.path.ends_with(".json")) continue;
    const std::string origin = fmt::format("zoo/{}", f.path);
    absl::StatusOr<engine::Runtime> r =
        engine::ParseRuntimeJson(f.bytes, origin);
    if (!r.ok()) return r.status();
    std::vector<std::string> names = r->aliases;
    names.push_back(r->key);
    for (const std::string& n : names) {
      auto [it, inserted] = owner.try_emplace(n, origin);
      if (!inserted) {
        return absl::InvalidArgumentError(
            fmt::format("{}: key or alias '{}' is already used by {}", origin,
                        n, it->second));
      }
    }
    catalog.push_back(*std::move(r));
  }
  std::sort(catalog.begin(), catalog.end(),
            [](const engine::Runtime& a, const engine::Runtime& b) {
              return a.key < b.key;
            });
  return catalog;
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
  absl::StatusOr<std::vector<engine::Runtime>> catalog = RuntimeCatalog();
  if (!catalog.ok()) return catalog.status();
  return engine::FindRuntime(*catalog, name);
}

}  // namespace ridgeline::zoo
