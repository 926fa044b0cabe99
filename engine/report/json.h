// The JSON document of an analysis (schema: engine/report/JSON_SCHEMA.md),
// written as it goes (json_writer.h): no document tree is built. The CLI's
// feature modes add their sections through JsonExtras.
#ifndef RIDGELINE_ENGINE_REPORT_JSON_H_
#define RIDGELINE_ENGINE_REPORT_JSON_H_

#include <ostream>
#include <string>
#include <vector>

#include "engine/analysis.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine::report {

// Version of the JSON layout; bumped only on incompatible changes.
inline constexpr int kJsonSchemaVersion = 2;

// What a caller adds to the analysis' document.
struct JsonExtras {
  // Listed under "warnings" before the analysis' own (the CLI's stderr
  // warnings).
  std::vector<std::string> warnings_first;
  // Keys after "warnings", in order (an object; null for none). Its
  // "layers", an array, is not a section: element i's keys are merged into
  // layer i as nlohmann's update() does (a key the layer has is replaced in
  // place, the others appended). Any other key the document already has is
  // replaced in place.
  nlohmann::ordered_json sections;
};

// Writes the document and its trailing newline; the bytes equal
// nlohmann's dump(2, ' ', false, error_handler_t::replace) of the same tree.
void WriteAnalysisJson(const Analysis& analysis, const JsonExtras& extras,
                       std::ostream& out);

// The same document as a tree (the Python package's dict): the written
// bytes, parsed.
nlohmann::ordered_json AnalysisToJson(const Analysis& analysis);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_JSON_H_
