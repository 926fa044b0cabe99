#include "zoo/hardware_catalog.h"

#include "zoo/entry_catalog.h"

namespace ridgeline::zoo {

absl::StatusOr<std::vector<engine::Hardware>> HardwareCatalog() {
  return LoadEntryCatalog<engine::Hardware>(kHardwarePrefix,
                                            engine::ParseHardwareJson);
}

}  // namespace ridgeline::zoo
