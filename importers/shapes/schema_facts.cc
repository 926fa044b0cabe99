#include "importers/shapes/schema_facts.h"

#include <algorithm>
#include <tuple>

namespace ridgeline::importers::shapes {

std::span<const OpFacts> AllOpFacts() { return internal::GeneratedOpFacts(); }

const OpFacts* FindOpFacts(std::string_view op_type, int opset,
                           std::string_view domain) {
  const std::span<const OpFacts> all = AllOpFacts();
  // The first entry past (domain, op_type, opset); the one before it is the
  // newest version not above opset, if it is the same op.
  const auto key = std::make_tuple(domain, op_type, opset);
  const auto it = std::upper_bound(
      all.begin(), all.end(), key, [](const auto& k, const OpFacts& f) {
        return k < std::make_tuple(f.domain, f.op_type, f.since_version);
      });
  if (it == all.begin()) return nullptr;
  const OpFacts& found = *(it - 1);
  if (found.domain != domain || found.op_type != op_type) return nullptr;
  return &found;
}

std::optional<int> MaxKnownOpset(std::string_view domain) {
  for (const internal::DomainRange& r : internal::GeneratedDomainRanges()) {
    if (r.domain == domain) return r.max_version;
  }
  return std::nullopt;
}

}  // namespace ridgeline::importers::shapes
