// Which fusion rules are on (--fuse, and a runtime profile's "fusion" list).
// The rules themselves are described in engine/fusion.h.
#ifndef RIDGELINE_ENGINE_FUSION_KINDS_H_
#define RIDGELINE_ENGINE_FUSION_KINDS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace ridgeline::engine {

// The rules a --fuse value switches on.
struct FusionKinds {
  bool epilogue = false;
  bool elementwise = false;
  bool attention = false;

  bool any() const { return epilogue || elementwise || attention; }
  static FusionKinds All() { return {true, true, true}; }
};

// Parses --fuse: "none", "all", or a comma-separated list of "epilogue",
// "elementwise", "attention" (case-insensitive, spaces ignored). Unknown
// words, empty items, and "none" combined with other words are errors.
absl::StatusOr<FusionKinds> ParseFusionKinds(std::string_view text);
// "none", "all", or the switched-on kinds joined by commas.
std::string FusionKindsName(const FusionKinds& kinds);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_FUSION_KINDS_H_
