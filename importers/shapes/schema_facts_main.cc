// Build-time generator: writes the table of importers/shapes/schema_facts.h
// from the libonnx the project links, so a run answers "how many inputs does
// Conv-11 take" without building libonnx's schema registry.
//
//   schema_facts_gen OUT.cc
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "onnx/defs/schema.h"

namespace {

std::string Quoted(const std::string& s) {
  std::ostringstream out;
  out << '"';
  for (char c : s) {
    if (c == '"' || c == '\\' || c == '?') {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\%03o", static_cast<unsigned char>(c));
      out << buf;
    } else {
      out << c;
    }
  }
  out << '"';
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.cc\n", argv[0]);
    return 2;
  }
  std::vector<onnx::OpSchema> schemas =
      onnx::OpSchemaRegistry::get_all_schemas_with_history();
  std::sort(schemas.begin(), schemas.end(),
            [](const onnx::OpSchema& a, const onnx::OpSchema& b) {
              return std::make_tuple(a.domain(), a.Name(), a.SinceVersion()) <
                     std::make_tuple(b.domain(), b.Name(), b.SinceVersion());
            });
  std::ostringstream arrays;
  std::ostringstream table;
  for (size_t i = 0; i < schemas.size(); ++i) {
    const onnx::OpSchema& s = schemas[i];
    std::string inputs = "{}";
    if (!s.inputs().empty()) {
      inputs = "kIn" + std::to_string(i);
      arrays << "constexpr FormalInput " << inputs << "[] = {";
      for (const auto& formal : s.inputs()) {
        arrays << "{" << Quoted(formal.GetName()) << ", "
               << (formal.GetOption() == onnx::OpSchema::Single ? "true"
                                                                : "false")
               << "}, ";
      }
      arrays << "};\n";
    }
    std::string attributes = "{}";
    std::ostringstream required;
    for (const auto& [name, attr] : s.attributes()) {  // std::map: by name
      if (!attr.required) continue;
      required << "{" << Quoted(name) << ", " << static_cast<int>(attr.type)
               << "}, ";
    }
    if (!required.str().empty()) {
      attributes = "kAttr" + std::to_string(i);
      arrays << "constexpr RequiredAttribute " << attributes << "[] = {"
             << required.str() << "};\n";
    }
    table << "    {" << Quoted(s.domain()) << ", " << Quoted(s.Name()) << ", "
          << s.SinceVersion() << ", " << s.min_input() << ", " << s.max_input()
          << ", " << s.min_output() << ", " << s.max_output() << ", "
          << (s.has_type_and_shape_inference_function() ? "true" : "false")
          << ", " << inputs << ", " << attributes << "},\n";
  }
  std::vector<std::pair<std::string, int>> domains;
  for (const auto& [domain, range] :
       onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map()) {
    domains.emplace_back(domain, range.second);
  }
  std::sort(domains.begin(), domains.end());
  std::ostringstream out;
  out << "// Generated at build time by importers/shapes/schema_facts_main.cc "
         "from\n// libonnx's OpSchemaRegistry; do not edit.\n"
         "#include \"importers/shapes/schema_facts.h\"\n\n"
         "namespace ridgeline::importers::shapes::internal {\n"
         "namespace {\n\n"
      << arrays.str() << "\nconstexpr OpFacts kOpFacts[] = {\n"
      << table.str() << "};\n\nconstexpr DomainRange kDomainRanges[] = {\n";
  for (const auto& [domain, max_version] : domains) {
    out << "    {" << Quoted(domain) << ", " << max_version << "},\n";
  }
  out << "};\n\n}  // namespace\n\n"
         "std::span<const OpFacts> GeneratedOpFacts() { return kOpFacts; }\n"
         "std::span<const DomainRange> GeneratedDomainRanges() {\n"
         "  return kDomainRanges;\n}\n\n"
         "}  // namespace ridgeline::importers::shapes::internal\n";
  std::ofstream file(argv[1], std::ios::binary);
  file << out.str();
  file.close();
  if (!file) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[1]);
    return 1;
  }
  return 0;
}
