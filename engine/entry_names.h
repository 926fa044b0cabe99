// The names a catalog entry (a device, a runtime profile) answers to, and
// the rules that find one by name: what zoo lookups read from an embedded
// file's head without parsing the rest (zoo/entry_catalog.h), and what
// FindHardware / FindRuntime apply to parsed entries.
#ifndef RIDGELINE_ENGINE_ENTRY_NAMES_H_
#define RIDGELINE_ENGINE_ENTRY_NAMES_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace ridgeline::engine {

struct EntryNames {
  std::string key;                   // lower-case
  std::string name;                  // display name, as written
  std::vector<std::string> aliases;  // lower-case
};

// The device `query` names: by key, display name or alias,
// case-insensitively; else ignoring punctuation and spaces ("H100 SXM" =
// "h100-sxm") when that matches one entry only. The first match in order.
// NotFound lists every key with its aliases.
absl::StatusOr<size_t> MatchHardwareName(const std::vector<EntryNames>& entries,
                                         std::string_view query);

// The runtime profile `query` names: by key or alias, case-insensitively.
// NotFound lists every key.
absl::StatusOr<size_t> MatchRuntimeName(const std::vector<EntryNames>& entries,
                                        std::string_view query);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_ENTRY_NAMES_H_
