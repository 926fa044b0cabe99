// The JSON document of an analysis (schema: engine/report/JSON_SCHEMA.md).
// Returned as an object so that later features can add their sections
// ("whole_model", "groups", ...) before it is written.
#ifndef RIDGELINE_ENGINE_REPORT_JSON_H_
#define RIDGELINE_ENGINE_REPORT_JSON_H_

#include "engine/analysis.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine::report {

// Version of the JSON layout; bumped only on incompatible changes.
inline constexpr int kJsonSchemaVersion = 2;

nlohmann::ordered_json AnalysisToJson(const Analysis& analysis);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_JSON_H_
