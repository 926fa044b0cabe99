// A streaming JSON writer whose bytes equal nlohmann's
// dump(2, ' ', /*ensure_ascii=*/false, error_handler_t::replace) of the same
// document: two-space indent, "key": value, "{}" / "[]" when empty, doubles
// as nlohmann prints them (shortest round trip, ".0" on integral values,
// null for NaN and infinities), invalid UTF-8 replaced by U+FFFD. Nothing
// but the current nesting is held: output goes to the stream in 64 KiB
// chunks.
//
//   JsonWriter w(out);
//   w.BeginObject();
//   w.Key("layers");
//   w.BeginArray(); w.Double(1.5); w.EndArray();
//   w.EndObject();
//   w.Finish();  // the trailing newline, and the last chunk flushed
#ifndef RIDGELINE_ENGINE_REPORT_JSON_WRITER_H_
#define RIDGELINE_ENGINE_REPORT_JSON_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"

namespace ridgeline::engine::report {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out);
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // The next member's key (inside an object).
  void Key(std::string_view key);

  void String(std::string_view value);
  void Int(int64_t value);
  void Double(double value);
  void Bool(bool value);
  void Null();
  void Strings(const std::vector<std::string>& values);
  void Ints(const std::vector<int64_t>& values);
  // A whole nlohmann value at the current position (mode sections).
  void Value(const nlohmann::ordered_json& value);
  void Value(const nlohmann::json& value);

  // Writes the newline after the document and flushes to the stream.
  void Finish();

 private:
  struct Level {
    bool object = false;
    int count = 0;
  };
  // Bytes held before they go to the stream.
  static constexpr size_t kBufferBytes = 64 * 1024;

  void BeforeValue();
  // `spaces` blanks.
  void Indent(size_t spaces);
  // A line break and the current depth's indent.
  void Newline();
  // `s` quoted as nlohmann quotes it.
  void QuotedString(std::string_view s);
  // A dump of `value` at indent 2, re-indented to the current depth.
  template <typename Json>
  void Dump(const Json& value);
  void Flush();

  void Put(char c) {
    if (size_ == kBufferBytes) Flush();
    buffer_[size_++] = c;
  }
  void Append(std::string_view bytes) {
    if (bytes.size() > kBufferBytes - size_) {
      Flush();
      if (bytes.size() > kBufferBytes) {
        out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return;
      }
    }
    std::memcpy(buffer_.get() + size_, bytes.data(), bytes.size());
    size_ += bytes.size();
  }

  std::ostream& out_;
  std::unique_ptr<char[]> buffer_;
  size_t size_ = 0;
  std::vector<Level> stack_;
};

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_JSON_WRITER_H_
