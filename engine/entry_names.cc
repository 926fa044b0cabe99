#include "engine/entry_names.h"

#include <algorithm>
#include <cctype>

#include "absl/status/status.h"
#include "engine/json_fields.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

// Lower case with everything but letters and digits removed, so that
// "H100_SXM", "h100 sxm" and "h100-sxm" compare equal.
std::string Squash(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<size_t> MatchHardwareName(const std::vector<EntryNames>& entries,
                                         std::string_view query) {
  const std::string lower = LowerAscii(query);
  for (size_t i = 0; i < entries.size(); ++i) {
    const EntryNames& e = entries[i];
    if (e.key == lower || LowerAscii(e.name) == lower) return i;
    for (const std::string& a : e.aliases) {
      if (a == lower) return i;
    }
  }
  // Second chance: ignore punctuation and spaces ("H100 SXM" = "h100-sxm").
  const std::string squashed = Squash(query);
  size_t found = 0;
  int matches = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const EntryNames& e = entries[i];
    bool match = Squash(e.key) == squashed || Squash(e.name) == squashed;
    for (const std::string& a : e.aliases) match |= Squash(a) == squashed;
    if (match) {
      found = i;
      ++matches;
    }
  }
  if (matches == 1 && !squashed.empty()) return found;

  std::string known;
  for (const EntryNames& e : entries) {
    if (!known.empty()) known += ", ";
    known += e.key;
    if (!e.aliases.empty()) {
      known += " (";
      for (size_t i = 0; i < e.aliases.size(); ++i) {
        if (i > 0) known += ", ";
        known += e.aliases[i];
      }
      known += ")";
    }
  }
  return absl::NotFoundError(
      fmt::format("unknown hardware '{}'; known (key (aliases)): {}", query,
                  known.empty() ? "none" : known));
}

absl::StatusOr<size_t> MatchRuntimeName(const std::vector<EntryNames>& entries,
                                        std::string_view query) {
  const std::string lower = LowerAscii(query);
  for (size_t i = 0; i < entries.size(); ++i) {
    const EntryNames& e = entries[i];
    if (e.key == lower || std::find(e.aliases.begin(), e.aliases.end(),
                                    lower) != e.aliases.end()) {
      return i;
    }
  }
  std::string known;
  for (const EntryNames& e : entries) {
    if (!known.empty()) known += ", ";
    known += e.key;
  }
  return absl::NotFoundError(
      fmt::format("unknown runtime '{}' (known: {}; or a profile FILE.json)",
                  query, known.empty() ? "none" : known));
}

}  // namespace ridgeline::engine
