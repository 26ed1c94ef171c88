// MetadataStore: the cluster-metadata store behind one interface, with etcd
// v3's data model, so the embedded single-broker store and the etcd store are
// interchangeable:
//  - one store-wide revision, bumped by exactly one by every transaction that
//    changes something; every entry carries the revision that created it, the
//    one that last changed it, its version (writes since creation) and lease;
//  - leases: granted with a TTL and kept alive by their holder; the keys put
//    under a lease are deleted when it expires or is revoked (a change like
//    any other, seen by watches);
//  - transactions: compares on keys' version or revisions, then one branch of
//    puts, deletes and gets, applied atomically at one revision;
//  - watches on a prefix from a revision that resume by themselves after a
//    disconnect and after a compaction of the revisions they still needed.
//
//   auto v = store.put("/strata/topics/orders", json, MetadataStore::kAbsent);
//   if (!v) ...  // kAlreadyExists when the key exists
//
//   Txn t{.compares = {Compare::mod_revision("/a", Compare::kEqual, rev)},
//         .success = {TxnOp::put("/a", "x"), TxnOp::put("/b", "y")},
//         .failure = {TxnOp::get("/a")}};
//   auto r = store.txn(t);  // r->succeeded; r->revision
//
//   auto w = store.watch("/strata/brokers/", listing.revision + 1, on_events);
//   // ... w cancels the watch when it goes away.
//
// Thread-safety: every method may be called from any thread except a shard's:
// the etcd store blocks on the network for up to its call timeout, so brokers
// call the store from control threads and post results to shards. Watch
// callbacks run on a thread the store owns, one at a time per watch, never
// inside the call that caused the change.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "coordinator/watch_handle.h"

namespace strata::coordinator {

// A lease id; kNoLease (0) is "no lease".
using LeaseId = int64_t;
inline constexpr LeaseId kNoLease = 0;

struct Entry {
  std::string key;
  std::string value;
  int64_t version = 0;          // 1 on creation, +1 on every put; 0 for a missing key
  int64_t create_revision = 0;  // the revision that created the key (since it last went away)
  int64_t mod_revision = 0;     // the revision of its latest change
  LeaseId lease = kNoLease;     // the lease it lives under

  friend bool operator==(const Entry&, const Entry&) = default;
};

// Every entry under a prefix, in key order, and the revision they were read at.
struct Listing {
  std::vector<Entry> entries;
  int64_t revision = 0;
};

struct Lease {
  LeaseId id = kNoLease;
  int64_t ttl_ms = 0;  // as granted: etcd rounds up to whole seconds and its minimum
};

// A condition on one key. A missing key has version and revisions 0, as in etcd.
struct Compare {
  enum class Target { kVersion, kCreateRevision, kModRevision };
  enum class Op { kEqual, kNotEqual, kLess, kGreater };
  static constexpr Op kEqual = Op::kEqual;
  static constexpr Op kNotEqual = Op::kNotEqual;
  static constexpr Op kLess = Op::kLess;
  static constexpr Op kGreater = Op::kGreater;

  std::string key;
  Target target = Target::kVersion;
  Op op = Op::kEqual;
  int64_t value = 0;

  static Compare version(std::string key, Op op, int64_t value);
  static Compare create_revision(std::string key, Op op, int64_t value);
  static Compare mod_revision(std::string key, Op op, int64_t value);
  // The target's value in `e` (nullptr: the key is missing).
  int64_t actual(const Entry* e) const;
  // Whether `actual` satisfies the condition.
  bool holds(int64_t actual) const;
};

// One operation of a transaction branch. A branch may not write a key twice
// (two puts, or a put of a key a delete of the branch covers): etcd refuses
// that and so does the embedded store (kInvalidArgument).
struct TxnOp {
  enum class Kind { kPut, kErase, kErasePrefix, kGet };
  Kind kind = Kind::kGet;
  std::string key;           // the prefix for kErasePrefix
  std::string value;         // kPut
  LeaseId lease = kNoLease;  // kPut: the lease the key will live under (none: detached)

