// The HTML report's page template (engine/report/report_template.html),
// embedded into the library at build time by engine/CMakeLists.txt.
#ifndef RIDGELINE_ENGINE_REPORT_REPORT_TEMPLATE_H_
#define RIDGELINE_ENGINE_REPORT_REPORT_TEMPLATE_H_

#include <string_view>

namespace ridgeline::engine::report {

// The template text, with {{PLACEHOLDER}}s (see RenderHtmlReport).
std::string_view ReportTemplate();

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_REPORT_TEMPLATE_H_
