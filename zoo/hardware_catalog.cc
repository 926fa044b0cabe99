#include "zoo/hardware_catalog.h"

#include <utility>

#include "zoo/entry_catalog.h"

namespace ridgeline::zoo {

absl::StatusOr<std::vector<engine::Hardware>> HardwareCatalog() {
  return LoadEntryCatalog<engine::Hardware>(kHardwarePrefix,
                                            engine::ParseHardwareJson);
}

HardwareLookup::HardwareLookup() : zoo_(ReadEntryNames(kHardwarePrefix)) {}

void HardwareLookup::Override(engine::Hardware hw) {
  override_ = std::move(hw);
}

absl::StatusOr<engine::Hardware> HardwareLookup::Find(
    std::string_view name) const {
  std::vector<engine::EntryNames> names;
  std::vector<const NamedFile*> files;
  for (const NamedFile& f : zoo_) {
    if (override_ && f.names.key == override_->key) continue;
    names.push_back(f.names);
    files.push_back(&f);
  }
  if (override_) {
    names.push_back({override_->key, override_->name, override_->aliases});
  }
  absl::StatusOr<size_t> i = engine::MatchHardwareName(names, name);
  if (!i.ok()) return i.status();
  if (*i == files.size()) return *override_;
  return engine::ParseHardwareJson(files[*i]->file.bytes, files[*i]->origin);
}

absl::StatusOr<std::vector<engine::Hardware>> HardwareLookup::All() const {
  absl::StatusOr<std::vector<engine::Hardware>> all = HardwareCatalog();
  if (!all.ok() || !override_) return all;
  std::erase_if(
      *all, [&](const engine::Hardware& h) { return h.key == override_->key; });
  all->push_back(*override_);
  return all;
}

}  // namespace ridgeline::zoo
