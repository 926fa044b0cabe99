// fmt support for Abseil types. Debian's Abseil is built with its own
// absl::string_view (not std::string_view), so Status::message() needs this to
// be formatted:  fmt::print(stderr, "{}\n", status.message());
#ifndef RIDGELINE_GRAPH_FMT_ABSL_H_
#define RIDGELINE_GRAPH_FMT_ABSL_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "fmt/format.h"

template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<std::string_view> {
  template <typename FormatContext>
  auto format(absl::string_view s, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(
        std::string_view(s.data(), s.size()), ctx);
  }
};

namespace ridgeline {

// The message of a status as a std::string_view.
inline std::string_view MessageOf(const absl::Status& status) {
  return std::string_view(status.message().data(), status.message().size());
}

}  // namespace ridgeline

#endif  // RIDGELINE_GRAPH_FMT_ABSL_H_
