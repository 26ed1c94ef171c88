#include "replication/replica_fetcher.h"

#include <optional>

#include <boost/asio/steady_timer.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "replication/fan_out.h"
#include "replication/partition.h"
#include "replication/rpc_client.h"

namespace strata::replication {

namespace {
constexpr int64_t kFetchCallTimeoutMs = 35000;  // above the long poll
constexpr int64_t kRetryMs = 500;

// What a follower replica holds, read on its shard; none when it is not
// hosted here as a follower.
using Position = std::optional<Partition::FollowerPosition>;

// Each partition's records in a fetch response, in its order: its share of
// the frame's attachment, or its `records` (a leader that does not attach).
Result<std::vector<SharedBytes>> records_of(const rpc::Response& resp,
                                            const SharedBytes& attachment) {
  std::vector<SharedBytes> out;
  size_t pos = 0;
  for (const auto& p : resp.fetch().partitions()) {
    if (p.attached_bytes() == 0) {
      out.push_back(p.records().empty() ? SharedBytes() : SharedBytes::copy_of(p.records()));
      continue;
    }
    if (p.attached_bytes() < 0 ||
        static_cast<uint64_t>(p.attached_bytes()) > attachment.size() - pos) {
      return Error(
          Errc::kCorruption,
          fmt::format("a fetch response's {}-{} claims {} attached bytes of the {} left", p.topic(),
                      p.partition(), p.attached_bytes(), attachment.size() - pos));
    }
    out.push_back(attachment.slice(pos, static_cast<size_t>(p.attached_bytes())));
    pos += static_cast<size_t>(p.attached_bytes());
  }
  return out;
}
}  // namespace

// The fetcher of one leader broker: its partitions, one call at a time.
class LeaderFetcher : public std::enable_shared_from_this<LeaderFetcher> {
 public:
  LeaderFetcher(ShardSeam& shards, const FetcherOptions& options, const Followed& any)
      : shards_(shards),
        options_(options),
        host_(any.host),
        port_(any.rpc_port),
        retry_(shards.shard(options.home_shard).io()) {
    client_ = RpcClient::create(shards.shard(options.home_shard).io(), host_,
                                static_cast<uint16_t>(port_), options.self, 0, options.source_host);
  }

  bool same_address(const Followed& f) const { return f.host == host_ && f.rpc_port == port_; }

  void update(const std::vector<Followed>& partitions) {
    std::map<PartitionUid, Entry> next;
    for (const auto& f : partitions) {
      auto it = entries_.find(f.uid);
      Entry e{f, Phase::kTruncate};
      if (it != entries_.end() && it->second.followed.leader_epoch == f.leader_epoch) {
        e.phase = it->second.phase;
      }
      next.emplace(f.uid, std::move(e));
    }
    entries_ = std::move(next);
    step();
  }

  void stop() {
    stopped_ = true;
    retry_.cancel();
    client_->close();
  }

 private:
  enum class Phase { kTruncate, kFetch };
  struct Entry {
    Followed followed;
    Phase phase = Phase::kTruncate;
  };

  std::vector<PartitionUid> in_phase(Phase phase) const {
    std::vector<PartitionUid> out;
    for (const auto& [uid, e] : entries_)
      if (e.phase == phase) out.push_back(uid);
    return out;
  }

