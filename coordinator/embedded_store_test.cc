#include "coordinator/embedded_store.h"

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/testing/temp_dir.h"
#include "coordinator/testing/event_log.h"

namespace strata::coordinator {
namespace {

TEST(EmbeddedStore, PutGetListEraseWithVersions) {
  strata::testing::TempDir dir;
  auto store = EmbeddedStore::open(dir / "meta.json").value();
  EXPECT_FALSE(store->get("/a").value().has_value());
  EXPECT_EQ(store->put("/a/1", "x", MetadataStore::kAbsent).value(), 1);
  EXPECT_EQ(store->put("/a/2", "y", MetadataStore::kAny).value(), 1);
  EXPECT_EQ(store->put("/b", "z", MetadataStore::kAny).value(), 1);
  EXPECT_EQ(store->put("/a/1", "x2", 1).value(), 2);
  // Compare-and-set failures.
  EXPECT_EQ(store->put("/a/1", "no", MetadataStore::kAbsent).error().code(), Errc::kAlreadyExists);
  EXPECT_EQ(store->put("/a/1", "no", 1).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(store->put("/c", "no", 3).error().code(), Errc::kNotFound);
  auto listed = store->list("/a/").value();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].value, "x2");
  EXPECT_EQ(listed[0].version, 2);
  ASSERT_TRUE(store->erase("/a/2", MetadataStore::kAny).ok());
  EXPECT_EQ(store->erase("/a/2", MetadataStore::kAny).code(), Errc::kNotFound);
}

TEST(EmbeddedStore, SurvivesReopenAndRefusesACorruptFile) {
  strata::testing::TempDir dir;
  {
    auto store = EmbeddedStore::open(dir / "meta.json").value();
    ASSERT_TRUE(store->put("/k", "v", MetadataStore::kAny).ok());
    ASSERT_TRUE(store->put("/k", "w", MetadataStore::kAny).ok());
  }
  {
    auto store = EmbeddedStore::open(dir / "meta.json").value();
    auto e = store->get("/k").value();
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->value, "w");
    EXPECT_EQ(e->version, 2);
  }
  std::ofstream(dir / "meta.json") << "{ not json";
  auto bad = EmbeddedStore::open(dir / "meta.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), Errc::kCorruption);
}

using testing::EventLog;
using Type = WatchEvent::Type;

EmbeddedStore::Options manual(ManualClock& clock, int64_t history_revisions = 10000) {
  return {.clock = &clock, .lease_check_interval_ms = 0, .history_revisions = history_revisions};
}

TEST(EmbeddedStore, ReadsAFormatOneFileAndRewritesItAsFormatTwo) {
  strata::testing::TempDir dir;
  std::ofstream(dir / "meta.json")
      << R"({"format": 1, "entries": [{"key": "/a", "value": "x", "version": 3}]})";
  {
    auto store = EmbeddedStore::open(dir / "meta.json").value();
    auto a = store->get("/a").value().value();
    EXPECT_EQ(a.value, "x");
    EXPECT_EQ(a.version, 3);
    EXPECT_EQ(a.create_revision, 1);
    EXPECT_EQ(a.mod_revision, 1);
    EXPECT_EQ(store->range("").value().revision, 1);
    EXPECT_EQ(store->put("/a", "y", 3).value(), 4);
  }
  std::ifstream in(dir / "meta.json");
  auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("format"), 2);
  EXPECT_EQ(doc.at("revision"), 2);
  // Format one's fields stay, so a broker from before revisions reads it.
  const auto& e = doc.at("entries").at(0);
  EXPECT_EQ(e.at("key"), "/a");
  EXPECT_EQ(e.at("value"), "y");
  EXPECT_EQ(e.at("version"), 4);
  auto store = EmbeddedStore::open(dir / "meta.json").value();
  auto a = store->get("/a").value().value();
  EXPECT_EQ(a.version, 4);
  EXPECT_EQ(a.create_revision, 1);
  EXPECT_EQ(a.mod_revision, 2);
}

TEST(EmbeddedStore, RefusesAFileWhoseRevisionsDoNotAddUp) {
  strata::testing::TempDir dir;
  std::ofstream(dir / "meta.json") << R"({"format": 2, "revision": 1, "entries": [{"key": "/a",
      "value": "x", "version": 1, "create_revision": 1, "mod_revision": 5, "lease": 0}]})";
  auto bad = EmbeddedStore::open(dir / "meta.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), Errc::kCorruption);
  EXPECT_NE(bad.error().message().find("/a"), std::string::npos);
}

TEST(EmbeddedStore, KeysUnderALeaseDoNotSurviveARestart) {
  strata::testing::TempDir dir;
  int64_t revision = 0;
  {
    auto store = EmbeddedStore::open(dir / "meta.json").value();
    auto lease = store->grant(60000).value();
    ASSERT_TRUE(store->put("/kept", "1", MetadataStore::kAny).ok());
    ASSERT_TRUE(store->put("/leased", "1", MetadataStore::kAny, lease.id).ok());
    revision = store->range("").value().revision;
  }
  auto store = EmbeddedStore::open(dir / "meta.json").value();
  EXPECT_TRUE(store->get("/kept").value().has_value());
  EXPECT_FALSE(store->get("/leased").value().has_value());
  EXPECT_EQ(store->range("").value().revision, revision + 1);
}

