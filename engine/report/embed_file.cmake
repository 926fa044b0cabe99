# Turns engine/report/report_template.html into a C++ source defining
# ridgeline::engine::report::ReportTemplate(). Run at build time:
#   cmake -DINPUT=report_template.html -DOUTPUT=out.cc -P embed_file.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
# "3c21" -> "0x3c,0x21," with a line break every 16 bytes.
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
set(sixteen "")
foreach(i RANGE 15)
  string(APPEND sixteen "0x[0-9a-f][0-9a-f],")
endforeach()
string(REGEX REPLACE "(${sixteen})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}"
"// Generated from engine/report/report_template.html by embed_file.cmake.
// Do not edit.
#include <string_view>

#include \"engine/report/report_template.h\"

namespace ridgeline::engine::report {
namespace {
constexpr char kTemplate[] = {
${bytes}
0};
}  // namespace

std::string_view ReportTemplate() { return std::string_view(kTemplate, ${size}); }

}  // namespace ridgeline::engine::report
")
