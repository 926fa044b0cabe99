// SvgWriter: the project's small SVG builder (fmt, no plotting dependency).
// Callers pass attributes built with Attr/Px/Num, which escape and format.
//
//   SvgWriter svg(640, 400, Attr("class", "chart"));
//   svg.Empty("line", Px("x1", 0) + Px("y1", 0) + Px("x2", 10) + Px("y2", 10));
//   svg.Open("g", Attr("class", "pts"));
//   svg.Text(Px("x", 5) + Px("y", 20), "a <label>");   // escaped
//   svg.Close("g");
//   std::string doc = std::move(svg).Finish();
#ifndef RIDGELINE_ENGINE_REPORT_SVG_WRITER_H_
#define RIDGELINE_ENGINE_REPORT_SVG_WRITER_H_

#include <string>
#include <string_view>

namespace ridgeline::engine::report {

// The font stack of every chart (the HTML report's body font).
inline constexpr std::string_view kFontFamily =
    "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', "
    "'Liberation Sans', Arial, sans-serif";

// ` name="value"` with `value` escaped (EscapeXml).
std::string Attr(std::string_view name, std::string_view value);
// ` name="12.35"`: a pixel coordinate or length, two decimals.
std::string Px(std::string_view name, double value);
// ` name="4089184256"`: a raw number, shortest round-trip form ("1e-05").
std::string Num(std::string_view name, double value);

class SvgWriter {
 public:
  // Starts <svg xmlns=... width height viewBox ...> with `root_attributes`
  // (already formatted, e.g. from Attr()).
  SvgWriter(double width, double height, std::string_view root_attributes);

  // <tag attrs/>
  void Empty(std::string_view tag, std::string_view attributes);
  // <tag attrs>
  void Open(std::string_view tag, std::string_view attributes);
  // </tag>
  void Close(std::string_view tag);
  // <text attrs>escaped text</text>
  void Text(std::string_view attributes, std::string_view text);
  // <title>escaped text</title> (a tooltip for the enclosing element).
  void Title(std::string_view text);
  // Markup appended as is (must already be escaped).
  void Raw(std::string_view markup);

  // Closes the root element and returns the document.
  std::string Finish() &&;

 private:
  std::string out_;
};

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_SVG_WRITER_H_
