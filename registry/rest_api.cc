#include "registry/rest_api.h"

#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace strata::registry {
namespace {

using nlohmann::json;

// A percent-encoded path segment or query value, decoded; nullopt if the
// encoding is broken.
int hex_digit(char h) {
  if (h >= '0' && h <= '9') return h - '0';
  if (h >= 'a' && h <= 'f') return h - 'a' + 10;
  if (h >= 'A' && h <= 'F') return h - 'A' + 10;
  return -1;
}

std::optional<std::string> decode_component(std::string_view s, bool plus_is_space) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;  // fewer than two digits follow
      int hi = hex_digit(s[i + 1]);
      int lo = hex_digit(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Whether `s` is well-formed UTF-8 (subjects and parameters end up in JSON
// replies and in _schemas records, which must be).
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : 9;
    if (n == 9 || i + n >= s.size()) return false;  // not a lead byte, or cut short
    for (size_t k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    // Overlong forms and surrogates.
    if (n == 1 && c < 0xc2) return false;
    if (n == 2) {
      auto c1 = static_cast<unsigned char>(s[i + 1]);
      if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0)) return false;
    }
    if (n == 3) {
      auto c1 = static_cast<unsigned char>(s[i + 1]);
      if ((c == 0xf0 && c1 < 0x90) || c > 0xf4 || (c == 0xf4 && c1 >= 0x90)) return false;
    }
    i += n + 1;
  }
  return true;
}

struct Target {
  std::vector<std::string> path;
  std::map<std::string, std::string> query;

  bool flag(const std::string& name) const {
    auto it = query.find(name);
    return it != query.end() && (it->second == "true" || it->second.empty());
  }
  std::string get(const std::string& name) const {
    auto it = query.find(name);
    return it == query.end() ? std::string() : it->second;
  }
};

std::optional<Target> parse_target(const std::string& target) {
  Target t;
  std::string_view rest = target;
  std::string_view query;
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  while (!rest.empty()) {
    if (rest.front() == '/') {
      rest.remove_prefix(1);
      continue;
    }
    auto end = rest.find('/');
    auto seg = decode_component(rest.substr(0, end), false);
    if (!seg || !valid_utf8(*seg)) return std::nullopt;
    t.path.push_back(std::move(*seg));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  }
  while (!query.empty()) {
    auto end = query.find('&');
    auto pair = query.substr(0, end);
    auto eq = pair.find('=');
    auto name = decode_component(pair.substr(0, eq), true);
    auto value = eq == std::string_view::npos ? std::optional<std::string>("")
                                              : decode_component(pair.substr(eq + 1), true);
    if (!name || !value || !valid_utf8(*name) || !valid_utf8(*value)) return std::nullopt;
    if (!name->empty()) t.query[*name] = *value;
    query = end == std::string_view::npos ? std::string_view() : query.substr(end + 1);
  }
  return t;
}

Reply not_found(const HttpRequest& r) {
  return json_reply({{"error_code", 404}, {"message", "HTTP 404 Not Found: " + r.target}}, 404);
}

Reply method_not_allowed(const HttpRequest& r) {
  return json_reply({{"error_code", 405},
                     {"message", "HTTP 405 Method Not Allowed: " + r.method + " " + r.target}},
                    405);
}

// Bodies nest no deeper than this: nlohmann's values are freed (and
// printed) recursively, so a body of a million '[' would take the stack.
constexpr int kMaxBodyDepth = 256;

// Whether the JSON text nests arrays and objects deeper than `max` (strings
// skipped; the text need not be valid).
bool too_deep(std::string_view text, int max) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// The body as JSON, or the reply refusing it.
std::variant<json, Reply> body_json(const HttpRequest& r) {
  if (too_deep(r.body, kMaxBodyDepth)) {
    return error_reply(
        error::kInvalidSchema,
        fmt::format("Invalid JSON body: nested deeper than {} levels", kMaxBodyDepth));
  }
  json j = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Say where: parse again for the message with its position.
    std::string why = "not JSON";
    try {
      json again = json::parse(r.body);
      (void)again;
    } catch (const json::exception& e) {
      why = e.what();
    }
    return error_reply(error::kInvalidSchema, "Invalid JSON body: " + why);
  }
  return j;
}

// Runs `with` on the parsed body, or answers the parse error.
void with_body(const HttpRequest& r, const Done& done,
               const std::function<void(const json&)>& with) {
  auto b = body_json(r);
  if (auto* reply = std::get_if<Reply>(&b)) return done(std::move(*reply));
  with(std::get<json>(b));
}

