#include "engine/report/text.h"

#include <map>

#include "fmt/format.h"

namespace ridgeline::engine::report {
namespace {

bool IsContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Byte offset of the code point `n` code points into `text` (or its size).
size_t OffsetOf(std::string_view text, size_t n) {
  size_t i = 0;
  for (size_t seen = 0; i < text.size(); ++i) {
    if (IsContinuation(text[i])) continue;
    if (seen++ == n) return i;
  }
  return text.size();
}

// Length of the valid UTF-8 sequence starting at text[i] (2..4), or 0.
size_t Utf8Length(std::string_view text, size_t i) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  const size_t n = c >= 0xF0 && c <= 0xF4   ? 4
                   : c >= 0xE0              ? 3
                   : c >= 0xC2 && c <= 0xDF ? 2
                                            : 0;
  if (n == 0 || (c >= 0xE0 && c > 0xF4) || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if (!IsContinuation(text[i + k])) return 0;
  }
  return n;
}

}  // namespace

std::string EscapeControl(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (const size_t n = Utf8Length(text, i); n == 0) {
      // Not UTF-8 (a raw 0x9B is a one-byte CSI on 8-bit terminals).
      out += fmt::format("\\x{:02x}", c);
    } else if (n == 2 && c == 0xC2 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      // U+0080..U+009F: the C1 controls.
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n - 1;
    }
  }
  return out;
}

size_t DisplayWidth(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += IsContinuation(c) ? 0 : 1;
  return n;
}

std::string ElideMiddle(std::string_view text, size_t width) {
  const size_t have = DisplayWidth(text);
  if (width < 8 || have <= width) return std::string(text);
  // A third for the head, two thirds for the tail: exported names differ
  // most at their end (".../then_branch/MatMul_3").
  const size_t keep = width - 3;
  const size_t head = keep / 3;
  const size_t tail = keep - head;
  const size_t head_end = OffsetOf(text, head);
  const size_t tail_start = OffsetOf(text, have - tail);
  return fmt::format("{}...{}", text.substr(0, head_end),
                     text.substr(tail_start));
}

std::vector<std::string> CollapseRepeats(
    const std::vector<std::string>& lines) {
  std::vector<std::string> order;
  std::map<std::string, int> count;
  for (const std::string& line : lines) {
    if (count[line]++ == 0) order.push_back(line);
  }
  std::vector<std::string> out;
  for (const std::string& line : order) {
    const int n = count[line];
    out.push_back(n > 1 ? fmt::format("{} (x{})", line, n) : line);
  }
  return out;
}

}  // namespace ridgeline::engine::report
