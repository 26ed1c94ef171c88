// WatchTracker: what one watch has told its callback — the keys under its
// prefix it knows with their mod_revision, and the next revision it needs —
// so that a store can resume it after a disconnect (watch again from
// next_revision()) and after a compaction took revisions it still needed
// (re-read the prefix and tell only the differences, see resync()).
//
// Both stores use it the same way: seed() with the prefix as read when the
// watch starts, then pass every batch from the store through deliver().
//
// Thread-safety: none; it belongs to its watch.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "coordinator/metadata_store.h"

namespace strata::coordinator {

class WatchTracker {
 public:
  // REQUIRES: start_revision >= 1.
  explicit WatchTracker(int64_t start_revision) : next_(start_revision) {}

  // The keys under the prefix as read at some revision at or after
  // start_revision - 1 (etcd reads the prefix as of start_revision - 1
  // while that is not compacted; the embedded store reads it as it is when
  // the watch starts). Replaying the events from start_revision over it
  // leaves what the watch should know.
  void seed(const std::vector<Entry>& entries);

  // The events of `events` the callback has not been told yet (a resumed
  // watch may see a revision again), recorded as told.
  std::vector<WatchEvent> deliver(const std::vector<WatchEvent>& events);

  // After a compaction: the differences between what the watch knows and
  // `listing` (a kPut for each key that is new or has another mod_revision,
  // in revision order; then a kErase at listing.revision for each known key
  // that is gone), recorded as told; the watch goes on from
  // listing.revision + 1.
  std::vector<WatchEvent> resync(const Listing& listing);

  // Every revision below `revision` has been looked at (the store found
  // nothing more under the prefix).
  void advance_to(int64_t revision);

  int64_t next_revision() const { return next_; }

 private:
  std::map<std::string, int64_t> known_;  // key -> mod_revision
  int64_t next_;
};

}  // namespace strata::coordinator
