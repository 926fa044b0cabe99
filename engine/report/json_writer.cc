#include "engine/report/json_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

namespace ridgeline::engine::report {
namespace {

constexpr size_t kChunk = 64 * 1024;
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

// Half a million keys and names in a 70B model's JSON: one resize and one
// copy each.
void AppendString(std::string_view s, std::string* out) {
  if (Plain(s)) {
    const size_t at = out->size();
    out->resize(at + s.size() + 2);
    char* p = out->data() + at;
    p[0] = '"';
    std::memcpy(p + 1, s.data(), s.size());
    p[s.size() + 1] = '"';
    return;
  }
  // Escapes and UTF-8 replacement exactly as nlohmann does them.
  out->append(nlohmann::json(std::string(s)).dump(-1, ' ', false, kReplace));
}

// A dump at indent 2 re-indented to `indent` (a dump never holds a raw
// newline inside a string, so every '\n' starts a line).
template <typename Json>
void AppendDump(const Json& value, size_t indent, std::string* out) {
  const std::string text = value.dump(2, ' ', false, kReplace);
  for (char c : text) {
    out->push_back(c);
    if (c == '\n') out->append(indent, ' ');
  }
}

}  // namespace

JsonWriter::JsonWriter(std::ostream& out) : out_(out) {
  buffer_.reserve(kChunk + 4096);
}

JsonWriter::~JsonWriter() { Flush(); }

void JsonWriter::Newline() {
  buffer_.push_back('\n');
  buffer_.append(2 * stack_.size(), ' ');
}

void JsonWriter::BeforeValue() {
  if (stack_.empty() || stack_.back().object) return;  // after Key()
  Level& level = stack_.back();
  if (level.count++ > 0) buffer_.push_back(',');
  Newline();
}

void JsonWriter::Key(std::string_view key) {
  Level& level = stack_.back();
  if (level.count++ > 0) buffer_.push_back(',');
  Newline();
  AppendString(key, &buffer_);
  buffer_.append(": ");
}

void JsonWriter::BeginObject() {
  BeforeValue();
  buffer_.push_back('{');
  stack_.push_back({.object = true});
}

void JsonWriter::BeginArray() {
  BeforeValue();
  buffer_.push_back('[');
  stack_.push_back({.object = false});
}

void JsonWriter::EndObject() {
  const bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) Newline();
  buffer_.push_back('}');
  MaybeFlush();
}

void JsonWriter::EndArray() {
  const bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) Newline();
  buffer_.push_back(']');
  MaybeFlush();
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendString(value, &buffer_);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), value);
  buffer_.append(digits, end);
}

void JsonWriter::Double(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    buffer_.append("null");
    return;
  }
  // nlohmann's own formatter (Grisu2, its notation thresholds), so that the
  // digits equal a dump's.
  char digits[64];
  char* end =
      nlohmann::detail::to_chars(digits, digits + sizeof(digits), value);
  buffer_.append(digits, end);
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  buffer_.append(value ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  buffer_.append("null");
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
  AppendDump(value, 2 * stack_.size(), &buffer_);
  MaybeFlush();
}

void JsonWriter::Value(const nlohmann::json& value) {
  BeforeValue();
  AppendDump(value, 2 * stack_.size(), &buffer_);
  MaybeFlush();
}

void JsonWriter::Finish() {
  buffer_.push_back('\n');
  Flush();
}

void JsonWriter::MaybeFlush() {
  if (buffer_.size() >= kChunk) Flush();
}

void JsonWriter::Flush() {
  if (buffer_.empty()) return;
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

}  // namespace ridgeline::engine::report
