// The rows of the human-readable layer table (table and Markdown formats):
// the slowest layers, an "other" row, the grouped views, and the dispatch tax.
#ifndef RIDGELINE_ENGINE_REPORT_LAYER_ROWS_H_
#define RIDGELINE_ENGINE_REPORT_LAYER_ROWS_H_

#include <string>
#include <vector>

#include "engine/analysis.h"
#include "engine/report/report.h"
#include "engine/report/text_table.h"

namespace ridgeline::engine::report {

// Column headers with units: "#", "name", "op", "output shape", "FLOPs",
// "bytes", "intensity", "T_compute", "T_memory", "latency", "% total",
// "bound". Names stay whole; RenderText elides them to its width.
TextTable BuildLayerTable(const Analysis& analysis,
                          const ReportOptions& options);

// "[1,64,112,112]" ("?" when unresolved) for a tensor.
std::string ShapeText(const TensorInfo& tensor);
// The first output's shape, with " +N" when the node has N more outputs.
std::string OutputShapeText(const LayerResult& layer);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_LAYER_ROWS_H_
