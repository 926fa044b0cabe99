// Built-in data: hardware entries and pre-traced model graphs, compiled into
// the binary so `analyze --zoo NAME` and `--hw NAME` need no files.
#ifndef RIDGELINE_ZOO_ZOO_H_
#define RIDGELINE_ZOO_ZOO_H_

#include <string>
#include <string_view>
#include <vector>

namespace ridgeline::zoo {

struct EmbeddedFile {
  std::string_view path;  // relative to zoo/, e.g. "hardware/h100-sxm.json"
  std::string_view bytes;
};

// Every embedded file whose path starts with `prefix` ("hardware/", ...).
std::vector<EmbeddedFile> Files(std::string_view prefix);

}  // namespace ridgeline::zoo

#endif  // RIDGELINE_ZOO_ZOO_H_
