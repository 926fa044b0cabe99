// The names of each embedded catalog entry (hardware/*.json,
// runtimes/*.json), read from the head of the file: a lookup by name then
// parses only the entry it finds (what `--hw NAME` and `--runtime NAME`
// need), not every entry (zoo/entry_catalog.h, for --list-hw and the like).
#ifndef RIDGELINE_ZOO_ENTRY_NAMES_H_
#define RIDGELINE_ZOO_ENTRY_NAMES_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/entry_names.h"
#include "zoo/zoo.h"

namespace ridgeline::zoo {

struct NamedFile {
  engine::EntryNames names;
  EmbeddedFile file;
  std::string origin;  // "zoo/hardware/h100-sxm.json", as errors name it
};

// The top-level "key", "name" and "aliases" of every embedded *.json under
// `prefix`, sorted by key as the parsed catalogs are; key and aliases
// lower-cased as the parsers do. A file is read only until it has given all
// three (they come first in every embedded file). A file that does not
// parse, or lacks a field, gets empty names: it matches nothing here, and
// the whole catalog's load reports it.
std::vector<NamedFile> ReadEntryNames(std::string_view prefix);

// Just the names, in the same order.
std::vector<engine::EntryNames> NamesOf(const std::vector<NamedFile>& files);

}  // namespace ridgeline::zoo

#endif  // RIDGELINE_ZOO_ENTRY_NAMES_H_
