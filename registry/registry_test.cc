// The registry's operations through its REST routes, with `_schemas`
// replaced by a list of written records: ids, versions, compatibility,
// deletions, configs, modes, references, errors — and that the state is a
// function of the records (a registry rebuilt from them, compacted, answers
// the same and never gives an id out twice).
#include "registry/registry.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "registry/rest_api.h"

namespace strata::registry {
namespace {

using nlohmann::json;

const char* kUserV1 =
    R"({"type":"record","name":"User","namespace":"shop","fields":[{"name":"id","type":"long"}]})";
// v1 plus a field with a default: BACKWARD and FORWARD compatible.
const char* kUserV2 =
    R"({"type":"record","name":"User","namespace":"shop","fields":[{"name":"id","type":"long"},)"
    R"({"name":"email","type":"string","default":""}]})";
// v1 plus a field without a default: a new reader cannot read old data.
const char* kUserNoDefault =
    R"({"type":"record","name":"User","namespace":"shop","fields":[{"name":"id","type":"long"},)"
    R"({"name":"age","type":"int"}]})";

json schema_body(const std::string& schema, const std::string& type = "",
                 const json& refs = json()) {
  json b = {{"schema", schema}};
  if (!type.empty()) b["schemaType"] = type;
  if (!refs.is_null()) b["references"] = refs;
  return b;
}

class RegistryTest : public ::testing::Test {
 protected:
  RegistryTest() { reset(); }

  // A registry whose writes land in log_ (or fail while fail_ is set).
  void reset() {
    registry_ = std::make_unique<Registry>(
        [this](std::vector<WriteRecord> records, auto done) {
          if (fail_) return done(Error(Errc::kIoError, "disk on fire"));
          for (auto& r : records)
            log_.push_back(std::move(r));
          done(ok_status());
        },
        [this] { ++failures_; });
  }

  // One request, answered synchronously (the writer is).
  Reply call(const std::string& method, const std::string& target, const json& body = json()) {
    std::optional<Reply> out;
    serve_request(*registry_, {method, target, body.is_null() ? "" : body.dump()},
                  [&](Reply r) { out = std::move(r); });
    EXPECT_TRUE(out.has_value()) << method << " " << target << " was not answered";
    return out.value_or(Reply{});
  }
  json ok(const std::string& method, const std::string& target, const json& body = json()) {
    Reply r = call(method, target, body);
    EXPECT_EQ(r.status, 200) << method << " " << target << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }
  // The error code of a refused request, after checking its HTTP status.
  int error(const std::string& method, const std::string& target, const json& body = json()) {
    Reply r = call(method, target, body);
    auto j = json::parse(r.body, nullptr, false);
    if (!j.is_object() || !j.contains("error_code")) {
      ADD_FAILURE() << method << " " << target << " answered " << r.status << " " << r.body;
      return 0;
    }
    int code = j["error_code"].get<int>();
    EXPECT_EQ(r.status, code >= 1000 ? code / 100 : code) << r.body;
    EXPECT_TRUE(j.contains("message") && !j["message"].get<std::string>().empty()) << r.body;
    return code;
  }
  int register_schema(const std::string& subject, const json& body) {
    return ok("POST", "/subjects/" + subject + "/versions", body)["id"].get<int>();
  }

  // A registry rebuilt from log_ as compaction would leave it: the latest
  // record of each key, tombstoned keys gone.
  void rebuild_compacted() {
    std::map<std::string, std::optional<std::string>> latest;
    std::vector<std::string> order;
    for (const auto& r : log_) {
      auto k = encode_key(r.key);
      if (!latest.count(k)) order.push_back(k);
      latest[k] = r.value;
    }
    std::vector<WriteRecord> kept;
    for (const auto& k : order)
      if (latest[k]) kept.push_back({decode_key(k).value(), latest[k]});
    log_ = kept;
    reset();
    for (const auto& r : log_)
      ASSERT_TRUE(registry_->state().apply(r.key, *r.value));
  }