  static TxnOp put(std::string key, std::string value, LeaseId lease = kNoLease);
  static TxnOp erase(std::string key);
  static TxnOp erase_prefix(std::string prefix);
  // Reads the key as the branch's earlier operations left it.
  static TxnOp get(std::string key);
};

struct TxnOpResult {
  std::optional<Entry> entry;  // kGet: the entry, if the key exists
  int64_t erased = 0;          // kErase, kErasePrefix: how many keys went away
};

// If every compare holds (or there is none) the success branch runs,
// otherwise the failure branch; atomically, at one revision.
struct Txn {
  std::vector<Compare> compares;
  std::vector<TxnOp> success;
  std::vector<TxnOp> failure;
};

struct TxnResult {
  bool succeeded = false;
  int64_t revision = 0;              // the store's revision after the transaction
  std::vector<TxnOpResult> results;  // one per operation of the branch that ran
};

struct WatchEvent {
  enum class Type { kPut, kErase };
  Type type = Type::kPut;
  // kPut: the entry as written. kErase: the key, with every other field 0
  // but mod_revision (the deletion's revision).
  Entry entry;
  int64_t revision = 0;  // == entry.mod_revision

  friend bool operator==(const WatchEvent&, const WatchEvent&) = default;
};

// Receives events in revision order; the events of one revision are never
// split over two calls. After a compaction took revisions the watch still
// needed, one call carries the differences instead of the history: a kPut for
// every key under the prefix changed since the last event delivered (at its
// mod_revision) and a kErase for every key the watch knew that is gone (at the
// revision of the re-read).
using WatchCallback = std::function<void(const std::vector<WatchEvent>& events)>;

// The errors both stores give for a lease that is gone and a bad TTL.
Error lease_not_found(LeaseId id);
Status check_lease_ttl(int64_t ttl_ms);

class MetadataStore {
 public:
  // Expected versions for put() and erase().
  static constexpr int64_t kAny = -1;    // no condition
  static constexpr int64_t kAbsent = 0;  // the key must not exist
  using Entry = coordinator::Entry;

  virtual ~MetadataStore() = default;

  virtual Result<std::optional<Entry>> get(const std::string& key) = 0;
  // Every entry whose key starts with `prefix` ("" for all), in key order.
  virtual Result<Listing> range(const std::string& prefix) = 0;
  // Durable when it returns. kNotFound when a put names a lease that does not
  // exist (the transaction then changes nothing).
  virtual Result<TxnResult> txn(const Txn& txn) = 0;
  // The most compares, or operations of one branch, one txn() may hold;
  // writers split larger changes (topic_catalog.cc).
  virtual size_t max_txn_ops() const { return SIZE_MAX; }

  // A lease of at least `ttl_ms` (> 0).
  virtual Result<Lease> grant(int64_t ttl_ms) = 0;
  // Restarts the lease's TTL once; returns the TTL granted. kNotFound once
  // the lease expired or was revoked.
  virtual Result<int64_t> keep_alive(LeaseId id) = 0;
  // Ends the lease now, deleting its keys. kNotFound if it no longer exists.
  virtual Status revoke(LeaseId id) = 0;

  // Forgets the history before `revision` (<= the current revision); watches
  // that still needed it resynchronise (see WatchCallback).
  virtual Status compact(int64_t revision) = 0;

  // Calls `cb` with every change under `prefix` from `start_revision` on
  // (0: from the next change after this call; the etcd store says what that
  // means while etcd cannot be read). The watch lives until the handle goes away and
  // needs no care from the caller: across disconnects it resumes from the
  // revision after the last one delivered, across compactions it re-reads.
  // REQUIRES: the handle goes away before the store.
  [[nodiscard]] virtual WatchHandle watch(const std::string& prefix, int64_t start_revision,
                                          WatchCallback cb) = 0;

  // The entries of range(prefix).
  Result<std::vector<Entry>> list(const std::string& prefix);
  // Writes `value` if the key's version is `expected` (see kAny, kAbsent) as
  // one transaction. Returns the new version; kAlreadyExists / kNotFound /
  // kInvalidArgument (version mismatch) otherwise.
  Result<int64_t> put(const std::string& key, const std::string& value, int64_t expected,
                      LeaseId lease = kNoLease);
  // Deletes the key if its version is `expected`; kNotFound if it is missing.
  Status erase(const std::string& key, int64_t expected);
};

}  // namespace strata::coordinator
