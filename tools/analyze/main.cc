#include "fmt/core.h"
#include "graph/fmt_absl.h"
#include "importers/onnx_importer.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: analyze MODEL.onnx\n");
    return 1;
  }
  ridgeline::importers::ImportOptions options;
  auto g = ridgeline::importers::ImportOnnxFile(argv[1], options);
  if (!g.ok()) {
    fmt::print(stderr, "analyze: error: {}\n", g.status().message());
    return 2;
  }
  fmt::print("{} nodes, {} tensors, {} unresolved\n", g->nodes().size(),
             g->tensors().size(), g->unresolved.size());
  return 0;
}
