// The built-in hardware zoo: every zoo/hardware/*.json compiled into the
// binary, parsed into engine::Hardware entries.
//
//   absl::StatusOr<std::vector<engine::Hardware>> all = zoo::HardwareCatalog();
//   auto h100 = engine::FindHardware(*all, "h100");
#ifndef RIDGELINE_ZOO_HARDWARE_CATALOG_H_
#define RIDGELINE_ZOO_HARDWARE_CATALOG_H_

#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/hardware.h"
#include "zoo/entry_names.h"

namespace ridgeline::zoo {

// Directory prefix of the embedded hardware files.
inline constexpr std::string_view kHardwarePrefix = "hardware/";

// All embedded devices, sorted by key. Fails (naming the file and field) if
// an embedded file does not parse or two entries share a key or alias.
absl::StatusOr<std::vector<engine::Hardware>> HardwareCatalog();

// Device lookups by name (`--hw NAME`) against the zoo, and a device from a
// file (`--hw-file`) that replaces the zoo entry with its key: the entries'
// names are read up front (ReadEntryNames), an entry is parsed only when a
// lookup finds it. Finds what engine::FindHardware finds in All().
class HardwareLookup {
 public:
  HardwareLookup();

  // The --hw-file device: replaces the zoo entry with the same key, else
  // joins the zoo (after every zoo entry).
  void Override(engine::Hardware hw);

  // engine::MatchHardwareName's device, parsed.
  absl::StatusOr<engine::Hardware> Find(std::string_view name) const;

  // Every device (--list-hw): HardwareCatalog() with the override.
  absl::StatusOr<std::vector<engine::Hardware>> All() const;

 private:
  std::vector<NamedFile> zoo_;
  std::optional<engine::Hardware> override_;
};

}  // namespace ridgeline::zoo

#endif  // RIDGELINE_ZOO_HARDWARE_CATALOG_H_
