#include "graph/einsum.h"

#include "fmt/format.h"

namespace ridgeline::graph {
namespace {

absl::StatusOr<EinsumTerm> ParseTerm(std::string_view term,
                                     std::string_view equation) {
  EinsumTerm parsed;
  for (size_t i = 0; i < term.size(); ++i) {
    const char c = term[i];
    if (c == '.') {
      if (parsed.has_ellipsis() || term.substr(i, 3) != "...") {
        return absl::InvalidArgumentError(
            fmt::format("bad equation term '{}' in '{}'", term, equation));
      }
      parsed.ellipsis_at = static_cast<int>(parsed.letters.size());
      i += 2;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      parsed.letters.push_back(c);
    } else {
      return absl::InvalidArgumentError(
          fmt::format("bad character '{}' in equation '{}'", c, equation));
    }
  }
  return parsed;
}

}  // namespace

absl::StatusOr<EinsumEquation> ParseEinsum(std::string_view text) {
  std::string equation;
  for (char c : text) {
    if (c != ' ') equation.push_back(c);
  }
  const size_t arrow = equation.find("->");
  const std::string_view all(equation);
  const std::string_view lhs = all.substr(0, arrow);
  EinsumEquation parsed;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    absl::StatusOr<EinsumTerm> term =
        ParseTerm(lhs.substr(start, comma - start), equation);
    if (!term.ok()) return term.status();
    parsed.inputs.push_back(*std::move(term));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (arrow != std::string::npos) {
    absl::StatusOr<EinsumTerm> out = ParseTerm(all.substr(arrow + 2), equation);
    if (!out.ok()) return out.status();
    parsed.output = *std::move(out);
  }
  return parsed;
}

}  // namespace ridgeline::graph
