// An Einsum equation, parsed once for the shape function (importers/) and
// the counter (engine/): "bij,bjk->bik", "...ij,...jk" (spaces ignored;
// "..." stands for broadcast batch dims; without "->" the output is
// implicit: the ellipsis dims, then the letters used exactly once, sorted).
#ifndef RIDGELINE_GRAPH_EINSUM_H_
#define RIDGELINE_GRAPH_EINSUM_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace ridgeline::graph {

struct EinsumTerm {
  std::string letters;   // the labels in order (a-z, A-Z), without "..."
  int ellipsis_at = -1;  // "..." stands before letters[ellipsis_at]; -1: none
  bool has_ellipsis() const { return ellipsis_at >= 0; }
};

struct EinsumEquation {
  std::vector<EinsumTerm> inputs;
  std::optional<EinsumTerm> output;  // nullopt: the implicit form
};

// InvalidArgument naming the problem ("bad character '#' in equation
// 'ij#,jk'", a term with two "..." or a stray '.').
absl::StatusOr<EinsumEquation> ParseEinsum(std::string_view equation);

}  // namespace ridgeline::graph

#endif  // RIDGELINE_GRAPH_EINSUM_H_
