// Shape text of a layer for the HTML/SVG reports.
#ifndef RIDGELINE_ENGINE_REPORT_LAYER_SHAPES_H_
#define RIDGELINE_ENGINE_REPORT_LAYER_SHAPES_H_

#include <string>

#include "engine/analysis.h"

namespace ridgeline::engine::report {

// "[1,3,224,224] [64,3,7,7] -> [1,64,112,112]": the shapes of the layer's
// inputs, then of its outputs ("?" for an unknown shape); "" when the layer
// carries no tensor information.
std::string LayerShapes(const LayerResult& layer);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_LAYER_SHAPES_H_
