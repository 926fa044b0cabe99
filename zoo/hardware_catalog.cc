#include "zoo/hardware_catalog.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "zoo/zoo.h"

namespace ridgeline::zoo {

absl::StatusOr<std::vector<engine::Hardware>> HardwareCatalog() {
  std::vector<engine::Hardware> catalog;
  absl::flat_hash_map<std::string, std::string> owner;  // name -> file
  for (const EmbeddedFile& f : Files(kHardwarePrefix)) {
    if (f.path.size() < 5 || f.path.substr(f.path.size() - 5) != ".json") {
      continue;
    }
    const std::string origin = fmt::format("zoo/{}", f.path);
    absl::StatusOr<engine::Hardware> hw =
        engine::ParseHardwareJson(f.bytes, origin);
    if (!hw.ok()) return hw.status();
    std::vector<std::string> names = hw->aliases;
    names.push_back(hw->key);
    for (const std::string& n : names) {
      auto [it, inserted] = owner.try_emplace(n, origin);
      if (!inserted) {
        return absl::InvalidArgumentError(
            fmt::format("{}: key or alias '{}' is already used by {}", origin,
                        n, it->second));
      }
    }
    catalog.push_back(*std::move(hw));
  }
  std::sort(catalog.begin(), catalog.end(),
            [](const engine::Hardware& a, const engine::Hardware& b) {
              return a.key < b.key;
            });
  return catalog;
}

}  // namespace ridgeline::zoo
