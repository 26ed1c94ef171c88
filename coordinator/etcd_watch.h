// EtcdWatch: one watch of the etcd store (internal to coordinator/etcd_*).
// Each watch owns a thread that runs its callback and keeps one Watch stream
// open to an endpoint:
//  1. it reads the prefix once (WatchTracker::seed; with start revision 0
//     the watch starts after that read's revision), unless given the read;
//  2. it opens a stream from the tracker's next revision and passes every
//     batch of events through the tracker to the callback;
//  3. when the stream breaks (etcd killed, restarted, unreachable — noticed
//     within the channel's keepalive — or an endpoint that fails), it logs
//     the endpoint, waits (retry_min_ms, doubling up to retry_max_ms), moves
//     to the next endpoint and opens a stream from the revision after the
//     last one delivered;
//  4. when etcd answers that revision is compacted, it re-reads the prefix,
//     delivers the differences (WatchTracker::resync) and watches from the
//     read's revision + 1.
//
// Cancelling interrupts a stream at once; a read or a connection attempt in
// progress ends within the call timeout, so cancel() may wait that long.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "coordinator/metadata_store.h"

namespace strata::coordinator {

class EtcdClient;

struct EtcdWatchOptions {
  int64_t retry_min_ms = 100;
  int64_t retry_max_ms = 2000;
};

// Starts the watch's thread; `seed`, if given, is a read of the prefix made
// for it. The handle cancels the watch and, unless called from the
// callback, joins the thread.
WatchHandle start_etcd_watch(std::shared_ptr<EtcdClient> client, std::string prefix,
                             int64_t start_revision, const std::optional<Listing>& seed,
                             WatchCallback cb, EtcdWatchOptions options);

}  // namespace strata::coordinator
