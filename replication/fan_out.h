// run_on_owners: fans per-partition work out to the shards that own the
// partitions and gathers the results back on the requesting shard; the
// long poll of a fetch (wait_on_owners, LongPoll) is built on it.
//
//   run_on_owners<Result<Offset>>(shards, origin, uids,
//       [](Partition* p, size_t i, auto done) { done(p ? ... : error); },   // on the owner
//       [](std::vector<Result<Offset>> results) { ... });                   // on `origin`
//
// One task is posted per owning shard and one back per shard, however many
// partitions a request names. `op` gets nullptr for a partition its owner
// does not host (not created yet, or deleted).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <boost/asio/steady_timer.hpp>

#include "replication/partition.h"
#include "replication/shard_seam.h"

namespace strata::replication {

template <typename R>
void run_on_owners(ShardSeam& shards, unsigned origin, const std::vector<PartitionUid>& uids,
                   std::function<void(Partition*, size_t, std::function<void(R)>)> op,
                   std::function<void(std::vector<R>)> done) {
  if (uids.empty()) return done({});
  struct Shared {
    std::vector<std::optional<R>> results;
    size_t groups_left = 0;
    std::function<void(std::vector<R>)> done;
  };
  auto shared = std::make_shared<Shared>();
  shared->results.resize(uids.size());
  shared->done = std::move(done);
  std::map<unsigned, std::vector<size_t>> groups;
  for (size_t i = 0; i < uids.size(); ++i)
    groups[shards.shard_for(uids[i])].push_back(i);
  shared->groups_left = groups.size();
  auto opp = std::make_shared<std::function<void(Partition*, size_t, std::function<void(R)>)>>(
      std::move(op));
  for (auto& [shard, indexes] : groups) {
    shards.shard(shard).post(
        [&shards, shard = shard, origin, indexes = std::move(indexes), uids, shared, opp] {
          // Collect this shard's results, then post them back together.
          struct Group {
            std::vector<std::pair<size_t, R>> results;
            size_t left;
          };
          auto group = std::make_shared<Group>(Group{{}, indexes.size()});
          for (size_t i : indexes) {
            (*opp)(shards.find(shard, uids[i]), i, [&shards, origin, shared, group, i](R r) {
              group->results.emplace_back(i, std::move(r));
              if (--group->left > 0) return;
              shards.shard(origin).post([shared, group] {
                for (auto& [idx, res] : group->results)
                  shared->results[idx].emplace(std::move(res));
                if (--shared->groups_left > 0) return;
                std::vector<R> out;
                out.reserve(shared->results.size());
                for (auto& r : shared->results)
                  out.push_back(std::move(*r));
                shared->done(std::move(out));
              });
            });
          }
        });
  }
}

// A long poll's waiters: on each partition's owning shard, a one-shot
// waiter that posts `wake` to `origin` once the partition's high watermark
// (with `log_end`, its log end) passes seen[i]. Waiters die with `alive`;
// `wake` may run more than once (once per partition that moved).
inline void wait_on_owners(ShardSeam& shards, unsigned origin,
                           const std::vector<PartitionUid>& uids, std::vector<Offset> seen,
                           bool log_end, std::weak_ptr<void> alive, std::function<void()> wake) {
  run_on_owners<int>(
      shards, origin, uids,
      [seen = std::move(seen), log_end, alive, wake, origin, &shards](
          Partition* p, size_t i, std::function<void(int)> done) {
        if (p != nullptr) {
          auto fire = [wake, origin, &shards] { shards.shard(origin).post(wake); };
          if (log_end) {
            p->wait_for_end(seen[i], alive, fire);
          } else {
            p->wait(seen[i], alive, fire);
          }
        }
        done(0);
      },
      [](std::vector<int>) {});
}

// LongPoll: one request's wait for new data — waiters on its partitions'
// owning shards (wait_on_owners) and a deadline timer; whichever fires
// first runs `wake` once, on the request's shard.
//
//   poll_.arm(shards, origin, uids, seen, /*log_end=*/false, deadline, self, [w] { ... });
class LongPoll {
 public:
  explicit LongPoll(boost::asio::io_context& io) : timer_(io) {}

  // `owner` (the request) is kept alive by the timer and held weakly by the
  // waiters; `wake` runs with it alive.
  void arm(ShardSeam& shards, unsigned origin, const std::vector<PartitionUid>& uids,
           std::vector<Offset> seen, bool log_end, std::chrono::steady_clock::time_point deadline,
           std::shared_ptr<void> owner, std::function<void()> wake) {
    token_ = std::make_shared<int>(0);
    wake_ = std::move(wake);
    std::weak_ptr<void> weak = owner;
    wait_on_owners(shards, origin, uids, std::move(seen), log_end, token_, [this, weak] {
      if (auto alive = weak.lock()) fire();
    });
    timer_.expires_at(deadline);
    timer_.async_wait([this, owner](const boost::system::error_code& ec) {
      if (!ec) fire();
    });
  }

 private:
  void fire() {
    if (!token_) return;  // woken already
    token_.reset();       // expires the waiters still registered
    timer_.cancel();
    auto wake = std::move(wake_);
    wake();
  }

  boost::asio::steady_timer timer_;
  std::shared_ptr<void> token_;
  std::function<void()> wake_;
};

}  // namespace strata::replication
