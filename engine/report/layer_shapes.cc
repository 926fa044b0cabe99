#include "engine/report/layer_shapes.h"

#include <string>

#include "engine/report/layer_rows.h"

namespace ridgeline::engine::report {

std::string LayerShapes(const LayerResult& layer) {
  if (layer.inputs.empty() && layer.outputs.empty()) return "";
  std::string out;
  for (const TensorInfo& t : layer.inputs) {
    if (!out.empty()) out += ' ';
    out += ShapeText(t);
  }
  out += " ->";
  for (const TensorInfo& t : layer.outputs) {
    out += ' ';
    out += ShapeText(t);
  }
  return out;
}

}  // namespace ridgeline::engine::report
