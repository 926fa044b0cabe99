// A list of names for a message: the first `limit`, then how many more.
#ifndef RIDGELINE_GRAPH_LIST_SOME_H_
#define RIDGELINE_GRAPH_LIST_SOME_H_

#include <cstddef>
#include <string>
#include <vector>

#include "fmt/format.h"

namespace ridgeline::graph {

// ListSome({"a", "b", "c"}, 2) == "a, b, ... (1 more)".
inline std::string ListSome(const std::vector<std::string>& names,
                            size_t limit) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) {
    out += fmt::format("{}{}", i > 0 ? ", " : "", names[i]);
  }
  if (names.size() > limit) {
    out += fmt::format(", ... ({} more)", names.size() - limit);
  }
  return out;
}

}  // namespace ridgeline::graph

#endif  // RIDGELINE_GRAPH_LIST_SOME_H_