void serve_subjects(Registry& reg, const HttpRequest& r, const Target& t, Done done) {
  const auto& p = t.path;
  const std::string& m = r.method;
  bool deleted = t.flag("deleted");
  if (p.size() == 1) {
    if (m != "GET") return done(method_not_allowed(r));
    return done(reg.subjects(deleted, t.get("subjectPrefix")));
  }
  const std::string& subject = p[1];
  if (p.size() == 2) {
    if (m == "POST") {
      return with_body(r, done, [&](const json& b) { done(reg.lookup(subject, b, deleted)); });
    }
    if (m == "DELETE") return reg.delete_subject(subject, t.flag("permanent"), std::move(done));
    return done(method_not_allowed(r));
  }
  if (p[2] != "versions") return done(not_found(r));
  if (p.size() == 3) {
    if (m == "GET") return done(reg.versions(subject, deleted));
    if (m == "POST") {
      return with_body(r, done,
                       [&](const json& b) { reg.register_schema(subject, b, std::move(done)); });
    }
    return done(method_not_allowed(r));
  }
  const std::string& version = p[3];
  if (p.size() == 4) {
    if (m == "GET") return done(reg.get_version(subject, version, deleted, false));
    if (m == "DELETE") {
      return reg.delete_version(subject, version, t.flag("permanent"), std::move(done));
    }
    return done(method_not_allowed(r));
  }
  if (p.size() == 5 && p[4] == "schema") {
    if (m != "GET") return done(method_not_allowed(r));
    return done(reg.get_version(subject, version, deleted, true));
  }
  if (p.size() == 5 && p[4] == "referencedby") {
    if (m != "GET") return done(method_not_allowed(r));
    return done(reg.referenced_by(subject, version));
  }
  done(not_found(r));
}

void serve_schemas(Registry& reg, const HttpRequest& r, const Target& t, Done done) {
  const auto& p = t.path;
  if (r.method != "GET") return done(p.size() >= 2 ? method_not_allowed(r) : not_found(r));
  if (p.size() == 2 && p[1] == "types") return done(Registry::schema_types());
  if (p.size() < 3 || p[1] != "ids" || p.size() > 4) return done(not_found(r));
  const std::string& id = p[2];
  if (p.size() == 3) return done(reg.schema_by_id(id, false));
  if (p[3] == "schema") return done(reg.schema_by_id(id, true));
  if (p[3] == "versions") return done(reg.id_versions(id, t.flag("deleted")));
  if (p[3] == "subjects") return done(reg.id_subjects(id, t.flag("deleted")));
  done(not_found(r));
}

void serve_config(Registry& reg, const HttpRequest& r, const Target& t, Done done) {
  const auto& p = t.path;
  if (p.size() > 2) return done(not_found(r));
  std::optional<std::string> subject;
  if (p.size() == 2) subject = p[1];
  bool mode = p[0] == "mode";
  const std::string& m = r.method;
  if (m == "GET") {
    bool global = t.flag("defaultToGlobal");
    return done(mode ? reg.get_mode(subject, global) : reg.get_config(subject, global));
  }
  if (m == "PUT") {
    return with_body(r, done, [&](const json& b) {
      if (mode) return reg.put_mode(subject, b, t.flag("force"), std::move(done));
      reg.put_config(subject, b, std::move(done));
    });
  }
  if (m == "DELETE") {
    if (mode) return reg.delete_mode(subject, std::move(done));
    return reg.delete_config(subject, std::move(done));
  }
  done(method_not_allowed(r));
}

void serve_compatibility(Registry& reg, const HttpRequest& r, const Target& t, Done done) {
  const auto& p = t.path;
  // compatibility/subjects/{s}/versions[/{v}]
  if (p.size() < 4 || p.size() > 5 || p[1] != "subjects" || p[3] != "versions") {
    return done(not_found(r));
  }
  if (r.method != "POST") return done(method_not_allowed(r));
  std::optional<std::string> version;
  if (p.size() == 5) version = p[4];
  with_body(r, done, [&](const json& b) {
    done(reg.check_compatibility(p[2], version, b, t.flag("verbose")));
  });
}

}  // namespace

bool is_write(const HttpRequest& request) {
  // Only what a route changes: registrations, deletions, PUT/DELETE of
  // configs and modes (an unknown path or method is answered anywhere).
  const auto& m = request.method;
  if (m != "POST" && m != "PUT" && m != "DELETE") return false;
  auto t = parse_target(request.target);
  if (!t || t->path.empty()) return false;
  const auto& root = t->path[0];
  if (root == "subjects") {
    // POST /subjects/{s} is a lookup.
    return t->path.size() >= 2 && !(m == "POST" && t->path.size() == 2);
  }
  return (root == "config" || root == "mode") && m != "POST";
}

void serve_request(Registry& registry, const HttpRequest& request, Done done) {
  auto t = parse_target(request.target);
  if (!t) {
    return done(
        json_reply({{"error_code", 400},
                    {"message", "Malformed percent-encoding, or not UTF-8, in " + request.target}},
                   400));
  }
  if (t->path.empty()) {
    if (request.method != "GET") return done(method_not_allowed(request));
    return done(json_reply(json::object()));
  }
  const std::string& root = t->path[0];
  if (root == "subjects") return serve_subjects(registry, request, *t, std::move(done));
  if (root == "schemas") return serve_schemas(registry, request, *t, std::move(done));
  if (root == "config" || root == "mode") {
    return serve_config(registry, request, *t, std::move(done));
  }
  if (root == "compatibility") return serve_compatibility(registry, request, *t, std::move(done));
  done(not_found(request));
}

}  // namespace strata::registry
