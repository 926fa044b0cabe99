// The built-in runtime profiles: every zoo/runtimes/*.json compiled into the
// binary, parsed into engine::Runtime entries.
//
//   absl::StatusOr<std::vector<engine::Runtime>> all = zoo::RuntimeCatalog();
//   auto r = engine::FindRuntime(*all, "compiled");
#ifndef RIDGELINE_ZOO_RUNTIME_CATALOG_H_
#define RIDGELINE_ZOO_RUNTIME_CATALOG_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/hardware.h"
#include "engine/runtime.h"

namespace ridgeline::zoo {

inline constexpr std::string_view kRuntimePrefix = "runtimes/";

// All embedded runtimes, sorted by key. Fails (naming the file) if one does
// not parse or two share a key or alias.
absl::StatusOr<std::vector<engine::Runtime>> RuntimeCatalog();

// The runtime a device gets when --runtime is not given: "ort-cpu" for a
// CPU (a device without fp16/bf16 matrix peaks above its fp32 peak),
// otherwise "compiled" (README, "Execution model").
std::string_view DefaultRuntimeKey(const engine::Hardware& hardware);

// --runtime NAME|FILE.json: a catalog entry, or a profile file when NAME
// ends in ".json".
absl::StatusOr<engine::Runtime> ResolveRuntime(std::string_view name);

}  // namespace ridgeline::zoo

#endif  // RIDGELINE_ZOO_RUNTIME_CATALOG_H_
