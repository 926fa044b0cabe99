#include "engine/report/svg_writer.h"

#include <string>
#include <string_view>
#include <utility>

#include "engine/report/xml_escape.h"
#include "fmt/format.h"

namespace ridgeline::engine::report {

std::string Attr(std::string_view name, std::string_view value) {
  return fmt::format(" {}=\"{}\"", name, EscapeXml(value));
}

std::string Px(std::string_view name, double value) {
  // Avoid "-0.00".
  if (value > -0.005 && value < 0.005) value = 0;
  return fmt::format(" {}=\"{:.2f}\"", name, value);
}

std::string Num(std::string_view name, double value) {
  return fmt::format(" {}=\"{}\"", name, value);
}

SvgWriter::SvgWriter(double width, double height,
                     std::string_view root_attributes) {
  out_ = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" "
      "height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\"{2}>\n",
      width, height, root_attributes);
}

void SvgWriter::Empty(std::string_view tag, std::string_view attributes) {
  fmt::format_to(std::back_inserter(out_), "<{}{}/>\n", tag, attributes);
}

void SvgWriter::Open(std::string_view tag, std::string_view attributes) {
  fmt::format_to(std::back_inserter(out_), "<{}{}>", tag, attributes);
}

void SvgWriter::Close(std::string_view tag) {
  fmt::format_to(std::back_inserter(out_), "</{}>\n", tag);
}

void SvgWriter::Text(std::string_view attributes, std::string_view text) {
  fmt::format_to(std::back_inserter(out_), "<text{}>{}</text>\n", attributes,
                 EscapeXml(text));
}

void SvgWriter::Title(std::string_view text) {
  fmt::format_to(std::back_inserter(out_), "<title>{}</title>",
                 EscapeXml(text));
}

void SvgWriter::Raw(std::string_view markup) { out_.append(markup); }

std::string SvgWriter::Finish() && {
  out_ += "</svg>\n";
  return std::move(out_);
}

}  // namespace ridgeline::engine::report
