#include "engine/report/json_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

namespace ridgeline::engine::report {
namespace {

constexpr auto kReplace = nlohmann::json::error_handler_t::replace;

// The bytes nlohmann writes unchanged: printable ASCII but '"' and '\\'.
constexpr std::array<bool, 256> kPlainByte = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  return plain;
}();

// True when nlohmann writes the bytes of `s` unchanged.
bool Plain(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return kPlainByte[static_cast<unsigned char>(c)];
  });
}

}  // namespace

JsonWriter::JsonWriter(std::ostream& out)
    : out_(out), buffer_(std::make_unique<char[]>(kBufferBytes)) {}

JsonWriter::~JsonWriter() { Flush(); }

void JsonWriter::Indent(size_t spaces) {
  static constexpr std::string_view kSpaces =
      "                                                                "
      "                                                                ";
  while (spaces > 0) {
    const size_t piece = std::min(spaces, kSpaces.size());
    Append(kSpaces.substr(0, piece));
    spaces -= piece;
  }
}

void JsonWriter::Newline() {
  Put('\n');
  Indent(2 * stack_.size());  // two spaces per level
}

// Half a million keys and names in a 70B model's JSON: plain ones are
// copied as they are.
void JsonWriter::QuotedString(std::string_view s) {
  if (Plain(s)) {
    Put('"');
    Append(s);
    Put('"');
    return;
  }
  // Escapes and UTF-8 replacement exactly as nlohmann does them.
  Append(nlohmann::json(std::string(s)).dump(-1, ' ', false, kReplace));
}

// A dump never holds a raw newline inside a string, so every '\n' starts a
// line.
template <typename Json>
void JsonWriter::Dump(const Json& value) {
  const std::string text = value.dump(2, ' ', false, kReplace);
  const size_t indent = 2 * stack_.size();
  size_t line = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') continue;
    Append(std::string_view(text).substr(line, i + 1 - line));
    Indent(indent);
    line = i + 1;
  }
  Append(std::string_view(text).substr(line));
}

void JsonWriter::BeforeValue() {
  if (stack_.empty() || stack_.back().object) return;  // after Key()
  Level& level = stack_.back();
  if (level.count++ > 0) Put(',');
  Newline();
}

void JsonWriter::Key(std::string_view key) {
  Level& level = stack_.back();
  if (level.count++ > 0) Put(',');
  Newline();
  QuotedString(key);
  Append(": ");
}

void JsonWriter::BeginObject() {
  BeforeValue();
  Put('{');
  stack_.push_back({.object = true});
}

void JsonWriter::BeginArray() {
  BeforeValue();
  Put('[');
  stack_.push_back({.object = false});
}

void JsonWriter::EndObject() {
  const bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) Newline();
  Put('}');
}

void JsonWriter::EndArray() {
  const bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) Newline();
  Put(']');
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  QuotedString(value);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), value);
  Append(std::string_view(digits, end - digits));
}

void JsonWriter::Double(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    Append("null");
    return;
  }
  // nlohmann's own formatter (Grisu2, its notation thresholds), so that the
  // digits equal a dump's.
  char digits[64];
  char* end =
      nlohmann::detail::to_chars(digits, digits + sizeof(digits), value);
  Append(std::string_view(digits, end - digits));
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  Append(value ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  Append("null");
}

void JsonWriter::Strings(const std::vector<std::string>& values) {
  BeginArray();
  for (const std::string& v : values) String(v);
  EndArray();
}

void JsonWriter::Ints(const std::vector<int64_t>& values) {
  BeginArray();
  for (int64_t v : values) Int(v);
  EndArray();
}

void JsonWriter::Value(const nlohmann::ordered_json& value) {
  BeforeValue();
  Dump(value);
}

void JsonWriter::Value(const nlohmann::json& value) {
  BeforeValue();
  Dump(value);
}

void JsonWriter::Finish() {
  Put('\n');
  Flush();
}

void JsonWriter::Flush() {
  if (size_ == 0) return;
  out_.write(buffer_.get(), static_cast<std::streamsize>(size_));
  size_ = 0;
}

}  // namespace ridgeline::engine::report
