// RegistryState: the registry's state in memory — subjects and their
// versions, schemas by id, compatibility levels and modes — as a pure
// function of the records of `_schemas` (or of the view they were
// materialized into): applying the same records in the same order gives
// the same state, on any broker.
//
//   RegistryState s;
//   s.apply(SchemaKey{"orders", 1}, encode_schema(v));   // a record
//   s.apply(SchemaKey{"orders", 1}, std::nullopt);       // its tombstone
//   const SchemaValue* latest = s.latest("orders", /*deleted=*/false);
//
// Thread-safety: none; its owner's thread.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "registry/schema_records.h"

namespace strata::registry {

class RegistryState {
 public:
  // One record: a put of `value` (JSON, as written) or, without it, a removal.
  Status apply(const RecordKey& key, std::optional<std::string_view> value);

  // Subjects with at least one version (soft-deleted ones too with `deleted`).
  std::vector<std::string> subjects(bool deleted) const;
  // A subject's versions, oldest first (nullptr: no such subject).
  const std::map<int32_t, SchemaValue>* versions(const std::string& subject) const;
  // Whether the subject has versions and every one is soft-deleted.
  bool soft_deleted(const std::string& subject) const;
  const SchemaValue* version(const std::string& subject, int32_t version) const;
  // The highest version (live only unless `deleted`), or nullptr.
  const SchemaValue* latest(const std::string& subject, bool deleted) const;

  // The schema that has id `id` (any version holding it), or nullptr.
  const SchemaValue* by_id(int32_t id) const;
  // Every (subject, version) that holds id `id`.
  std::vector<std::pair<std::string, int32_t>> holders(int32_t id) const;
  // The id given to this schema (type, canonical text and references), if any.
  std::optional<int32_t> id_of(SchemaType type, const std::string& schema,
                               const std::vector<SchemaReference>& refs) const;
  // The ids of the schemas that reference (subject, version).
  std::vector<int32_t> referenced_by(const std::string& subject, int32_t version) const;
  // The id the next new schema gets: above every id ever given out.
  int32_t next_id() const;

  std::optional<CompatibilityLevel> config(const std::optional<std::string>& subject) const;
  std::optional<Mode> mode(const std::optional<std::string>& subject) const;

 private:
  static std::string identity(SchemaType type, const std::string& schema,
                              const std::vector<SchemaReference>& refs);
  void put_schema(SchemaValue v);
  void remove_schema(const std::string& subject, int32_t version);

  std::map<std::string, std::map<int32_t, SchemaValue>> subjects_;
  std::map<int32_t, std::set<std::pair<std::string, int32_t>>> holders_;
  std::map<std::string, std::set<int32_t>> ids_;  // identity -> its ids (one, but for imports)
  int32_t max_id_ = 0;                            // the highest id seen in a record
  int32_t id_floor_ = 1;
  std::optional<CompatibilityLevel> global_config_;
  std::map<std::string, CompatibilityLevel> configs_;
  std::optional<Mode> global_mode_;
  std::map<std::string, Mode> modes_;
};

}  // namespace strata::registry
