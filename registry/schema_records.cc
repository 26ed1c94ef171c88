#include "registry/schema_records.h"

#include <array>

#include <nlohmann/json.hpp>

#include "registry/reply.h"

namespace strata::registry {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<Mode, std::string_view>, 4> kModes = {{
    {Mode::kReadWrite, "READWRITE"},
    {Mode::kReadOnly, "READONLY"},
    {Mode::kReadOnlyOverride, "READONLY_OVERRIDE"},
    {Mode::kImport, "IMPORT"},
}};

// View keys: 'S' subject '\0' version (4 bytes, big-endian); 'C' / 'M' then
// 'g' (global) or 's' subject; 'I' the id floor.
constexpr char kSchemaTag = 'S';
constexpr char kConfigTag = 'C';
constexpr char kModeTag = 'M';
constexpr char kIdFloorTag = 'I';

Error corrupt(std::string_view what, std::string_view detail) {
  return Error(Errc::kCorruption,
               "_schemas record: " + std::string(what) + ": " + std::string(detail));
}

Result<json> parse_object(std::string_view text, std::string_view what) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return corrupt(what, "not a JSON object");
  return j;
}

json subject_json(const std::optional<std::string>& subject) {
  return subject ? json(*subject) : json(nullptr);
}

std::optional<std::string> subject_of(const json& j) {
  auto it = j.find("subject");
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::string scoped_key(char tag, const std::optional<std::string>& subject) {
  std::string k(1, tag);
  if (subject) {
    k.push_back('s');
    k += *subject;
  } else {
    k.push_back('g');
  }
  return k;
}

Result<std::optional<std::string>> scope_of(std::string_view key) {
  if (key.size() < 2) return corrupt("view key", "too short");
  if (key[1] == 'g') return std::optional<std::string>();
  if (key[1] == 's') return std::optional<std::string>(std::string(key.substr(2)));
  return corrupt("view key", "unknown scope");
}

// A value holding one setting by name ({"mode":"READONLY"}), read back
// with `parse`.
template <typename Parse>
auto decode_named(std::string_view text, std::string_view what, const char* field, Parse parse)
    -> Result<typename decltype(parse(std::string_view()))::value_type> {
  STRATA_ASSIGN_OR_RETURN(json j, parse_object(text, what));
  auto it = j.find(field);
  if (it == j.end() || !it->is_string()) return corrupt(what, std::string("no ") + field);
  auto value = parse(it->get<std::string>());
  if (!value) return corrupt(what, "unknown " + std::string(field) + " " + dump_json(*it));
  return *value;
}

}  // namespace

std::string_view mode_name(Mode mode) {
  for (const auto& [m, name] : kModes)
    if (m == mode) return name;
  return "READWRITE";
}

std::optional<Mode> parse_mode(std::string_view name) {
  for (const auto& [m, n] : kModes)
    if (n == name) return m;
  return std::nullopt;
}

std::string encode_key(const RecordKey& key) {
  json j;
  if (const auto* s = std::get_if<SchemaKey>(&key)) {
    j = {{"keytype", "SCHEMA"}, {"subject", s->subject}, {"version", s->version}, {"magic", 1}};
  } else if (const auto* c = std::get_if<ConfigKey>(&key)) {
    j = {{"keytype", "CONFIG"}, {"subject", subject_json(c->subject)}, {"magic", 0}};
  } else if (const auto* m = std::get_if<ModeKey>(&key)) {
    j = {{"keytype", "MODE"}, {"subject", subject_json(m->subject)}, {"magic", 0}};
  } else if (std::holds_alternative<IdFloorKey>(key)) {
    j = {{"keytype", "STRATA_ID_FLOOR"}, {"magic", 0}};
  } else {
    j = {{"keytype", std::get<OtherKey>(key).keytype}, {"magic", 0}};
  }
  return dump_json(j);
}

Result<RecordKey> decode_key(std::string_view text) {
  STRATA_ASSIGN_OR_RETURN(json j, parse_object(text, "key"));
  auto type = j.find("keytype");
  if (type == j.end() || !type->is_string()) return corrupt("key", "no keytype");
  auto t = type->get<std::string>();
  if (t == "SCHEMA") {
    auto subject = subject_of(j);
    auto version = j.find("version");
    if (!subject || version == j.end() || !version->is_number_integer()) {
      return corrupt("key", "a SCHEMA key without subject and version");
    }
    return RecordKey(SchemaKey{*subject, version->get<int32_t>()});
  }
  if (t == "CONFIG") return RecordKey(ConfigKey{subject_of(j)});
  if (t == "MODE") return RecordKey(ModeKey{subject_of(j)});
  if (t == "STRATA_ID_FLOOR") return RecordKey(IdFloorKey{});
  return RecordKey(OtherKey{t});
}

