#include "zoo/zoo.h"

namespace ridgeline::zoo {

std::vector<EmbeddedFile> Files(std::string_view prefix) {
  (void)prefix;
  return {};
}

}  // namespace ridgeline::zoo