  // After a call's replica work: a partition that failed agrees with the
  // leader again; after any failure or refusal the next call waits a while.
  void end_round(std::string_view doing, const std::vector<PartitionUid>& uids,
                 const std::vector<Status>& results, bool refused) {
    bool failed = refused;
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i]) continue;
      spdlog::warn("replica fetcher: {} partition {}: {}", doing, uids[i],
                   results[i].error().to_string());
      if (auto it = entries_.find(uids[i]); it != entries_.end())
        it->second.phase = Phase::kTruncate;
      failed = true;
    }
    busy_ = false;
    if (failed) return later();
    step();
  }

  void later() {
    retry_.expires_after(std::chrono::milliseconds(kRetryMs));
    retry_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->step();
    });
  }

  void step() {
    if (busy_ || stopped_) return;
    auto truncating = in_phase(Phase::kTruncate);
    auto fetching = in_phase(Phase::kFetch);
    if (truncating.empty() && fetching.empty()) return;
    busy_ = true;
    auto uids = truncating.empty() ? fetching : truncating;
    bool truncate = !truncating.empty();
    run_on_owners<Position>(
        shards_, options_.home_shard, uids,
        [](Partition* p, size_t, std::function<void(Position)> done) {
          if (p == nullptr || p->role() != replication::Role::kFollower) return done(std::nullopt);
          done(p->follower_position());
        },
        [self = shared_from_this(), uids, truncate](std::vector<Position> at) {
          if (self->stopped_) return;
          if (truncate) {
            self->ask_epoch_ends(uids, std::move(at));
          } else {
            self->fetch(uids, std::move(at));
          }
        });
  }

  void ask_epoch_ends(std::vector<PartitionUid> uids, std::vector<Position> at) {
    rpc::Request req;
    std::vector<PartitionUid> asked;
    std::vector<Position> positions;
    for (size_t i = 0; i < uids.size(); ++i) {
      auto it = entries_.find(uids[i]);
      if (it == entries_.end() || !at[i]) continue;
      if (at[i]->last_epoch < 0) {
        // Nothing written in any epoch here: nothing can diverge.
        it->second.phase = Phase::kFetch;
        continue;
      }
      auto* p = req.mutable_epoch_end()->add_partitions();
      p->set_topic(it->second.followed.topic);
      p->set_partition(it->second.followed.partition);
      p->set_current_leader_epoch(it->second.followed.leader_epoch);
      p->set_leader_epoch(at[i]->last_epoch);
      asked.push_back(uids[i]);
      positions.push_back(at[i]);
    }
    if (asked.empty()) {
      busy_ = false;
      return step();
    }
    client_->call(std::move(req), kFetchCallTimeoutMs,
                  [self = shared_from_this(), asked, positions](Result<rpc::Response> r) {
                    self->on_epoch_ends(asked, positions, std::move(r));
                  });
  }

  void on_epoch_ends(std::vector<PartitionUid> asked, std::vector<Position> positions,
                     Result<rpc::Response> r) {
    if (stopped_) return;
    if (!r || r->epoch_end().partitions_size() != static_cast<int>(asked.size())) {
      if (!r) spdlog::warn("replica fetcher {}:{}: {}", host_, port_, r.error().to_string());
      busy_ = false;
      return later();
    }
    std::vector<PartitionUid> cut;
    std::vector<Offset> to;
    bool refused = false;
    for (size_t i = 0; i < asked.size(); ++i) {
      const auto& a = r->epoch_end().partitions(static_cast<int>(i));
      auto it = entries_.find(asked[i]);
      if (it == entries_.end()) continue;
      if (a.error_code() != 0) {
        refused = true;  // its view or ours lags: ask again in a while
        continue;
      }
      // The leader knows no epoch at or below ours: keep only what the
      // watermark covered. Otherwise cut where our epoch ends there.
      Offset end = a.end_offset() < 0 ? positions[i]->high_watermark : Offset(a.end_offset());
      cut.push_back(asked[i]);
      to.push_back(std::min(end, positions[i]->log_end));
      // Agreed when the leader answered for the very epoch asked.
      bool agreed = a.end_offset() < 0 || a.leader_epoch() == positions[i]->last_epoch;
      if (agreed) it->second.phase = Phase::kFetch;
    }
    run_on_owners<Status>(
        shards_, options_.home_shard, cut,
        [to](Partition* p, size_t i, std::function<void(Status)> done) {
          if (p == nullptr) return done(not_hosted());
          p->truncate_above(to[i], std::move(done));
        },
        [self = shared_from_this(), cut, refused](std::vector<Status> results) {
          self->end_round("truncating", cut, results, refused);
        });
  }

  void fetch(std::vector<PartitionUid> uids, std::vector<Position> at) {
    rpc::Request req;
    req.mutable_fetch()->set_max_wait_ms(options_.wait_max_ms);
    req.mutable_fetch()->set_max_bytes(options_.max_bytes);
    req.mutable_fetch()->set_response_max_bytes(options_.response_max_bytes);
    req.mutable_fetch()->set_records_attached(true);
    std::vector<PartitionUid> asked;
    std::vector<Offset> from;
    // Each fetch starts its list one partition further on: the leader fills
    // the response's budget in list order, so none waits behind the others
    // for long.
    const size_t first = uids.empty() ? 0 : rotation_++ % uids.size();
    for (size_t k = 0; k < uids.size(); ++k) {
      const size_t i = (first + k) % uids.size();
      auto it = entries_.find(uids[i]);
      if (it == entries_.end() || !at[i]) continue;
      from.push_back(at[i]->log_end);
      auto* p = req.mutable_fetch()->add_partitions();
      p->set_topic(it->second.followed.topic);
      p->set_partition(it->second.followed.partition);
      p->set_current_leader_epoch(it->second.followed.leader_epoch);
      p->set_fetch_offset(at[i]->log_end.value());
      p->set_durable_offset(at[i]->durable.value());
      asked.push_back(uids[i]);
    }
    if (asked.empty()) {
      busy_ = false;
      return later();  // the replicas are not open yet
    }
    client_->call(
        std::move(req), kFetchCallTimeoutMs,
        [self = shared_from_this(), asked, from](Result<rpc::Response> r, SharedBytes attachment) {
          self->on_fetch(asked, from, std::move(r), std::move(attachment));
        });
  }

  void on_fetch(std::vector<PartitionUid> asked, std::vector<Offset> from, Result<rpc::Response> r,
                SharedBytes attachment) {
    if (stopped_) return;
    if (!r || r->fetch().partitions_size() != static_cast<int>(asked.size())) {
      if (!r) spdlog::warn("replica fetcher {}:{}: {}", host_, port_, r.error().to_string());
      busy_ = false;
      return later();
    }
    auto resp = std::make_shared<rpc::Response>(std::move(r).value());
    auto records = records_of(*resp, attachment);
    if (!records) {
      spdlog::warn("replica fetcher {}:{}: {}", host_, port_, records.error().to_string());
      busy_ = false;
      return later();
    }
    std::vector<PartitionUid> ok;
    std::vector<int> index;
    std::vector<std::optional<Offset>> restart;  // where a replica behind the log start restarts
    bool refused = false;
    for (size_t i = 0; i < asked.size(); ++i) {
      const auto& p = resp->fetch().partitions(static_cast<int>(i));
      auto it = entries_.find(asked[i]);
      if (it == entries_.end()) continue;
      if (options_.codes.decode(p.error_code()) == Errc::kOffsetOutOfRange &&
          Offset(p.log_start_offset()) > from[i]) {
        // Below the leader's log start (its retention or DeleteRecords ran
        // while this replica was away): what it lacks is gone, so it starts
        // again where the leader's log does.
        ok.push_back(asked[i]);
        index.push_back(static_cast<int>(i));
        restart.push_back(Offset(p.log_start_offset()));
        continue;
      }
      if (p.error_code() != 0) {
        // Not the leader (any more), or an epoch one side has not seen yet:
        // agree again in a while.
        it->second.phase = Phase::kTruncate;
        refused = true;
        continue;
      }
      ok.push_back(asked[i]);
      index.push_back(static_cast<int>(i));
      restart.push_back(std::nullopt);
    }
    run_on_owners<Status>(
        shards_, options_.home_shard, ok,
        [resp, records = std::move(records).value(), index, restart](
            Partition* p, size_t i, std::function<void(Status)> done) {
          if (p == nullptr) return done(ok_status());
          if (restart[i]) {
            spdlog::warn(
                "replica fetcher: {}-{} ends at {}, below its leader's log start {}: "
                "emptying it to copy from there",
                p->topic(), p->id(), p->follower_position().log_end, *restart[i]);
            return p->restart_at(*restart[i], std::move(done));
          }
          const auto& part = resp->fetch().partitions(index[i]);
          p->apply_from_leader(records[index[i]], Offset(part.high_watermark()),
                               Offset(part.log_start_offset()), std::move(done));
        },
        [self = shared_from_this(), ok, refused](std::vector<Status> results) {
          self->end_round("appending to", ok, results, refused);
        });
  }

  ShardSeam& shards_;
  const FetcherOptions options_;
  std::string host_;
  int32_t port_;
  std::shared_ptr<RpcClient> client_;
  boost::asio::steady_timer retry_;
  std::map<PartitionUid, Entry> entries_;
  bool busy_ = false;
  size_t rotation_ = 0;  // where the next fetch starts its partition list
  bool stopped_ = false;
};

ReplicaFetchers::ReplicaFetchers(ShardSeam& shards, FetcherOptions options)
    : shards_(shards), options_(std::move(options)) {}
ReplicaFetchers::~ReplicaFetchers() = default;

void ReplicaFetchers::follow(std::vector<Followed> partitions) {
  std::map<int32_t, std::vector<Followed>> by_leader;
  for (auto& f : partitions)
    by_leader[f.leader].push_back(std::move(f));
  for (auto it = by_leader_.begin(); it != by_leader_.end();) {
    auto want = by_leader.find(it->first);
    if (want == by_leader.end() || !it->second->same_address(want->second.front())) {
      it->second->stop();
      it = by_leader_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [leader, list] : by_leader) {
    auto& fetcher = by_leader_[leader];
    if (!fetcher) fetcher = std::make_shared<LeaderFetcher>(shards_, options_, list.front());
    fetcher->update(list);
  }
}

void ReplicaFetchers::stop() {
  for (auto& [leader, f] : by_leader_)
    f->stop();
  by_leader_.clear();
}

}  // namespace strata::replication
