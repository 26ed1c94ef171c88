// The embedded store's file: its entries and revision as one JSON document,
// replaced atomically (write a temporary file, fsync it, rename it over the
// old one, fsync the directory).
//
//   {"format": 2, "revision": 7, "entries": [{"key": "/a", "value": "x",
//     "version": 2, "create_revision": 3, "mod_revision": 7, "lease": 0}]}
//
// Format 1 (before revisions) had only key, value and version per entry; it
// is read as if every entry was written at revision 1, and the next write
// replaces it with format 2. Format 2 keeps format 1's fields, so a broker
// of before revisions still reads it.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "base/result.h"
#include "coordinator/metadata_store.h"

namespace strata::coordinator {

struct StoreFile {
  int64_t revision = 0;
  std::map<std::string, Entry> entries;
};

// nullopt when the file does not exist; kCorruption when it is not a store
// file (the message names the file and what is wrong).
Result<std::optional<StoreFile>> read_store_file(const std::filesystem::path& path);
Status write_store_file(const std::filesystem::path& path, int64_t revision,
                        const std::map<std::string, Entry>& entries);

}  // namespace strata::coordinator