TEST(EmbeddedStore, KeepAliveRestartsTheTtlOnTheClock) {
  strata::testing::TempDir dir;
  ManualClock clock;
  auto store = EmbeddedStore::open(dir / "meta.json", manual(clock)).value();
  auto lease = store->grant(1000).value();
  EXPECT_EQ(lease.ttl_ms, 1000);
  ASSERT_TRUE(store->put("/l", "1", MetadataStore::kAny, lease.id).ok());
  clock.advance_ms(600);
  EXPECT_EQ(store->keep_alive(lease.id).value(), 1000);
  clock.advance_ms(600);
  store->tick();
  EXPECT_TRUE(store->get("/l").value().has_value());
  clock.advance_ms(400);
  // Every call looks at the clock first: no tick() is needed.
  EXPECT_FALSE(store->get("/l").value().has_value());
  EXPECT_EQ(store->keep_alive(lease.id).error().code(), Errc::kNotFound);
}

TEST(EmbeddedStore, ItsThreadExpiresLeasesWithoutBeingCalled) {
  strata::testing::TempDir dir;
  ManualClock clock;
  auto store =
      EmbeddedStore::open(dir / "meta.json", {.clock = &clock, .lease_check_interval_ms = 5})
          .value();
  auto lease = store->grant(1000).value();
  ASSERT_TRUE(store->put("/l", "1", MetadataStore::kAny, lease.id).ok());
  EventLog log;
  WatchHandle w = store->watch("/", 0, log.callback());
  clock.advance_ms(1000);
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return !evs.empty(); }));
  EXPECT_EQ(log.events().at(0).type, Type::kErase);
  EXPECT_EQ(log.events().at(0).entry.key, "/l");
}

TEST(EmbeddedStore, AWatchThatFallsBehindItsHistoryResyncs) {
  strata::testing::TempDir dir;
  ManualClock clock;
  auto store = EmbeddedStore::open(dir / "meta.json", manual(clock, 2)).value();
  ASSERT_TRUE(store->put("/w/old", "1", MetadataStore::kAny).ok());
  EventLog log;
  WatchHandle w = store->watch("/w/", 0, log.callback());
  log.hold();
  ASSERT_TRUE(store->put("/w/a", "1", MetadataStore::kAny).ok());
  ASSERT_TRUE(log.wait_held());
  // Four revisions while the watch is stuck, two more than the history holds.
  ASSERT_TRUE(store->put("/w/a", "2", MetadataStore::kAny).ok());
  ASSERT_TRUE(store->put("/w/a", "3", MetadataStore::kAny).ok());
  ASSERT_TRUE(store->put("/w/n", "1", MetadataStore::kAny).ok());
  ASSERT_TRUE(store->erase("/w/old", MetadataStore::kAny).ok());
  const Listing now = store->range("/w/").value();
  log.release();
  ASSERT_TRUE(log.wait_until([](const EventLog::Events& evs) { return evs.size() >= 4; }));
  auto evs = log.events();
  ASSERT_EQ(evs.size(), 4u);
  // The differences, not the history: /w/a once, at its latest.
  EXPECT_EQ(evs[1].entry.key, "/w/a");
  EXPECT_EQ(evs[1].entry.value, "3");
  EXPECT_EQ(evs[2].entry.key, "/w/n");
  EXPECT_EQ(evs[3].type, Type::kErase);
  EXPECT_EQ(evs[3].entry.key, "/w/old");
  EXPECT_EQ(evs[3].revision, now.revision);
}

TEST(EmbeddedStore, AWatchMayCancelItselfFromItsCallback) {
  strata::testing::TempDir dir;
  auto store = EmbeddedStore::open(dir / "meta.json").value();
  EventLog other;
  WatchHandle w2 = store->watch("/", 0, other.callback());
  EventLog self;
  WatchHandle w;
  auto record = self.callback();
  w = store->watch("/", 0, [&](const std::vector<WatchEvent>& evs) {
    record(evs);
    w.cancel();
  });
  ASSERT_TRUE(store->put("/1", "x", MetadataStore::kAny).ok());
  ASSERT_TRUE(self.wait_until([](const EventLog::Events& evs) { return !evs.empty(); }));
  ASSERT_TRUE(store->put("/2", "x", MetadataStore::kAny).ok());
  ASSERT_TRUE(store->put("/3", "x", MetadataStore::kAny).ok());
  // The store serves its watches in turn: once the other one has seen /3,
  // a watch still registered would have been called with /2.
  ASSERT_TRUE(other.wait_until([](const EventLog::Events& evs) { return evs.size() == 3; }));
  ASSERT_EQ(self.events().size(), 1u);
  EXPECT_EQ(self.events()[0].entry.key, "/1");
}

}  // namespace
}  // namespace strata::coordinator
