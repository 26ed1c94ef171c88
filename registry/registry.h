// Registry: the schema registry's operations — register, look up, read,
// delete, configure, check — over a RegistryState, each answered with the
// REST API's Reply. Reads answer from the state at once; every change is a
// list of `_schemas` records handed to the Writer (acks=all through the
// replica), applied to the state only once written, one change at a time,
// so ids and versions are decided against everything written before.
//
//   Registry r(writer);                  // then r.load(...) the view's records
//   r.register_schema("orders-value", body, [](Reply reply) { send(reply); });
//   Reply v = r.get_version("orders-value", "latest", false, false);
//
// Thread-safety: none; the thread (shard) that hosts `_schemas`.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "registry/compatibility.h"
#include "registry/registry_state.h"
#include "registry/reply.h"
#include "registry/schema_format.h"
#include "registry/schema_records.h"

namespace strata::registry {

// One record to write to `_schemas` (value nullopt: a tombstone).
struct WriteRecord {
  RecordKey key;
  std::optional<std::string> value;
};
using Writer = std::function<void(std::vector<WriteRecord>, std::function<void(Status)>)>;
using Done = std::function<void(Reply)>;

class Registry {
 public:
  // `on_failure`: a write failed; the registry answers 50003 from then on
  // and its owner should replace it with one loaded from the log again.
  explicit Registry(Writer writer, std::function<void()> on_failure = nullptr);
  // Changes still queued or in flight are answered 50003.
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The state as the records applied so far left it (loading, following).
  RegistryState& state() { return state_; }

  // Subjects and versions.
  Reply subjects(bool deleted, const std::string& prefix) const;
  Reply versions(const std::string& subject, bool deleted) const;
  // `raw`: the schema text alone.
  Reply get_version(const std::string& subject, const std::string& version, bool deleted,
                    bool raw) const;
  Reply referenced_by(const std::string& subject, const std::string& version) const;
  Reply lookup(const std::string& subject, const nlohmann::json& body, bool deleted) const;
  void register_schema(const std::string& subject, const nlohmann::json& body, Done done);
  void delete_version(const std::string& subject, const std::string& version, bool permanent,
                      Done done);
  void delete_subject(const std::string& subject, bool permanent, Done done);

  // Schemas by id.
  Reply schema_by_id(const std::string& id, bool raw) const;
  Reply id_versions(const std::string& id, bool deleted) const;
  Reply id_subjects(const std::string& id, bool deleted) const;
  static Reply schema_types();

  // Compatibility levels and modes; `subject` nullopt: the global one.
  Reply get_config(const std::optional<std::string>& subject, bool default_to_global) const;
  void put_config(const std::optional<std::string>& subject, const nlohmann::json& body, Done done);
  void delete_config(const std::optional<std::string>& subject, Done done);
  Reply get_mode(const std::optional<std::string>& subject, bool default_to_global) const;
  void put_mode(const std::optional<std::string>& subject, const nlohmann::json& body, bool force,
                Done done);
  void delete_mode(const std::optional<std::string>& subject, Done done);

  // Whether `body`'s schema may follow `version` of the subject ("latest",
  // a number, or nullopt: every version the level names).
  Reply check_compatibility(const std::string& subject, const std::optional<std::string>& version,
                            const nlohmann::json& body, bool verbose) const;

 private:
  struct Candidate;
  // A change: decided against the state when its turn comes, written, applied.
  using Change = std::function<std::variant<Reply, std::pair<std::vector<WriteRecord>, Reply>>()>;
  void change(Change decide, Done done);
  void run_next();
  void fail_queued();
  static Reply shutting_down();

  Result<Candidate> parse_candidate(const nlohmann::json& body) const;
  // The schema and every schema it references, transitively.
  Result<SchemaText> resolve(const std::string& schema,
                             const std::vector<SchemaReference>& refs) const;
  const SchemaFormat& format(SchemaType type) const;
  CompatibilityLevel level_of(const std::string& subject) const;
  Mode mode_of(const std::string& subject) const;
  std::variant<Reply, std::pair<std::vector<WriteRecord>, Reply>> decide_register(
      const std::string& subject, const nlohmann::json& body);
  // Replies 40401/40402/42202 where `version` does not name a version of
  // `subject` (live, unless `deleted`).
  std::variant<Reply, const SchemaValue*> find_version(const std::string& subject,
                                                       const std::string& version,
                                                       bool deleted) const;

  Writer writer_;
  std::function<void()> on_failure_;
  bool failed_ = false;
  RegistryState state_;
  std::unique_ptr<SchemaFormat> formats_[3];
  std::deque<std::pair<Change, Done>> changes_;
  bool writing_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

// The JSON of a schema version as GET /subjects/{s}/versions/{v} answers it.
nlohmann::json version_json(const SchemaValue& v);

}  // namespace strata::registry