  std::unique_ptr<Registry> registry_;
  std::vector<WriteRecord> log_;
  bool fail_ = false;
  int failures_ = 0;
};

TEST_F(RegistryTest, RegisteringGivesIdsAndVersionsAndTheSameSchemaTheSameId) {
  EXPECT_EQ(register_schema("users-value", schema_body(kUserV1)), 1);
  // Again, with other whitespace: the same id, nothing written.
  size_t written = log_.size();
  json spaced = schema_body(json::parse(kUserV1).dump(2));
  EXPECT_EQ(register_schema("users-value", spaced), 1);
  EXPECT_EQ(log_.size(), written);
  // Under another subject: the same id, a version of its own.
  EXPECT_EQ(register_schema("archive-value", schema_body(kUserV1)), 1);
  EXPECT_EQ(register_schema("users-value", schema_body(kUserV2)), 2);
  EXPECT_EQ(ok("GET", "/subjects/users-value/versions"), json({1, 2}));
  EXPECT_EQ(ok("GET", "/subjects"), json({"archive-value", "users-value"}));
  json v2 = ok("GET", "/subjects/users-value/versions/latest");
  EXPECT_EQ(v2["version"], 2);
  EXPECT_EQ(v2["id"], 2);
  EXPECT_EQ(v2["subject"], "users-value");
  EXPECT_FALSE(v2.contains("schemaType"));  // Avro, as Confluent leaves it out
  EXPECT_EQ(ok("GET", "/subjects/users-value/versions/-1"), v2);
  EXPECT_EQ(ok("GET", "/subjects/users-value/versions/1")["id"], 1);
  // The raw schema and the schema by id are the stored (canonical) text.
  Reply raw = call("GET", "/subjects/users-value/versions/2/schema");
  EXPECT_EQ(raw.status, 200);
  EXPECT_EQ(raw.body, v2["schema"].get<std::string>());
  EXPECT_EQ(ok("GET", "/schemas/ids/2")["schema"], v2["schema"]);
  EXPECT_EQ(call("GET", "/schemas/ids/2/schema").body, raw.body);
  EXPECT_EQ(ok("GET", "/schemas/ids/1/versions"),
            json::parse(R"([{"subject":"archive-value","version":1},)"
                        R"({"subject":"users-value","version":1}])"));
  EXPECT_EQ(ok("GET", "/schemas/ids/1/subjects"), json({"archive-value", "users-value"}));
  EXPECT_EQ(ok("GET", "/schemas/types"), json({"JSON", "PROTOBUF", "AVRO"}));
  // A lookup finds the version holding a schema.
  json found = ok("POST", "/subjects/users-value", schema_body(kUserV1));
  EXPECT_EQ(found["version"], 1);
  EXPECT_EQ(found["id"], 1);
  EXPECT_EQ(error("POST", "/subjects/users-value", schema_body(kUserNoDefault)), 40403);
  EXPECT_EQ(error("POST", "/subjects/nobody", schema_body(kUserV1)), 40401);
}

TEST_F(RegistryTest, TheDefaultLevelIsBackwardAndRefusesWhatOldDataBreaks) {
  register_schema("users-value", schema_body(kUserV1));
  EXPECT_EQ(ok("GET", "/config")["compatibilityLevel"], "BACKWARD");
  EXPECT_EQ(error("POST", "/subjects/users-value/versions", schema_body(kUserNoDefault)), 409);
  json check = ok("POST", "/compatibility/subjects/users-value/versions/latest?verbose=true",
                  schema_body(kUserNoDefault));
  EXPECT_EQ(check["is_compatible"], false);
  ASSERT_FALSE(check["messages"].empty());
  EXPECT_NE(check["messages"][0].get<std::string>().find("age"), std::string::npos) << check.dump();
  EXPECT_EQ(ok("POST", "/compatibility/subjects/users-value/versions/1", schema_body(kUserV2)),
            json({{"is_compatible", true}}));
  // A subject that does not exist yet has nothing to be incompatible with.
  EXPECT_EQ(ok("POST", "/compatibility/subjects/new/versions/latest", schema_body(kUserV1)),
            json({{"is_compatible", true}}));
  EXPECT_EQ(error("POST", "/compatibility/subjects/new/versions/3", schema_body(kUserV1)), 40401);
  EXPECT_EQ(error("POST", "/compatibility/subjects/users-value/versions/7", schema_body(kUserV1)),
            40402);
  // NONE on the subject lets it through; the global level is unchanged.
  EXPECT_EQ(ok("PUT", "/config/users-value", {{"compatibility", "NONE"}}),
            json({{"compatibility", "NONE"}}));
  EXPECT_EQ(register_schema("users-value", schema_body(kUserNoDefault)), 2);
  EXPECT_EQ(ok("GET", "/config/users-value")["compatibilityLevel"], "NONE");
  EXPECT_EQ(ok("GET", "/config")["compatibilityLevel"], "BACKWARD");
}

TEST_F(RegistryTest, TransitiveLevelsCheckEveryLiveVersion) {
  // v1 needs `id`; v2 gives it a default. Data written without `id` is
  // readable by v2 (FORWARD against the latest) but not by v1.
  const char* id_default = R"({"type":"record","name":"User","namespace":"shop","fields":[)"
                           R"({"name":"id","type":"long","default":0}]})";
  const char* no_id = R"({"type":"record","name":"User","namespace":"shop","fields":[]})";
  ok("PUT", "/config", {{"compatibility", "FORWARD_TRANSITIVE"}});
  register_schema("t", schema_body(kUserV1));
  register_schema("t", schema_body(id_default));
  EXPECT_EQ(error("POST", "/subjects/t/versions", schema_body(no_id)), 409);
  ok("PUT", "/config", {{"compatibility", "FORWARD"}});
  EXPECT_EQ(register_schema("t", schema_body(no_id)), 3);
}

TEST_F(RegistryTest, DeletingSoftThenPermanently) {
  register_schema("s", schema_body(kUserV1));
  register_schema("s", schema_body(kUserV2));
  EXPECT_EQ(error("DELETE", "/subjects/s/versions/1?permanent=true"), 40407);
  EXPECT_EQ(ok("DELETE", "/subjects/s/versions/1"), json(1));
  EXPECT_EQ(error("DELETE", "/subjects/s/versions/1"), 40402);
  EXPECT_EQ(ok("GET", "/subjects/s/versions"), json({2}));
  EXPECT_EQ(ok("GET", "/subjects/s/versions?deleted=true"), json({1, 2}));
  EXPECT_EQ(error("GET", "/subjects/s/versions/1"), 40402);
  EXPECT_EQ(ok("GET", "/subjects/s/versions/1?deleted=true")["id"], 1);
  // A soft-deleted schema is still readable by id (old data needs it).
  EXPECT_EQ(ok("GET", "/schemas/ids/1")["schema"].is_string(), true);
  EXPECT_EQ(ok("DELETE", "/subjects/s/versions/1?permanent=true"), json(1));
  EXPECT_EQ(error("GET", "/schemas/ids/1"), 40403);
  // The subject: soft first, then permanently.
  EXPECT_EQ(error("DELETE", "/subjects/s?permanent=true"), 40405);
  EXPECT_EQ(ok("DELETE", "/subjects/s"), json({2}));
  EXPECT_EQ(error("DELETE", "/subjects/s"), 40404);
  EXPECT_EQ(error("GET", "/subjects/s/versions"), 40401);
  EXPECT_EQ(ok("GET", "/subjects"), json::array());
  EXPECT_EQ(ok("GET", "/subjects?deleted=true"), json({"s"}));
  EXPECT_EQ(ok("DELETE", "/subjects/s?permanent=true"), json({2}));
  EXPECT_EQ(error("DELETE", "/subjects/s"), 40401);
  EXPECT_EQ(ok("GET", "/subjects?deleted=true"), json::array());
}

TEST_F(RegistryTest, AnIdIsNeverGivenOutTwiceEvenAfterCompactionDropsIt) {
  register_schema("a", schema_body(kUserV1));
  register_schema("b", schema_body(kUserV2));  // id 2, the highest
  ok("DELETE", "/subjects/b");
  ok("DELETE", "/subjects/b?permanent=true");
  rebuild_compacted();
  // No record holds id 2 any more; the next new schema still gets 3.
  EXPECT_EQ(error("GET", "/schemas/ids/2"), 40403);
  EXPECT_EQ(register_schema("c", schema_body(kUserNoDefault)), 3);
  // And the rebuilt registry answers as the one that wrote the records.
  EXPECT_EQ(ok("GET", "/subjects/a/versions/1")["id"], 1);
  EXPECT_EQ(ok("GET", "/subjects"), json({"a", "c"}));
}

TEST_F(RegistryTest, VersionsKeepCountingPastSoftDeletedOnes) {
  register_schema("s", schema_body(kUserV1));
  ok("DELETE", "/subjects/s/versions/1");
  // A soft-deleted version's schema registered again: a new version.
  EXPECT_EQ(register_schema("s", schema_body(kUserV1)), 1);
  EXPECT_EQ(ok("GET", "/subjects/s/versions"), json({2}));
}

TEST_F(RegistryTest, ConfigsAndModes) {
  EXPECT_EQ(error("PUT", "/config", {{"compatibility", "SIDEWAYS"}}), 42203);
  EXPECT_EQ(ok("PUT", "/config", {{"compatibility", "full"}}), json({{"compatibility", "FULL"}}));
  EXPECT_EQ(error("GET", "/config/s"), 40408);
  EXPECT_EQ(ok("GET", "/config/s?defaultToGlobal=true")["compatibilityLevel"], "FULL");
  ok("PUT", "/config/s", {{"compatibility", "NONE"}});
  EXPECT_EQ(ok("DELETE", "/config/s")["compatibilityLevel"], "NONE");
  EXPECT_EQ(error("GET", "/config/s"), 40408);
  EXPECT_EQ(ok("DELETE", "/config")["compatibilityLevel"], "FULL");
  EXPECT_EQ(ok("GET", "/config")["compatibilityLevel"], "BACKWARD");

  EXPECT_EQ(ok("GET", "/mode"), json({{"mode", "READWRITE"}}));
  EXPECT_EQ(error("PUT", "/mode", {{"mode", "SLEEPY"}}), 42204);
  ok("PUT", "/mode/s", {{"mode", "READONLY"}});
  EXPECT_EQ(error("POST", "/subjects/s/versions", schema_body(kUserV1)), 42205);
  EXPECT_EQ(register_schema("other", schema_body(kUserV1)), 1);
  EXPECT_EQ(ok("DELETE", "/mode/s"), json({{"mode", "READONLY"}}));
  EXPECT_EQ(error("GET", "/mode/s"), 40409);
  // IMPORT: only into an empty registry unless forced; then ids are chosen.
  EXPECT_EQ(error("PUT", "/mode", {{"mode", "IMPORT"}}), 42205);
  ok("PUT", "/mode?force=true", {{"mode", "IMPORT"}});
  json chosen = schema_body(kUserV2);
  chosen["id"] = 100;
  chosen["version"] = 5;
  EXPECT_EQ(register_schema("imported", chosen), 100);
  EXPECT_EQ(ok("GET", "/subjects/imported/versions"), json({5}));
  ok("PUT", "/mode", {{"mode", "READWRITE"}});
  // Outside IMPORT a registration may not choose its id.
  EXPECT_EQ(error("POST", "/subjects/x/versions", chosen), 42205);
  // The chosen id raised the floor: a new schema gets 101.
  EXPECT_EQ(register_schema("x", schema_body(kUserNoDefault)), 101);
}

TEST_F(RegistryTest, ReferencesAcrossSubjects) {
  const char* address = R"({"type":"record","name":"Address","namespace":"shop","fields":[)"
                        R"({"name":"city","type":"string"}]})";
  const char* customer = R"({"type":"record","name":"Customer","namespace":"shop","fields":[)"
                         R"({"name":"home","type":"shop.Address"}]})";
  register_schema("address", schema_body(address));
  json refs = json::array({{{"name", "shop.Address"}, {"subject", "address"}, {"version", 1}}});
  // Without the reference the type is unknown.
  EXPECT_EQ(error("POST", "/subjects/customer/versions", schema_body(customer)), 42201);
  int id = register_schema("customer", schema_body(customer, "AVRO", refs));
  EXPECT_EQ(id, 2);
  json got = ok("GET", "/schemas/ids/2");
  EXPECT_EQ(got["references"], refs);
  EXPECT_EQ(ok("GET", "/subjects/address/versions/1/referencedby"), json({2}));
  // A referenced version cannot go while a schema uses it.
  EXPECT_EQ(error("DELETE", "/subjects/address/versions/1"), 42206);
  EXPECT_EQ(error("DELETE", "/subjects/address"), 42206);
  json bad = json::array({{{"name", "shop.Address"}, {"subject", "address"}, {"version", 9}}});
  EXPECT_EQ(error("POST", "/subjects/c2/versions", schema_body(customer, "AVRO", bad)), 42201);
}

TEST_F(RegistryTest, ASubjectGoesWithItsOwnReferencesButNotWithAnotherSubjects) {
  const char* address =
      R"({"type":"record","name":"Address","fields":[{"name":"city","type":"string"}]})";
  const char* customer =
      R"({"type":"record","name":"Customer","fields":[{"name":"home","type":"Address"}]})";
  json refs = json::array({{{"name", "Address"}, {"subject", "mixed"}, {"version", 1}}});
  ok("PUT", "/config/mixed", {{"compatibility", "NONE"}});
  register_schema("mixed", schema_body(address));
  int id = register_schema("mixed", schema_body(customer, "AVRO", refs));
  // The subject's own v2 references its v1: the subject may go as a whole.
  ok("PUT", "/config/solo", {{"compatibility", "NONE"}});
  register_schema("solo", schema_body(R"({"type":"record","name":"Solo","fields":[]})"));
  // The same referencing schema under another subject: one id, two holders.
  EXPECT_EQ(register_schema("copy", schema_body(customer, "AVRO", refs)), id);
  EXPECT_EQ(error("DELETE", "/subjects/mixed"), 42206);
  ok("DELETE", "/subjects/copy");
  ok("DELETE", "/subjects/copy?permanent=true");
  EXPECT_EQ(ok("DELETE", "/subjects/mixed"), json({1, 2}));
}

TEST_F(RegistryTest, AnImportedSchemaUnderTwoIdsKeepsTheOtherWhenOneGoes) {
  ok("PUT", "/mode", {{"mode", "IMPORT"}});
  json a = schema_body(kUserV1);
  a["id"] = 10;
  EXPECT_EQ(register_schema("a", a), 10);
  json b = schema_body(kUserV1);
  b["id"] = 20;
  EXPECT_EQ(register_schema("b", b), 20);
  ok("PUT", "/mode", {{"mode", "READWRITE"}});
  ok("DELETE", "/subjects/a");
  ok("DELETE", "/subjects/a?permanent=true");
  // Registered anew elsewhere: the id that still holds it, not a new one.
  EXPECT_EQ(register_schema("c", schema_body(kUserV1)), 20);
}

TEST_F(RegistryTest, BadRequestsGetTheirCodes) {
  EXPECT_EQ(error("POST", "/subjects/s/versions", schema_body("{\"type\": \"recrod\"}")), 42201);
  EXPECT_EQ(error("POST", "/subjects/s/versions", json({{"nothing", 1}})), 42201);
  EXPECT_EQ(error("POST", "/subjects/s/versions", schema_body(kUserV1, "XML")), 42201);
  Reply r = call("POST", "/subjects/s/versions");
  EXPECT_EQ(r.status, 422);  // an empty body is not JSON
  r = call("POST", "/subjects/s/versions", json());
  serve_request(*registry_, {"POST", "/subjects/s/versions", "{\"schema\": "},
                [&](Reply x) { r = x; });
  EXPECT_EQ(r.status, 422);
  EXPECT_NE(r.body.find("Invalid JSON"), std::string::npos) << r.body;
  EXPECT_EQ(error("GET", "/subjects/s/versions/0"), 42202);
  EXPECT_EQ(error("GET", "/subjects/s/versions/abc"), 42202);
  EXPECT_EQ(error("GET", "/subjects/s/versions/99999999999"), 42202);
  EXPECT_EQ(error("GET", "/subjects/s/versions/1"), 40401);
  register_schema("s", schema_body(kUserV1));
  EXPECT_EQ(error("GET", "/subjects/s/versions/2"), 40402);
  EXPECT_EQ(error("GET", "/schemas/ids/x"), 40403);
  EXPECT_EQ(error("GET", "/schemas/ids/-4"), 40403);
  EXPECT_EQ(error("GET", "/nowhere"), 404);
  EXPECT_EQ(error("PATCH", "/subjects"), 405);
  EXPECT_EQ(error("DELETE", "/schemas/ids/1"), 405);
  EXPECT_EQ(call("GET", "/subjects/%zz").status, 400);
  // Bytes that are not UTF-8 in a path: refused, never echoed raw.
  EXPECT_EQ(call("GET", "/subjects/%FF/versions").status, 400);
  EXPECT_EQ(call("GET", "/schemas/ids/%C0%80").status, 400);
  EXPECT_EQ(call("GET", "/subjects/\xff").status, 400);  // raw, too
  Reply raw;
  serve_request(*registry_,
                {"POST", "/subjects/s/versions", "{\"schema\":\"x\",\"schemaType\":\"\xff\"}"},
                [&](Reply x) { raw = x; });
  EXPECT_EQ(raw.status, 422);  // not JSON (JSON is UTF-8); the message quotes the byte, replaced
  EXPECT_TRUE(json::parse(raw.body, nullptr, false).is_object()) << raw.body;
  // The largest id or version would leave no next one.
  json huge = schema_body(kUserV2);
  huge["id"] = 2147483647;
  EXPECT_EQ(error("POST", "/subjects/s/versions", huge), 42201);
  // A deeply nested schemaType is refused without recursing through it.
  std::string deep = "{\"schema\":\"x\",\"schemaType\":" + std::string(100000, '[') +
                     std::string(100000, ']') + "}";
  Reply r2;
  serve_request(*registry_, {"POST", "/subjects/s/versions", deep}, [&](Reply x) { r2 = x; });
  EXPECT_EQ(r2.status, 422);
  // A failed write answers 50001, changes nothing, and stops the registry
  // (the batch may yet commit): later changes get 50003 until it is
  // reloaded from the log, which its owner is told to do.
  fail_ = true;
  EXPECT_EQ(error("POST", "/subjects/s/versions", schema_body(kUserV2)), 50001);
  EXPECT_EQ(failures_, 1);
  fail_ = false;
  EXPECT_EQ(error("POST", "/subjects/s/versions", schema_body(kUserV2)), 50003);
  EXPECT_EQ(ok("GET", "/subjects/s/versions"), json({1}));
  rebuild_compacted();
  EXPECT_EQ(register_schema("s", schema_body(kUserV2)), 2);
}

TEST_F(RegistryTest, ChangesInFlightOrQueuedAreAnsweredWhenTheRegistryGoes) {
  std::vector<std::function<void(Status)>> pending;
  registry_ = std::make_unique<Registry>(
      [&](std::vector<WriteRecord>, auto done) { pending.push_back(done); });
  std::vector<Reply> replies;
  for (const char* s : {kUserV1, kUserV2})
    serve_request(*registry_, {"POST", "/subjects/s/versions", schema_body(s).dump()},
                  [&](Reply r) { replies.push_back(r); });
  registry_.reset();  // leadership moved: the queued one is answered now
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].status, 500);
  pending[0](Error(Errc::kShutdown, "the view is gone"));  // the one in flight
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_NE(replies[1].body.find("50003"), std::string::npos) << replies[1].body;
}

