#include "registry/registry_state.h"

#include <algorithm>

namespace strata::registry {
namespace {

// A setting of the registry (a level, a mode): global without a subject;
// nullopt removes it.
template <typename T>
void set_scoped(const std::optional<std::string>& subject, std::optional<T> value,
                std::optional<T>& global, std::map<std::string, T>& per_subject) {
  if (!subject) {
    global = value;
  } else if (value) {
    per_subject[*subject] = *value;
  } else {
    per_subject.erase(*subject);
  }
}

}  // namespace

Status RegistryState::apply(const RecordKey& key, std::optional<std::string_view> value) {
  if (const auto* s = std::get_if<SchemaKey>(&key)) {
    if (!value) {
      remove_schema(s->subject, s->version);
      return ok_status();
    }
    STRATA_ASSIGN_OR_RETURN(auto v, decode_schema(*value));
    if (v.subject != s->subject || v.version != s->version) {
      return Error(Errc::kCorruption,
                   "_schemas record: the value's subject or version is not "
                   "the key's");
    }
    put_schema(std::move(v));
    return ok_status();
  }
  if (const auto* c = std::get_if<ConfigKey>(&key)) {
    std::optional<CompatibilityLevel> level;
    if (value) {
      STRATA_ASSIGN_OR_RETURN(level, decode_config(*value));
    }
    set_scoped(c->subject, level, global_config_, configs_);
    return ok_status();
  }
  if (const auto* m = std::get_if<ModeKey>(&key)) {
    std::optional<Mode> mode;
    if (value) {
      STRATA_ASSIGN_OR_RETURN(mode, decode_mode(*value));
    }
    set_scoped(m->subject, mode, global_mode_, modes_);
    return ok_status();
  }
  if (std::holds_alternative<IdFloorKey>(key) && value) {
    STRATA_ASSIGN_OR_RETURN(int32_t floor, decode_id_floor(*value));
    id_floor_ = std::max(id_floor_, floor);
  }
  return ok_status();
}

std::string RegistryState::identity(SchemaType type, const std::string& schema,
                                    const std::vector<SchemaReference>& refs) {
  std::string id(schema_type_name(type));
  id.push_back('\0');
  id += schema;
  for (const auto& r : refs) {
    id.push_back('\0');
    id += r.name + '\0' + r.subject + '\0' + std::to_string(r.version);
  }
  return id;
}

void RegistryState::put_schema(SchemaValue v) {
  remove_schema(v.subject, v.version);
  max_id_ = std::max(max_id_, v.id);
  holders_[v.id].insert({v.subject, v.version});
  ids_[identity(v.type, v.schema, v.references)].insert(v.id);
  auto subject = v.subject;
  auto version = v.version;
  subjects_[subject][version] = std::move(v);
}

void RegistryState::remove_schema(const std::string& subject, int32_t version) {
  auto s = subjects_.find(subject);
  if (s == subjects_.end()) return;
  auto v = s->second.find(version);
  if (v == s->second.end()) return;
  int32_t id = v->second.id;
  auto h = holders_.find(id);
  if (h != holders_.end()) {
    h->second.erase({subject, version});
    if (h->second.empty()) {
      holders_.erase(h);
      // Imports may have given one schema two ids: the others keep it.
      auto key = identity(v->second.type, v->second.schema, v->second.references);
      auto same = ids_.find(key);
      if (same != ids_.end()) {
        same->second.erase(id);
        if (same->second.empty()) ids_.erase(same);
      }
    }
  }
  s->second.erase(v);
  if (s->second.empty()) subjects_.erase(s);
}

std::vector<std::string> RegistryState::subjects(bool deleted) const {
  std::vector<std::string> out;
  for (const auto& [name, versions] : subjects_)
    if (deleted || !soft_deleted(name)) out.push_back(name);
  return out;
}

const std::map<int32_t, SchemaValue>* RegistryState::versions(const std::string& subject) const {
  auto it = subjects_.find(subject);
  return it == subjects_.end() ? nullptr : &it->second;
}

bool RegistryState::soft_deleted(const std::string& subject) const {
  const auto* vs = versions(subject);
  return vs != nullptr &&
         std::all_of(vs->begin(), vs->end(), [](const auto& v) { return v.second.deleted; });
}

const SchemaValue* RegistryState::version(const std::string& subject, int32_t version) const {
  const auto* vs = versions(subject);
  if (vs == nullptr) return nullptr;
  auto it = vs->find(version);
  return it == vs->end() ? nullptr : &it->second;
}

const SchemaValue* RegistryState::latest(const std::string& subject, bool deleted) const {
  const auto* vs = versions(subject);
  if (vs == nullptr) return nullptr;
  for (auto it = vs->rbegin(); it != vs->rend(); ++it)
    if (deleted || !it->second.deleted) return &it->second;
  return nullptr;
}

const SchemaValue* RegistryState::by_id(int32_t id) const {
  auto h = holders_.find(id);
  if (h == holders_.end() || h->second.empty()) return nullptr;
  const auto& [subject, v] = *h->second.begin();
  return version(subject, v);
}

std::vector<std::pair<std::string, int32_t>> RegistryState::holders(int32_t id) const {
  auto h = holders_.find(id);
  if (h == holders_.end()) return {};
  return {h->second.begin(), h->second.end()};
}

std::optional<int32_t> RegistryState::id_of(SchemaType type, const std::string& schema,
                                            const std::vector<SchemaReference>& refs) const {
  auto it = ids_.find(identity(type, schema, refs));
  if (it == ids_.end()) return std::nullopt;
  return *it->second.begin();
}

std::vector<int32_t> RegistryState::referenced_by(const std::string& subject,
                                                  int32_t version) const {
  std::set<int32_t> ids;
  for (const auto& [name, versions] : subjects_) {
    for (const auto& [v, value] : versions) {
      for (const auto& r : value.references)
        if (r.subject == subject && r.version == version) ids.insert(value.id);
    }
  }
  return {ids.begin(), ids.end()};
}

int32_t RegistryState::next_id() const {
  return std::max(max_id_ + 1, id_floor_);
}

std::optional<CompatibilityLevel> RegistryState::config(
    const std::optional<std::string>& subject) const {
  if (!subject) return global_config_;
  auto it = configs_.find(*subject);
  if (it == configs_.end()) return std::nullopt;
  return it->second;
}

std::optional<Mode> RegistryState::mode(const std::optional<std::string>& subject) const {
  if (!subject) return global_mode_;
  auto it = modes_.find(*subject);
  if (it == modes_.end()) return std::nullopt;
  return it->second;
}

}  // namespace strata::registry
