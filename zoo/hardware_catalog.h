// The built-in hardware zoo: every zoo/hardware/*.json compiled into the
// binary, parsed into engine::Hardware entries.
//
//   absl::StatusOr<std::vector<engine::Hardware>> all = zoo::HardwareCatalog();
//   auto h100 = engine::FindHardware(*all, "h100");
#ifndef RIDGELINE_ZOO_HARDWARE_CATALOG_H_
#define RIDGELINE_ZOO_HARDWARE_CATALOG_H_

#include <vector>

#include "absl/status/statusor.h"
#include "engine/hardware.h"

namespace ridgeline::zoo {

// Directory prefix of the embedded hardware files.
inline constexpr std::string_view kHardwarePrefix = "hardware/";

// All embedded devices, sorted by key. Fails (naming the file and field) if
// an embedded file does not parse or two entries share a key or alias.
absl::StatusOr<std::vector<engine::Hardware>> HardwareCatalog();

}  // namespace ridgeline::zoo

#endif  // RIDGELINE_ZOO_HARDWARE_CATALOG_H_
