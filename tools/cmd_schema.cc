// strata schema list|get|register|check|config|delete: the schema registry
// through its REST API (Confluent's), at --registry (default
// http://127.0.0.1:8081, any broker's).
#include <fstream>
#include <sstream>

#include <boost/asio/io_context.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "registry/http_client.h"
#include "tools/commands.h"
#include "tools/output.h"

namespace strata::tools {
namespace {

using nlohmann::json;

struct SchemaOptions {
  std::string registry = "http://127.0.0.1:8081";
  std::string subject;
  std::string version;
  std::string file;
  std::string type;
  std::vector<std::string> references;  // name=subject:version
  std::string level;
  bool deleted = false;
  bool permanent = false;
};

// A path segment, percent-encoded (subjects may hold '/', spaces, ...).
std::string encode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// One request to the registry; the reply's JSON, or an error with the
// registry's code and message.
Result<json> call(const Globals& g, const SchemaOptions& o, const std::string& method,
                  const std::string& target, const json& body = json()) {
  std::string url = o.registry;
  if (url.starts_with("http://")) url = url.substr(7);
  while (url.ends_with("/"))
    url.pop_back();
  auto colon = url.rfind(':');
  if (colon == std::string::npos || url.find('/') != std::string::npos) {
    return Error(Errc::kInvalidArgument, "--registry must be http://host:port, not " + o.registry);
  }
  int port = 0;
  try {
    port = std::stoi(url.substr(colon + 1));
  } catch (const std::exception&) {
  }
  if (port <= 0 || port > 65535) {
    return Error(Errc::kInvalidArgument, "--registry has no valid port: " + o.registry);
  }
  // http_call resolves a host name itself.
  boost::asio::io_context io;
  std::optional<Result<registry::Reply>> reply;
  registry::http_call(
      io, url.substr(0, colon), static_cast<uint16_t>(port),
      {method, target,
       body.is_null() ? "" : body.dump(-1, ' ', false, json::error_handler_t::replace)},
      std::chrono::milliseconds(g.timeout_ms()),
      [&](Result<registry::Reply> r) { reply = std::move(r); });
  io.run();
  if (!reply) return Error(Errc::kInternal, "no reply");
  if (!*reply) {
    return Error(Errc::kIoError, fmt::format("the schema registry at {}: {}", o.registry,
                                             reply->error().message()));
  }
  auto j = json::parse((*reply)->body, nullptr, false);
  if ((*reply)->status != 200) {
    if (j.is_object() && j.contains("error_code")) {
      return Error(Errc::kIoError, fmt::format("{} ({})", j.value("message", std::string()),
                                               j["error_code"].dump()));
    }
    return Error(Errc::kIoError, fmt::format("HTTP {}: {}", (*reply)->status, (*reply)->body));
  }
  if (j.is_discarded()) return json((*reply)->body);  // a raw schema
  return j;
}

std::string subject_path(const std::string& subject) {
  return "/subjects/" + encode(subject);
}

// The schemaType a file's contents are, from --type or its extension.
Result<std::string> schema_type(const SchemaOptions& o) {
  std::string t = o.type;
  if (t.empty()) {
    if (o.file.ends_with(".proto")) {
      t = "protobuf";
    } else if (o.file.ends_with(".json")) {
      t = "json";
    } else {
      t = "avro";  // .avsc, and Confluent's default
    }
  }
  if (t == "avro") return std::string("AVRO");
  if (t == "protobuf") return std::string("PROTOBUF");
  if (t == "json") return std::string("JSON");
  return Error(Errc::kInvalidArgument, "--type must be avro, protobuf or json, not " + o.type);
}

// The request body of a schema in a file: schema, schemaType, references.
Result<json> schema_body(const SchemaOptions& o) {
  std::ifstream in(o.file, std::ios::binary);
  if (!in) return Error(Errc::kInvalidArgument, "cannot read " + o.file);
  std::stringstream text;
  text << in.rdbuf();
  STRATA_ASSIGN_OR_RETURN(auto type, schema_type(o));
  json body = {{"schema", text.str()}, {"schemaType", type}};
  json refs = json::array();
  for (const auto& r : o.references) {
    auto eq = r.find('=');
    auto colon = r.rfind(':');
    int version = 0;
    if (eq != std::string::npos && colon != std::string::npos && colon > eq) {
      try {
        version = std::stoi(r.substr(colon + 1));
      } catch (const std::exception&) {
      }
    }
    if (version == 0) {
      return Error(Errc::kInvalidArgument,
                   "--reference must be name=subject:version, not '" + r + "'");
    }
    refs.push_back({{"name", r.substr(0, eq)},
                    {"subject", r.substr(eq + 1, colon - eq - 1)},
                    {"version", version}});
  }
  if (!refs.empty()) body["references"] = refs;
  return body;
}

Status list(const Globals& g, const SchemaOptions& o) {
  STRATA_ASSIGN_OR_RETURN(json subjects,
                          call(g, o, "GET", o.deleted ? "/subjects?deleted=true" : "/subjects"));
  json rows = json::array();
  for (const auto& s : subjects) {
    auto name = s.get<std::string>();
    STRATA_ASSIGN_OR_RETURN(
        json versions,
        call(g, o, "GET", subject_path(name) + "/versions" + (o.deleted ? "?deleted=true" : "")));
    STRATA_ASSIGN_OR_RETURN(json latest, call(g, o, "GET",
                                              subject_path(name) + "/versions/latest" +
                                                  (o.deleted ? "?deleted=true" : "")));
    rows.push_back({{"subject", name},
                    {"versions", versions},
                    {"latest_version", latest["version"]},
                    {"latest_id", latest["id"]},
                    {"type", latest.value("schemaType", std::string("AVRO"))}});
  }
  if (g.json) {
    print_json(rows);
    return ok_status();
  }
  Table t({"SUBJECT", "VERSIONS", "LATEST", "ID", "TYPE"});
  for (const auto& r : rows) {
    t.add({r["subject"].get<std::string>(), std::to_string(r["versions"].size()),
           r["latest_version"].dump(), r["latest_id"].dump(), r["type"].get<std::string>()});
  }
  t.print();
  return ok_status();
}

Status get(const Globals& g, const SchemaOptions& o) {
  std::string v = o.version.empty() ? "latest" : o.version;
  STRATA_ASSIGN_OR_RETURN(json got, call(g, o, "GET",
                                         subject_path(o.subject) + "/versions/" + encode(v) +
                                             (o.deleted ? "?deleted=true" : "")));
  if (g.json) {
    print_json(got);
    return ok_status();
  }
  fmt::print("subject {} version {} id {} type {}\n", got["subject"].get<std::string>(),
             got["version"].dump(), got["id"].dump(), got.value("schemaType", std::string("AVRO")));
  for (const auto& r : got.value("references", json::array()))
    fmt::print("reference {} = {} version {}\n", r["name"].get<std::string>(),
               r["subject"].get<std::string>(), r["version"].dump());
  auto schema = got["schema"].get<std::string>();
  // JSON schemas (Avro, JSON Schema) read better indented.
  auto parsed = json::parse(schema, nullptr, false);
  fmt::print("{}\n", parsed.is_discarded() ? schema : parsed.dump(2));
  return ok_status();
}

Status register_schema(const Globals& g, const SchemaOptions& o) {
  STRATA_ASSIGN_OR_RETURN(json body, schema_body(o));
  STRATA_ASSIGN_OR_RETURN(json got,
                          call(g, o, "POST", subject_path(o.subject) + "/versions", body));
  // The version it became (a lookup: registration answers only the id).
  STRATA_ASSIGN_OR_RETURN(json found, call(g, o, "POST", subject_path(o.subject), body));
  if (g.json) {
    print_json({{"subject", o.subject}, {"id", got["id"]}, {"version", found["version"]}});
    return ok_status();
  }
  fmt::print("registered {} version {} with id {}\n", o.subject, found["version"].dump(),
             got["id"].dump());
  return ok_status();
}

Status check(const Globals& g, const SchemaOptions& o) {
  STRATA_ASSIGN_OR_RETURN(json body, schema_body(o));
  std::string v = o.version.empty() ? "latest" : o.version;
  STRATA_ASSIGN_OR_RETURN(json got, call(g, o, "POST",
                                         "/compatibility" + subject_path(o.subject) + "/versions/" +
                                             encode(v) + "?verbose=true",
                                         body));
  bool ok = got.value("is_compatible", false);
  if (g.json) {
    print_json(got);
  } else {
    fmt::print("{}\n", ok ? "compatible" : "NOT compatible");
    for (const auto& m : got.value("messages", json::array()))
      fmt::print("  {}\n", m.get<std::string>());
  }
  if (!ok) return Error(Errc::kAlreadyExists, "the schema is not compatible with " + o.subject);
  return ok_status();
}

Status config(const Globals& g, const SchemaOptions& o) {
  std::string path = o.subject.empty() ? "/config" : "/config/" + encode(o.subject);
  json got;
  if (o.level.empty()) {
    STRATA_ASSIGN_OR_RETURN(
        got, call(g, o, "GET", path + (o.subject.empty() ? "" : "?defaultToGlobal=true")));
  } else {
    std::string level = o.level;
    for (auto& c : level)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    STRATA_ASSIGN_OR_RETURN(got, call(g, o, "PUT", path, {{"compatibility", level}}));
  }
  if (g.json) {
    print_json(got);
    return ok_status();
  }
  auto level =
      got.contains("compatibilityLevel") ? got["compatibilityLevel"] : got["compatibility"];
  fmt::print("{}: {}\n", o.subject.empty() ? "global" : o.subject, level.get<std::string>());
  return ok_status();
}

Status remove(const Globals& g, const SchemaOptions& o) {
  std::string path = subject_path(o.subject);
  if (!o.version.empty()) path += "/versions/" + encode(o.version);
  STRATA_ASSIGN_OR_RETURN(json got, call(g, o, "DELETE", path));
  if (o.permanent) {
    // Confluent's rule: soft first, then permanently; do both when asked.
    STRATA_ASSIGN_OR_RETURN(got, call(g, o, "DELETE", path + "?permanent=true"));
  }
  if (g.json) {
    print_json(got);
    return ok_status();
  }
  fmt::print("deleted {} version(s) {}{}\n", o.subject, got.dump(),
             o.permanent ? " permanently" : "");
  return ok_status();
}

}  // namespace

void add_schema_commands(CLI::App& app, Globals& g, Action& action) {
  auto o = std::make_shared<SchemaOptions>();
  auto* s = app.add_subcommand("schema", "The schema registry: subjects, schemas, compatibility");
  s->require_subcommand(1);
  s->add_option("--registry", o->registry, "The registry's URL (any broker's)")
      ->capture_default_str();

  auto* l = s->add_subcommand("list", "Subjects with their versions and latest schema id");
  l->add_flag("--deleted", o->deleted, "Include soft-deleted subjects");
  l->callback([&, o] { action = [&g, o] { return list(g, *o); }; });

  auto* gt = s->add_subcommand("get", "A subject's schema (the latest, or VERSION)");
  gt->add_option("subject", o->subject, "Subject")->required();
  gt->add_option("version", o->version, "Version (a number, or latest)");
  gt->add_flag("--deleted", o->deleted, "Also a soft-deleted version");
  gt->callback([&, o] { action = [&g, o] { return get(g, *o); }; });

  auto add_file = [o](CLI::App* c) {
    c->add_option("subject", o->subject, "Subject")->required();
    c->add_option("file", o->file, "Schema file (.avsc, .proto, .json)")
        ->required()
        ->check(CLI::ExistingFile);
    c->add_option("--type", o->type, "avro, protobuf or json (default: from the extension)")
        ->check(CLI::IsMember({"avro", "protobuf", "json"}));
    c->add_option("--reference", o->references,
                  "A referenced schema: name=subject:version (repeatable)");
  };
  auto* r = s->add_subcommand("register", "Register FILE's schema under SUBJECT");
  add_file(r);
  r->callback([&, o] { action = [&g, o] { return register_schema(g, *o); }; });

  auto* c = s->add_subcommand("check", "Whether FILE's schema may follow SUBJECT's versions");
  add_file(c);
  c->add_option("--version", o->version, "Against this version only (default: latest)");
  c->callback([&, o] { action = [&g, o] { return check(g, *o); }; });

  auto* cf = s->add_subcommand("config", "Show or set the compatibility level (global or SUBJECT)");
  cf->add_option("subject", o->subject, "Subject (default: the global level)");
  cf->add_option("level", o->level,
                 "NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL, "
                 "FULL_TRANSITIVE");
  cf->callback([&, o] { action = [&g, o] { return config(g, *o); }; });

  auto* d = s->add_subcommand("delete", "Delete a subject, or one VERSION of it");
  d->add_option("subject", o->subject, "Subject")->required();
  d->add_option("version", o->version, "Version (a number, or latest)");
  d->add_flag("--permanent", o->permanent, "Delete permanently (ids are never reused)");
  d->callback([&, o] { action = [&g, o] { return remove(g, *o); }; });
}

}  // namespace strata::tools
