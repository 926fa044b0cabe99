#include "zoo/entry_names.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/ascii.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace ridgeline::zoo {
namespace {

// Collects the top-level "key", "name" and "aliases" and stops the parse
// (a handler returning false) as soon as it has all three.
class NamesReader final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit NamesReader(engine::EntryNames* out) : out_(out) {}

  bool complete() const { return has_key_ && has_name_ && has_aliases_; }

  bool null() override { return Scalar(); }
  bool boolean(bool) override { return Scalar(); }
  bool number_integer(number_integer_t) override { return Scalar(); }
  bool number_unsigned(number_unsigned_t) override { return Scalar(); }
  bool number_float(number_float_t, const string_t&) override {
    return Scalar();
  }
  bool string(string_t& value) override {
    if (depth_ == 1 && field_ == Field::kKey) {
      out_->key = absl::AsciiStrToLower(value);
      has_key_ = true;
    } else if (depth_ == 1 && field_ == Field::kName) {
      out_->name = value;
      has_name_ = true;
    } else if (depth_ == 2 && in_aliases_) {
      aliases_.push_back(absl::AsciiStrToLower(value));
    }
    return Scalar();
  }
  bool binary(binary_t&) override { return Scalar(); }
  bool start_object(std::size_t) override {
    ++depth_;
    field_ = Field::kOther;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      field_ = k == "key"       ? Field::kKey
               : k == "name"    ? Field::kName
               : k == "aliases" ? Field::kAliases
                                : Field::kOther;
    }
    return true;
  }
  bool end_object() override {
    --depth_;
    return !complete();
  }
  bool start_array(std::size_t) override {
    ++depth_;
    in_aliases_ = depth_ == 2 && field_ == Field::kAliases;
    return true;
  }
  bool end_array() override {
    --depth_;
    if (in_aliases_ && depth_ == 1) {
      out_->aliases = std::move(aliases_);
      has_aliases_ = true;
      in_aliases_ = false;
    }
    return !complete();
  }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  enum class Field { kOther, kKey, kName, kAliases };

  bool Scalar() { return !complete(); }

  engine::EntryNames* out_;
  int depth_ = 0;
  Field field_ = Field::kOther;
  bool in_aliases_ = false;
  std::vector<std::string> aliases_;
  bool has_key_ = false, has_name_ = false, has_aliases_ = false;
};

}  // namespace

std::vector<NamedFile> ReadEntryNames(std::string_view prefix) {
  std::vector<NamedFile> out;
  for (const EmbeddedFile& f : Files(prefix)) {
    if (!f.path.ends_with(".json")) continue;
    NamedFile named;
    named.file = f;
    named.origin = fmt::format("zoo/{}", f.path);
    NamesReader reader(&named.names);
    nlohmann::json::sax_parse(f.bytes.begin(), f.bytes.end(), &reader,
                              nlohmann::json::input_format_t::json,
                              /*strict=*/false);
    if (named.names.key.empty()) named.names = {};
    out.push_back(std::move(named));
  }
  std::sort(out.begin(), out.end(), [](const NamedFile& a, const NamedFile& b) {
    return a.names.key < b.names.key;
  });
  return out;
}

std::vector<engine::EntryNames> NamesOf(const std::vector<NamedFile>& files) {
  std::vector<engine::EntryNames> names;
  names.reserve(files.size());
  for (const NamedFile& f : files) names.push_back(f.names);
  return names;
}

}  // namespace ridgeline::zoo