TEST_F(RegistryTest, SubjectsArePercentDecoded) {
  register_schema("a%2Fb%20c", schema_body(kUserV1));
  EXPECT_EQ(ok("GET", "/subjects"), json({"a/b c"}));
  EXPECT_EQ(ok("GET", "/subjects/a%2Fb%20c/versions"), json({1}));
  EXPECT_EQ(ok("GET", "/subjects?subjectPrefix=a%2F"), json({"a/b c"}));
  EXPECT_EQ(ok("GET", "/subjects?subjectPrefix=b"), json::array());
}

TEST_F(RegistryTest, WritesAreDecidedOneAtATimeAgainstWhatIsWritten) {
  // A writer that completes later: two registrations queued behind it get
  // distinct ids and versions.
  std::vector<std::function<void()>> pending;
  registry_ = std::make_unique<Registry>([&](std::vector<WriteRecord> records, auto done) {
    pending.push_back([this, records, done]() mutable {
      for (auto& r : records)
        log_.push_back(r);
      done(ok_status());
    });
  });
  std::vector<Reply> replies;
  for (const char* s : {kUserV1, kUserV2})
    serve_request(*registry_, {"POST", "/subjects/s/versions", schema_body(s).dump()},
                  [&](Reply r) { replies.push_back(r); });
  ASSERT_EQ(pending.size(), 1u);  // the second waits for the first
  EXPECT_TRUE(replies.empty());
  pending[0]();
  ASSERT_EQ(pending.size(), 2u);
  pending[1]();
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(json::parse(replies[0].body)["id"], 1);
  EXPECT_EQ(json::parse(replies[1].body)["id"], 2);
  EXPECT_EQ(ok("GET", "/subjects/s/versions"), json({1, 2}));
}

}  // namespace
}  // namespace strata::registry
