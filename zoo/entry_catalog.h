// Loads every embedded JSON file under a prefix into entries that have a
// `key` and `aliases` (hardware devices, runtime profiles), sorted by key,
// rejecting a key or alias used twice.
#ifndef RIDGELINE_ZOO_ENTRY_CATALOG_H_
#define RIDGELINE_ZOO_ENTRY_CATALOG_H_

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "zoo/zoo.h"

namespace ridgeline::zoo {

// `parse(bytes, origin)` returns absl::StatusOr<Entry>.
template <typename Entry, typename Parse>
absl::StatusOr<std::vector<Entry>> LoadEntryCatalog(std::string_view prefix,
                                                    Parse parse) {
  std::vector<Entry> catalog;
  absl::flat_hash_map<std::string, std::string> owner;  // name -> file
  for (const EmbeddedFile& f : Files(prefix)) {
    if (!f.path.ends_with(".json")) continue;
    const std::string origin = fmt::format("zoo/{}", f.path);
    absl::StatusOr<Entry> entry = parse(f.bytes, origin);
    if (!entry.ok()) return entry.status();
    std::vector<std::string> names = entry->aliases;
    names.push_back(entry->key);
    for (const std::string& n : names) {
      auto [it, inserted] = owner.try_emplace(n, origin);
      if (!inserted) {
        return absl::InvalidArgumentError(
            fmt::format("{}: key or alias '{}' is already used by {}", origin,
                        n, it->second));
      }
    }
    catalog.push_back(*std::move(entry));
  }
  std::sort(catalog.begin(), catalog.end(),
            [](const Entry& a, const Entry& b) { return a.key < b.key; });
  return catalog;
}

}  // namespace ridgeline::zoo

#endif  // RIDGELINE_ZOO_ENTRY_CATALOG_H_