std::string encode_schema(const SchemaValue& v) {
  json j = {{"subject", v.subject},
            {"version", v.version},
            {"id", v.id},
            {"schema", v.schema},
            {"deleted", v.deleted}};
  // Confluent leaves schemaType out for Avro, the type it had first.
  if (v.type != SchemaType::kAvro) j["schemaType"] = schema_type_name(v.type);
  if (!v.references.empty()) {
    json refs = json::array();
    for (const auto& r : v.references)
      refs.push_back({{"name", r.name}, {"subject", r.subject}, {"version", r.version}});
    j["references"] = std::move(refs);
  }
  return dump_json(j);
}

Result<SchemaValue> decode_schema(std::string_view text) {
  STRATA_ASSIGN_OR_RETURN(json j, parse_object(text, "schema value"));
  SchemaValue v;
  try {
    v.subject = j.at("subject").get<std::string>();
    v.version = j.at("version").get<int32_t>();
    v.id = j.at("id").get<int32_t>();
    v.schema = j.at("schema").get<std::string>();
    v.deleted = j.value("deleted", false);
    if (auto t = j.find("schemaType"); t != j.end() && t->is_string()) {
      auto type = parse_schema_type(t->get<std::string>());
      if (!type) return corrupt("schema value", "unknown schemaType " + dump_json(*t));
      v.type = *type;
    }
    if (auto refs = j.find("references"); refs != j.end() && refs->is_array()) {
      for (const auto& r : *refs) {
        v.references.push_back({r.at("name").get<std::string>(), r.at("subject").get<std::string>(),
                                r.at("version").get<int32_t>()});
      }
    }
  } catch (const json::exception& e) {
    return corrupt("schema value", e.what());
  }
  return v;
}

std::string encode_config(CompatibilityLevel level) {
  return dump_json(json{{"compatibilityLevel", compatibility_name(level)}});
}

Result<CompatibilityLevel> decode_config(std::string_view text) {
  return decode_named(text, "config value", "compatibilityLevel", parse_compatibility);
}

std::string encode_mode(Mode mode) {
  return dump_json(json{{"mode", mode_name(mode)}});
}

Result<Mode> decode_mode(std::string_view text) {
  return decode_named(text, "mode value", "mode", parse_mode);
}

std::string encode_id_floor(int32_t next_id) {
  return dump_json(json{{"next_id", next_id}});
}

Result<int32_t> decode_id_floor(std::string_view text) {
  STRATA_ASSIGN_OR_RETURN(json j, parse_object(text, "id floor value"));
  auto it = j.find("next_id");
  if (it == j.end() || !it->is_number_integer()) return corrupt("id floor value", "no next_id");
  return it->get<int32_t>();
}

std::optional<std::string> view_key(const RecordKey& key) {
  if (const auto* s = std::get_if<SchemaKey>(&key)) {
    std::string k(1, kSchemaTag);
    k += s->subject;
    k.push_back('\0');
    auto v = static_cast<uint32_t>(s->version);
    for (int shift = 24; shift >= 0; shift -= 8)
      k.push_back(static_cast<char>((v >> shift) & 0xff));
    return k;
  }
  if (const auto* c = std::get_if<ConfigKey>(&key)) return scoped_key(kConfigTag, c->subject);
  if (const auto* m = std::get_if<ModeKey>(&key)) return scoped_key(kModeTag, m->subject);
  if (std::holds_alternative<IdFloorKey>(key)) return std::string(1, kIdFloorTag);
  return std::nullopt;
}

Result<RecordKey> from_view_key(std::string_view key) {
  if (key.empty()) return corrupt("view key", "empty");
  switch (key[0]) {
    case kSchemaTag: {
      if (key.size() < 6 || key[key.size() - 5] != '\0') return corrupt("view key", "bad version");
      uint32_t v = 0;
      for (size_t i = key.size() - 4; i < key.size(); ++i)
        v = (v << 8) | static_cast<uint8_t>(key[i]);
      return RecordKey(
          SchemaKey{std::string(key.substr(1, key.size() - 6)), static_cast<int32_t>(v)});
    }
    case kConfigTag: {
      STRATA_ASSIGN_OR_RETURN(auto scope, scope_of(key));
      return RecordKey(ConfigKey{scope});
    }
    case kModeTag: {
      STRATA_ASSIGN_OR_RETURN(auto scope, scope_of(key));
      return RecordKey(ModeKey{scope});
    }
    case kIdFloorTag: return RecordKey(IdFloorKey{});
    default: return corrupt("view key", "unknown tag");
  }
}

}  // namespace strata::registry
