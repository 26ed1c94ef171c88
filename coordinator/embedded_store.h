// EmbeddedStore: the MetadataStore of a single broker, in process. Entries
// and the store's revision live in memory and in one JSON file
// (embedded_store_file.h), rewritten atomically on every change; metadata
// changes are rare (topic creation, config changes), so rewriting the whole
// file keeps it trivially crash-safe.
//
// Leases live in memory only and expire by the injected Clock's steady time:
// every call that reads or writes checks for expired leases first, tick()
// does so on demand, and the store's thread does so every
// lease_check_interval_ms of real time while there are leases (0: never, for
// tests that drive a ManualClock and call tick()). Leases do not survive a restart: open()
// deletes the keys that lived under one, as if it had expired while the
// broker was down (the restarted broker grants a new lease).
//
// Watches are served from an in-memory history of the last
// history_revisions revisions; a watch that falls behind it (or starts
// before it, or behind a compact()) resynchronises as MetadataStore says.
// After open() the history is empty: a watch from an old revision re-reads.
//
// Thread-safety: every method may be called from any thread. Watch callbacks
// run on the store's one thread, never while the store's lock is held, so
// they may call the store.
#pragma once

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "base/clock.h"
#include "coordinator/metadata_store.h"
#include "coordinator/watch_tracker.h"

namespace strata::coordinator {

class EmbeddedStore final : public MetadataStore {
 public:
  struct Options {
    Clock* clock = nullptr;  // nullptr: SystemClock::instance()
    int64_t lease_check_interval_ms = 250;
    int64_t history_revisions = 10000;
  };

  // Loads `path` if it exists (a missing file is an empty store; a corrupt
  // one is an error, never silently replaced). Starts the store's thread.
  static Result<std::unique_ptr<EmbeddedStore>> open(const std::filesystem::path& path,
                                                     Options options);
  static Result<std::unique_ptr<EmbeddedStore>> open(const std::filesystem::path& path) {
    return open(path, Options());
  }
  // REQUIRES: every WatchHandle of the store is gone.
  ~EmbeddedStore() override;

  Result<std::optional<Entry>> get(const std::string& key) override;
  Result<Listing> range(const std::string& prefix) override;
  Result<TxnResult> txn(const Txn& txn) override;
  Result<Lease> grant(int64_t ttl_ms) override;
  Result<int64_t> keep_alive(LeaseId id) override;
  Status revoke(LeaseId id) override;
  Status compact(int64_t revision) override;
  WatchHandle watch(const std::string& prefix, int64_t start_revision, WatchCallback cb) override;

  // Expires every lease whose TTL has run out by the clock, now.
  void tick();

 private:
  struct LeaseState {
    int64_t ttl_ms = 0;
    int64_t deadline_ms = 0;  // Clock::steady_ms()
    std::set<std::string> keys;
  };
  struct Revision {
    int64_t revision = 0;
    std::vector<WatchEvent> events;
  };
  struct Watch {
    std::string prefix;
    WatchCallback cb;
    WatchTracker tracker;
  };

  EmbeddedStore(std::filesystem::path path, Options options);

  // All of these REQUIRE mu_ held.
  void expire_leases_locked();
  // Deletes the lease and its keys at one new revision. The keys go even if
  // the file cannot be written (the error is returned): a key never outlives
  // its lease, and open() drops leased keys anyway.
  Status end_lease_locked(LeaseId id);
  // Makes `next` (the entries after a change at revision_ + 1, `events`)
  // the store's state: persisted first by commit_locked, not by apply_locked.
  Status commit_locked(std::map<std::string, Entry> next, std::vector<WatchEvent> events);
  void apply_locked(std::map<std::string, Entry> next, std::vector<WatchEvent> events);
  // The next batch for `w`, or false when it is up to date.
  bool next_batch_locked(Watch& w, std::vector<WatchEvent>& out);

  void run();
  void cancel(uint64_t watch_id);

  const std::filesystem::path path_;
  const Options options_;
  Clock& clock_;

  std::mutex mu_;
  std::condition_variable cv_;  // changes, new watches, stop_, the end of a callback
  std::map<std::string, Entry> entries_;
  int64_t revision_ = 0;
  std::map<LeaseId, LeaseState> leases_;
  std::mt19937_64 lease_ids_{std::random_device{}()};
  std::deque<Revision> history_;
  // The oldest revision the history holds every event of.
  int64_t first_retained_ = 1;
  std::map<uint64_t, std::shared_ptr<Watch>> watches_;
  uint64_t next_watch_id_ = 1;
  uint64_t running_watch_ = 0;  // the watch whose callback runs now, 0 for none
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace strata::coordinator
