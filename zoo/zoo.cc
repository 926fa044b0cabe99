#include "zoo/zoo.h"

#include <cstddef>

namespace ridgeline::zoo {
namespace internal {
// Defined in the source generated at build time by zoo/embed_main.cc.
extern const EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kNumEmbeddedFiles;
}  // namespace internal

std::vector<EmbeddedFile> Files(std::string_view prefix) {
  std::vector<EmbeddedFile> files;
  for (std::size_t i = 0; i < internal::kNumEmbeddedFiles; ++i) {
    const EmbeddedFile& f = internal::kEmbeddedFiles[i];
    if (f.path.substr(0, prefix.size()) == prefix) files.push_back(f);
  }
  return files;
}

}  // namespace ridgeline::zoo
