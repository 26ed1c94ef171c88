#include "registry/registry.h"

#include <charconv>
#include <limits>
#include <set>

#include <fmt/format.h>

namespace strata::registry {
namespace {

using nlohmann::json;
using Outcome = std::variant<Reply, std::pair<std::vector<WriteRecord>, Reply>>;

constexpr CompatibilityLevel kDefaultLevel = CompatibilityLevel::kBackward;

Reply subject_not_found(const std::string& subject) {
  return error_reply(error::kSubjectNotFound, fmt::format("Subject '{}' not found.", subject));
}

Reply version_not_found(const std::string& subject, int32_t version) {
  return error_reply(error::kVersionNotFound,
                     fmt::format("Version {} not found for subject '{}'.", version, subject));
}

Reply invalid_schema(const std::string& why) {
  return error_reply(error::kInvalidSchema, why);
}

// A version in a path: a number in [1, 2^31-1], "latest" or -1 (latest).
// nullopt when it is neither; 0 for latest.
std::optional<int32_t> parse_version(const std::string& s) {
  if (s == "latest") return 0;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  if (v == -1) return 0;
  if (v < 1 || v > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return static_cast<int32_t>(v);
}

Reply invalid_version(const std::string& s) {
  return error_reply(error::kInvalidVersion,
                     fmt::format("The specified version '{}' is not a valid version id. Allowed "
                                 "values are between [1, 2^31-1] and the string \"latest\"",
                                 s));
}

std::optional<int32_t> parse_id(const std::string& s) {
  int32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1) return std::nullopt;
  return v;
}

Reply schema_not_found(const std::string& id) {
  return error_reply(error::kSchemaNotFound, fmt::format("Schema {} not found", id));
}

json references_json(const std::vector<SchemaReference>& refs) {
  json out = json::array();
  for (const auto& r : refs)
    out.push_back({{"name", r.name}, {"subject", r.subject}, {"version", r.version}});
  return out;
}

// schemaType and references, as Confluent adds them: only when not the default.
void add_type_and_references(json& j, const SchemaValue& v) {
  if (v.type != SchemaType::kAvro) j["schemaType"] = schema_type_name(v.type);
  if (!v.references.empty()) j["references"] = references_json(v.references);
}

bool read_only(Mode m) {
  return m == Mode::kReadOnly || m == Mode::kReadOnlyOverride;
}

std::string levels_list() {
  return "NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL, "
         "FULL_TRANSITIVE";
}

}  // namespace

json version_json(const SchemaValue& v) {
  json j = {{"subject", v.subject}, {"version", v.version}, {"id", v.id}, {"schema", v.schema}};
  add_type_and_references(j, v);
  return j;
}

struct Registry::Candidate {
  SchemaType type = SchemaType::kAvro;
  std::vector<SchemaReference> references;
  std::optional<int32_t> id;
  std::optional<int32_t> version;
  SchemaText text;        // the schema as sent, with its references' texts
  std::string canonical;  // what is stored and compared
};

Registry::Registry(Writer writer, std::function<void()> on_failure)
    : writer_(std::move(writer)), on_failure_(std::move(on_failure)) {
  formats_[0] = make_format(SchemaType::kAvro);
  formats_[1] = make_format(SchemaType::kProtobuf);
  formats_[2] = make_format(SchemaType::kJson);
}

const SchemaFormat& Registry::format(SchemaType type) const {
  switch (type) {
    case SchemaType::kAvro: return *formats_[0];
    case SchemaType::kProtobuf: return *formats_[1];
    case SchemaType::kJson: return *formats_[2];
  }
  return *formats_[0];
}

CompatibilityLevel Registry::level_of(const std::string& subject) const {
  if (auto l = state_.config(subject)) return *l;
  return state_.config(std::nullopt).value_or(kDefaultLevel);
}

Mode Registry::mode_of(const std::string& subject) const {
  if (auto m = state_.mode(subject)) return *m;
  return state_.mode(std::nullopt).value_or(Mode::kReadWrite);
}

// ---- changes, one at a time ----

Registry::~Registry() {
  *alive_ = false;
  fail_queued();
}

Reply Registry::shutting_down() {
  return error_reply(error::kNotReady,
                     "The schema registry moved or is stopping (the _schemas partition is no "
                     "longer served here); retry");
}

void Registry::fail_queued() {
  auto queued = std::move(changes_);
  changes_.clear();
  for (auto& [decide, done] : queued)
    done(shutting_down());
}

void Registry::change(Change decide, Done done) {
  if (failed_) return done(shutting_down());
  changes_.emplace_back(std::move(decide), std::move(done));
  if (!writing_) run_next();
}

void Registry::run_next() {
  while (!changes_.empty() && !writing_) {
    auto [decide, done] = std::move(changes_.front());
    changes_.pop_front();
    auto outcome = decide();
    if (auto* reply = std::get_if<Reply>(&outcome)) {
      done(std::move(*reply));
      continue;
    }
    auto [records, reply] = std::move(std::get<1>(outcome));
    writing_ = true;
    auto copy = records;
    writer_(std::move(copy), [this, alive = alive_, records = std::move(records),
                              reply = std::move(reply), done = std::move(done)](Status st) mutable {
      if (!*alive) return done(shutting_down());
      writing_ = false;
      if (!st) {
        // The batch may still be in the log (an acks=all wait that failed
        // leaves it there) and commit later: deciding anything more on
        // this state could give its id or version out twice. The registry
        // stops here; its owner reloads it from the log.
        failed_ = true;
        done(error_reply(error::kStoreError,
                         "Error while writing to the _schemas topic: " + st.error().to_string()));
        fail_queued();
        if (on_failure_) on_failure_();
        return;
      } else {
        Status applied = ok_status();
        for (const auto& r : records) {
          if (!applied) break;
          applied = state_.apply(
              r.key, r.value ? std::optional<std::string_view>(*r.value) : std::nullopt);
        }
        done(applied ? std::move(reply)
                     : error_reply(error::kStoreError, applied.error().to_string()));
      }
      run_next();
    });
  }
}

// ---- parsing a schema from a request body ----

Result<Registry::Candidate> Registry::parse_candidate(const json& body) const {
  if (!body.is_object()) return Error(Errc::kInvalidArgument, "the body is not a JSON object");
  auto schema = body.find("schema");
  if (schema == body.end() || !schema->is_string()) {
    return Error(Errc::kInvalidArgument, "Empty schema: the body has no \"schema\" string");
  }
  Candidate c;
  if (auto t = body.find("schemaType"); t != body.end() && !t->is_null()) {
    auto type = t->is_string() ? parse_schema_type(t->get<std::string>()) : std::nullopt;
    if (!type) {
      // Named only when a short string: the value may be anything a client sent.
      std::string named = t->is_string() && t->get<std::string>().size() <= 64
                              ? " \"" + t->get<std::string>() + "\""
                              : "";
      return Error(Errc::kInvalidArgument,
                   "Unknown schemaType" + named + ": one of AVRO, PROTOBUF, JSON");
    }
    c.type = *type;
  }
  if (auto refs = body.find("references"); refs != body.end() && !refs->is_null()) {
    if (!refs->is_array()) return Error(Errc::kInvalidArgument, "references is not an array");
    for (const auto& r : *refs) {
      if (!r.is_object() || !r.contains("name") || !r["name"].is_string() ||
          !r.contains("subject") || !r["subject"].is_string() || !r.contains("version") ||
          !r["version"].is_number_integer()) {
        return Error(Errc::kInvalidArgument,
                     "a reference needs a string name, a string subject and an integer version");
      }
      c.references.push_back({r["name"].get<std::string>(), r["subject"].get<std::string>(),
                              r["version"].get<int32_t>()});
    }
  }
  for (const char* field : {"id", "version"}) {
    if (auto f = body.find(field); f != body.end() && !f->is_null()) {
      // Below the largest int32: the next id or version must exist too.
      if (!f->is_number_integer() || f->get<int64_t>() < 1 ||
          f->get<int64_t>() >= std::numeric_limits<int32_t>::max()) {
        return Error(Errc::kInvalidArgument, std::string(field) + " must be a positive integer");
      }
      (std::string_view(field) == "id" ? c.id : c.version) = f->get<int32_t>();
    }
  }
  STRATA_ASSIGN_OR_RETURN(c.text, resolve(schema->get<std::string>(), c.references));
  STRATA_ASSIGN_OR_RETURN(c.canonical, format(c.type).canonical(c.text));
  return c;
}

Result<SchemaText> Registry::resolve(const std::string& schema,
                                     const std::vector<SchemaReference>& refs) const {
  SchemaText text{schema, {}};
  std::set<std::string> seen;
  // Depth first, so a reference's own references come before it.
  std::function<Status(const std::vector<SchemaReference>&)> add =
      [&](const std::vector<SchemaReference>& rs) -> Status {
    for (const auto& r : rs) {
      if (!seen.insert(r.name).second) continue;
      const SchemaValue* v =
          r.version == -1 ? state_.latest(r.subject, false) : state_.version(r.subject, r.version);
      if (v == nullptr) {
        return Error(Errc::kInvalidArgument,
                     fmt::format("Invalid schema: reference '{}' names subject '{}' version {}, "
                                 "which does not exist",
                                 r.name, r.subject, r.version));
      }
      STRATA_TRY(add(v->references));
      text.references.emplace_back(r.name, v->schema);
    }
    return ok_status();
  };
  STRATA_TRY(add(refs));
  return text;
}

// ---- subjects and versions ----

Reply Registry::subjects(bool deleted, const std::string& prefix) const {
  json out = json::array();
  for (const auto& s : state_.subjects(deleted))
    if (s.starts_with(prefix)) out.push_back(s);
  return json_reply(out);
}

Reply Registry::versions(const std::string& subject, bool deleted) const {
  const auto* vs = state_.versions(subject);
  if (vs == nullptr || (!deleted && state_.soft_deleted(subject))) {
    return subject_not_found(subject);
  }
  json out = json::array();
  for (const auto& [v, value] : *vs)
    if (deleted || !value.deleted) out.push_back(v);
  return json_reply(out);
}

std::variant<Reply, const SchemaValue*> Registry::find_version(const std::string& subject,
                                                               const std::string& version,
                                                               bool deleted) const {
  auto v = parse_version(version);
  if (!v) return invalid_version(version);
  if (state_.versions(subject) == nullptr || (!deleted && state_.soft_deleted(subject))) {
    return subject_not_found(subject);
  }
  const SchemaValue* found =
      *v == 0 ? state_.latest(subject, deleted) : state_.version(subject, *v);
  if (found == nullptr || (found->deleted && !deleted)) {
    return version_not_found(subject, *v == 0 ? -1 : *v);
  }
  return found;
}

Reply Registry::get_version(const std::string& subject, const std::string& version, bool deleted,
                            bool raw) const {
  auto found = find_version(subject, version, deleted);
  if (auto* r = std::get_if<Reply>(&found)) return *r;
  const SchemaValue& v = *std::get<const SchemaValue*>(found);
  if (raw) return {200, v.schema, false};
  return json_reply(version_json(v));
}

Reply Registry::referenced_by(const std::string& subject, const std::string& version) const {
  auto found = find_version(subject, version, true);
  if (auto* r = std::get_if<Reply>(&found)) return *r;
  const SchemaValue& v = *std::get<const SchemaValue*>(found);
  return json_reply(state_.referenced_by(v.subject, v.version));
}

Reply Registry::lookup(const std::string& subject, const json& body, bool deleted) const {
  auto c = parse_candidate(body);
  if (!c) return invalid_schema(c.error().message());
  const auto* vs = state_.versions(subject);
  if (vs == nullptr || (!deleted && state_.soft_deleted(subject))) {
    return subject_not_found(subject);
  }
  for (const auto& [v, value] : *vs) {
    if (value.deleted && !deleted) continue;
    if (value.type == c->type && value.schema == c->canonical &&
        value.references == c->references) {
      return json_reply(version_json(value));
    }
  }
  return error_reply(error::kSchemaNotFound, "Schema not found");
}

void Registry::register_schema(const std::string& subject, const json& body, Done done) {
  change([this, subject, body] { return decide_register(subject, body); }, std::move(done));
}

Outcome Registry::decide_register(const std::string& subject, const json& body) {
  if (subject.empty() || subject.find('\0') != std::string::npos) {
    return error_reply(error::kInvalidSchema, "Invalid subject name");
  }
  Mode mode = mode_of(subject);
  if (read_only(mode)) {
    return error_reply(error::kOperationNotPermitted,
                       fmt::format("Subject '{}' is in read-only mode", subject));
  }
  auto c = parse_candidate(body);
  if (!c) return invalid_schema(c.error().message());
  if ((c->id || c->version) && mode != Mode::kImport) {
    return error_reply(error::kOperationNotPermitted,
                       fmt::format("Subject '{}' is not in import mode: a registration may not "
                                   "choose its id or version",
                                   subject));
  }
  // Registered already: the same id, nothing written.
  std::vector<SchemaText> earlier;
  if (const auto* vs = state_.versions(subject)) {
    for (const auto& [v, value] : *vs) {
      if (value.deleted) continue;
      if (value.type == c->type && value.schema == c->canonical &&
          value.references == c->references && (!c->id || *c->id == value.id)) {
        return json_reply({{"id", value.id}});
      }
      auto text = resolve(value.schema, value.references);
      if (!text) return error_reply(error::kStoreError, text.error().message());
      if (value.type == c->type) earlier.push_back(std::move(*text));
    }
    // A subject changes schema type only where nothing checks compatibility.
    const SchemaValue* last = state_.latest(subject, false);
    if (last != nullptr && last->type != c->type &&
        level_of(subject) != CompatibilityLevel::kNone) {
      return error_reply(
          error::kIncompatibleSchema,
          fmt::format("Schema being registered is incompatible with an earlier "
                      "schema for subject \"{}\": its type {} is not the latest "
                      "version's {}",
                      subject, schema_type_name(c->type), schema_type_name(last->type)));
    }
  }
  if (mode != Mode::kImport) {
    auto why = incompatibilities(format(c->type), level_of(subject), c->text, earlier);
    if (!why) return invalid_schema(why.error().message());
    if (!why->empty()) {
      return error_reply(
          error::kIncompatibleSchema,
          fmt::format("Schema being registered is incompatible with an earlier schema for "
                      "subject \"{}\", details: [{}]",
                      subject, fmt::join(*why, "; ")));
    }
  }
  auto existing = state_.id_of(c->type, c->canonical, c->references);
  int32_t id = existing.value_or(state_.next_id());
  if (c->id) {
    const SchemaValue* holder = state_.by_id(*c->id);
    if (holder != nullptr && (holder->type != c->type || holder->schema != c->canonical ||
                              holder->references != c->references)) {
      return error_reply(error::kOperationNotPermitted,
                         fmt::format("Overwrite new schema with id {} is not permitted.", *c->id));
    }
    id = *c->id;
  }
  const SchemaValue* last = state_.latest(subject, true);
  int32_t version = last == nullptr ? 1 : last->version + 1;
  if (c->version) {
    if (state_.version(subject, *c->version) != nullptr) {
      return error_reply(error::kOperationNotPermitted,
                         fmt::format("Version {} of subject '{}' exists", *c->version, subject));
    }
    version = *c->version;
  }
  SchemaValue v{subject, version, id, c->type, c->canonical, c->references, false};
  std::vector<WriteRecord> records;
  if (c->id && *c->id >= state_.next_id()) {
    records.push_back({IdFloorKey{}, encode_id_floor(*c->id + 1)});
  }
  records.push_back({SchemaKey{subject, version}, encode_schema(v)});
  return std::make_pair(std::move(records), json_reply({{"id", id}}));
}

void Registry::delete_version(const std::string& subject, const std::string& version,
                              bool permanent, Done done) {
  change(
      [this, subject, version, permanent]() -> Outcome {
        if (read_only(mode_of(subject))) {
          return error_reply(error::kOperationNotPermitted,
                             fmt::format("Subject '{}' is in read-only mode", subject));
        }
        auto found = find_version(subject, version, /*deleted=*/permanent);
        if (auto* r = std::get_if<Reply>(&found)) return *r;
        SchemaValue v = *std::get<const SchemaValue*>(found);
        if (!permanent && v.deleted) {
          return error_reply(error::kVersionSoftDeleted,
                             fmt::format("Version {} of subject '{}' was soft deleted. Set "
                                         "permanent=true to delete it permanently",
                                         v.version, subject));
        }
        if (permanent && !v.deleted) {
          return error_reply(error::kVersionNotSoftDeleted,
                             fmt::format("Version {} of subject '{}' was not deleted first "
                                         "before being permanently deleted",
                                         v.version, subject));
        }
        if (auto users = state_.referenced_by(subject, v.version); !users.empty()) {
          return error_reply(error::kReferenceExists,
                             fmt::format("One or more references exist to the schema {{subject={}, "
                                         "version={}}}: ids [{}]",
                                         subject, v.version, fmt::join(users, ", ")));
        }
        std::vector<WriteRecord> records;
        if (permanent) {
          records.push_back({IdFloorKey{}, encode_id_floor(state_.next_id())});
          records.push_back({SchemaKey{subject, v.version}, std::nullopt});
        } else {
          v.deleted = true;
          records.push_back({SchemaKey{subject, v.version}, encode_schema(v)});
        }
        return std::make_pair(std::move(records), json_reply(v.version));
      },
      std::move(done));
}

void Registry::delete_subject(const std::string& subject, bool permanent, Done done) {
  change(
      [this, subject, permanent]() -> Outcome {
        if (read_only(mode_of(subject))) {
          return error_reply(error::kOperationNotPermitted,
                             fmt::format("Subject '{}' is in read-only mode", subject));
        }
        const auto* vs = state_.versions(subject);
        if (vs == nullptr) return subject_not_found(subject);
        bool soft = state_.soft_deleted(subject);
        if (!permanent && soft) {
          return error_reply(error::kSubjectSoftDeleted,
                             fmt::format("Subject '{}' was soft deleted. Set permanent=true to "
                                         "delete permanently",
                                         subject));
        }
        if (permanent && !soft) {
          return error_reply(error::kSubjectNotSoftDeleted,
                             fmt::format("Subject '{}' was not deleted first before being "
                                         "permanently deleted",
                                         subject));
        }
        std::vector<WriteRecord> records;
        json deleted = json::array();
        if (permanent) records.push_back({IdFloorKey{}, encode_id_floor(state_.next_id())});
        for (const auto& [version, value] : *vs) {
          for (int32_t id : state_.referenced_by(subject, version)) {
            // A reference from the subject itself goes with it; one held
            // by any other subject would be left dangling.
            bool elsewhere = false;
            for (const auto& [s, v] : state_.holders(id))
              elsewhere = elsewhere || s != subject;
            if (elsewhere) {
              return error_reply(error::kReferenceExists,
                                 fmt::format("One or more references exist to the schema "
                                             "{{subject={}, version={}}}: id {}",
                                             subject, version, id));
            }
          }
          if (permanent) {
            records.push_back({SchemaKey{subject, version}, std::nullopt});
            deleted.push_back(version);
          } else if (!value.deleted) {
            SchemaValue v = value;
            v.deleted = true;
            records.push_back({SchemaKey{subject, version}, encode_schema(v)});
            deleted.push_back(version);
          }
        }
        if (permanent) {
          if (state_.config(subject)) records.push_back({ConfigKey{subject}, std::nullopt});
          if (state_.mode(subject)) records.push_back({ModeKey{subject}, std::nullopt});
        }
        return std::make_pair(std::move(records), json_reply(deleted));
      },
      std::move(done));
}

// ---- schemas by id ----

Reply Registry::schema_by_id(const std::string& id, bool raw) const {
  auto n = parse_id(id);
  const SchemaValue* v = n ? state_.by_id(*n) : nullptr;
  if (v == nullptr) return schema_not_found(id);
  if (raw) return {200, v->schema, false};
  json j = {{"schema", v->schema}};
  add_type_and_references(j, *v);
  return json_reply(j);
}

Reply Registry::id_versions(const std::string& id, bool deleted) const {
  auto n = parse_id(id);
  if (!n || state_.by_id(*n) == nullptr) return schema_not_found(id);
  json out = json::array();
  for (const auto& [subject, version] : state_.holders(*n)) {
    const auto* v = state_.version(subject, version);
    if (deleted || !v->deleted) out.push_back({{"subject", subject}, {"version", version}});
  }
  return json_reply(out);
}

Reply Registry::id_subjects(const std::string& id, bool deleted) const {
  auto n = parse_id(id);
  if (!n || state_.by_id(*n) == nullptr) return schema_not_found(id);
  std::set<std::string> subjects;
  for (const auto& [subject, version] : state_.holders(*n))
    if (deleted || !state_.version(subject, version)->deleted) subjects.insert(subject);
  return json_reply(json(std::vector<std::string>(subjects.begin(), subjects.end())));
}

Reply Registry::schema_types() {
  return json_reply(json::array({"JSON", "PROTOBUF", "AVRO"}));
}

// ---- compatibility levels and modes ----

Reply Registry::get_config(const std::optional<std::string>& subject,
                           bool default_to_global) const {
  auto level = state_.config(subject);
  if (!level && subject && !default_to_global) {
    return error_reply(error::kSubjectLevelConfigNotSet,
                       fmt::format("Subject '{}' does not have subject-level compatibility "
                                   "configured",
                                   *subject));
  }
  if (!level) level = state_.config(std::nullopt).value_or(kDefaultLevel);
  return json_reply({{"compatibilityLevel", compatibility_name(*level)}});
}

void Registry::put_config(const std::optional<std::string>& subject, const json& body, Done done) {
  std::optional<CompatibilityLevel> level;
  if (body.is_object() && body.contains("compatibility") && body["compatibility"].is_string()) {
    auto name = body["compatibility"].get<std::string>();
    for (auto& ch : name)
      ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    level = parse_compatibility(name);
  }
  if (!level) {
    return done(error_reply(error::kInvalidCompatibilityLevel,
                            "Invalid compatibility level. Valid values are " + levels_list()));
  }
  change(
      [subject, level = *level]() -> Outcome {
        return std::make_pair(std::vector<WriteRecord>{{ConfigKey{subject}, encode_config(level)}},
                              json_reply({{"compatibility", compatibility_name(level)}}));
      },
      std::move(done));
}

void Registry::delete_config(const std::optional<std::string>& subject, Done done) {
  change(
      [this, subject]() -> Outcome {
        if (subject && state_.versions(*subject) == nullptr && !state_.config(subject)) {
          return subject_not_found(*subject);
        }
        auto previous = state_.config(subject);
        if (!previous && subject) {
          return error_reply(error::kSubjectLevelConfigNotSet,
                             fmt::format("Subject '{}' does not have subject-level compatibility "
                                         "configured",
                                         *subject));
        }
        auto reply = json_reply(
            {{"compatibilityLevel", compatibility_name(previous.value_or(kDefaultLevel))}});
        if (!previous) return reply;
        return std::make_pair(std::vector<WriteRecord>{{ConfigKey{subject}, std::nullopt}}, reply);
      },
      std::move(done));
}

Reply Registry::get_mode(const std::optional<std::string>& subject, bool default_to_global) const {
  auto mode = state_.mode(subject);
  if (!mode && subject && !default_to_global) {
    return error_reply(
        error::kSubjectLevelModeNotSet,
        fmt::format("Subject '{}' does not have subject-level mode configured", *subject));
  }
  if (!mode) mode = state_.mode(std::nullopt).value_or(Mode::kReadWrite);
  return json_reply({{"mode", mode_name(*mode)}});
}

void Registry::put_mode(const std::optional<std::string>& subject, const json& body, bool force,
                        Done done) {
  std::optional<Mode> mode;
  if (body.is_object() && body.contains("mode") && body["mode"].is_string()) {
    mode = parse_mode(body["mode"].get<std::string>());
  }
  if (!mode) {
    return done(error_reply(error::kInvalidMode,
                            "Invalid mode. Valid values are READWRITE, READONLY, "
                            "READONLY_OVERRIDE and IMPORT"));
  }
  change(
      [this, subject, mode = *mode, force]() -> Outcome {
        // Importing chooses ids: only into an empty registry (or subject) unless forced.
        bool has_schemas =
            subject ? state_.versions(*subject) != nullptr : !state_.subjects(true).empty();
        if (mode == Mode::kImport && has_schemas && !force) {
          return error_reply(error::kOperationNotPermitted,
                             "Cannot import since found existing subjects (set force=true to "
                             "override)");
        }
        return std::make_pair(std::vector<WriteRecord>{{ModeKey{subject}, encode_mode(mode)}},
                              json_reply({{"mode", mode_name(mode)}}));
      },
      std::move(done));
}

void Registry::delete_mode(const std::optional<std::string>& subject, Done done) {
  change(
      [this, subject]() -> Outcome {
        auto previous = state_.mode(subject);
        if (!previous) {
          if (subject) {
            return error_reply(error::kSubjectLevelModeNotSet,
                               fmt::format("Subject '{}' does not have subject-level mode "
                                           "configured",
                                           *subject));
          }
          return json_reply({{"mode", mode_name(Mode::kReadWrite)}});
        }
        return std::make_pair(std::vector<WriteRecord>{{ModeKey{subject}, std::nullopt}},
                              json_reply({{"mode", mode_name(*previous)}}));
      },
      std::move(done));
}

Reply Registry::check_compatibility(const std::string& subject,
                                    const std::optional<std::string>& version, const json& body,
                                    bool verbose) const {
  std::optional<int32_t> wanted;
  if (version) {
    wanted = parse_version(*version);
    if (!wanted) return invalid_version(*version);
  }
  auto c = parse_candidate(body);
  if (!c) return invalid_schema(c.error().message());
  const auto* vs = state_.versions(subject);
  bool live = vs != nullptr && !state_.soft_deleted(subject);
  if (!live) {
    // Nothing to be incompatible with, unless a given version was asked for.
    if (wanted && *wanted != 0) return subject_not_found(subject);
    return json_reply({{"is_compatible", true}});
  }
  CompatibilityLevel level = level_of(subject);
  std::vector<SchemaText> earlier;
  auto add = [&](const SchemaValue& v) -> std::optional<Reply> {
    if (v.type != c->type) return std::nullopt;
    auto text = resolve(v.schema, v.references);
    if (!text) return error_reply(error::kStoreError, text.error().message());
    earlier.push_back(std::move(*text));
    return std::nullopt;
  };
  if (wanted && *wanted != 0) {
    const SchemaValue* v = state_.version(subject, *wanted);
    if (v == nullptr || v->deleted) return version_not_found(subject, *wanted);
    if (auto r = add(*v)) return *r;
    // One given version: the level's direction, against it alone.
    if (level == CompatibilityLevel::kBackwardTransitive) level = CompatibilityLevel::kBackward;
    if (level == CompatibilityLevel::kForwardTransitive) level = CompatibilityLevel::kForward;
    if (level == CompatibilityLevel::kFullTransitive) level = CompatibilityLevel::kFull;
  } else {
    for (const auto& [n, v] : *vs) {
      if (v.deleted) continue;
      if (auto r = add(v)) return *r;
    }
  }
  auto why = incompatibilities(format(c->type), level, c->text, earlier);
  if (!why) return invalid_schema(why.error().message());
  json out = {{"is_compatible", why->empty()}};
  if (verbose) out["messages"] = *why;
  return json_reply(out);
}

}  // namespace strata::registry
