// Escaping of model-provided text (node names, op types, shapes) for HTML and
// SVG, in element content and in quoted attribute values alike.
//
//   out += fmt::format("<td title=\"{}\">{}</td>", EscapeXml(name),
//   EscapeXml(op));
#ifndef RIDGELINE_ENGINE_REPORT_XML_ESCAPE_H_
#define RIDGELINE_ENGINE_REPORT_XML_ESCAPE_H_

#include <string>
#include <string_view>

namespace ridgeline::engine::report {

// Returns `text` with & < > " ' replaced by character references, so it is
// safe in HTML/SVG/XML text and in single- or double-quoted attribute values.
// Also makes the result well-formed XML: bytes that are not valid UTF-8 and
// control characters other than tab, newline and carriage return (which XML
// 1.0 forbids even as references) become U+FFFD.
std::string EscapeXml(std::string_view text);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_XML_ESCAPE_H_
