// HostedViews: the coordinator views (LogView-backed stores) of one internal
// topic's partitions that one shard hosts. Where this broker leads a
// partition its store is loaded and handed to the coordinator to serve;
// where it follows, the store follows the replica so that a failover here
// serves at once; when the replica closes or leadership moves, the
// coordinator is told to stop first.
//
//   HostedViews<LogOffsetsStore> offsets(kOffsetsTopic, {make, serve, stop});
//   hooks.opened = hooks.changed = [&](Partition& p) { offsets.on_replica(p); };
//   hooks.closing = [&](Partition& p) { offsets.on_closing(p); };
//
// Store: load(done), follow(), records_replayed(). Thread-safety: the shard's thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <spdlog/spdlog.h>

#include "replication/partition.h"

namespace strata::server {

template <typename Store>
class HostedViews {
 public:
  struct Callbacks {
    std::function<std::unique_ptr<Store>(replication::Partition&)> make;
    // The leader's store is loaded: the coordinator serves from it.
    std::function<void(int32_t partition, Store&)> serve;
    // The coordinator stops serving the partition (before its store goes).
    std::function<void(int32_t partition)> stop;
  };

  HostedViews(std::string topic, Callbacks cb) : topic_(std::move(topic)), cb_(std::move(cb)) {}

  // A replica was opened or changed role.
  void on_replica(replication::Partition& p) {
    if (p.topic() != topic_) return;
    int32_t id = p.id().value();
    bool leads = p.role() == replication::Role::kLeader;
    auto epoch = led_in_.find(id);
    if (leads && epoch != led_in_.end() && epoch->second != p.leader_epoch()) {
      // Leader again in a later epoch (another broker led in between, as
      // far as anyone knows): serve anew, at the new epoch.
      on_closing(p);
    }
    if (leads && leading_.count(id) == 0) {
      following_.erase(id);
      lead(p);
    }
    if (!leads && following_.count(id) == 0) {
      on_closing(p);
      auto view = cb_.make(p);
      view->follow();
      following_[id] = std::move(view);
    }
  }

  // A replica is closing (deleted, moved, or the broker stops).
  void on_closing(replication::Partition& p) {
    if (p.topic() != topic_) return;
    int32_t id = p.id().value();
    if (leading_.count(id) != 0) cb_.stop(id);
    leading_.erase(id);
    loaded_.erase(id);
    led_in_.erase(id);
    following_.erase(id);
  }

  // The store of a partition this shard leads: loaded (serving), or still
  // loading; nullptr where it does not lead.
  struct Leading {
    Store* store = nullptr;
    bool loaded = false;
  };
  Leading leading(int32_t partition) const {
    auto it = leading_.find(partition);
    if (it == leading_.end()) return {};
    return {it->second.get(), loaded_.count(partition) != 0};
  }

  // Stops serving every partition and drops every store (shutdown).
  void clear() {
    for (auto& [id, store] : leading_)
      cb_.stop(id);
    leading_.clear();
    loaded_.clear();
    led_in_.clear();
    following_.clear();
  }

 private:
  void lead(replication::Partition& p) {
    int32_t id = p.id().value();
    auto store = cb_.make(p);
    auto* raw = store.get();
    leading_[id] = std::move(store);
    led_in_[id] = p.leader_epoch();
    raw->load([this, id, raw](Status st) {
      auto it = leading_.find(id);
      if (it == leading_.end() || it->second.get() != raw) return;  // closed meanwhile
      if (!st) {
        spdlog::error("loading {}-{} failed: {}", topic_, id, st.error().to_string());
        return;
      }
      if (raw->records_replayed() > 0) {
        spdlog::info("{}-{} loaded: {} record(s) replayed", topic_, id, raw->records_replayed());
      }
      loaded_.insert(id);
      cb_.serve(id, *raw);
    });
  }

  std::string topic_;
  Callbacks cb_;
  std::unordered_map<int32_t, std::unique_ptr<Store>> leading_;
  std::unordered_map<int32_t, std::unique_ptr<Store>> following_;
  std::unordered_set<int32_t> loaded_;               // the leading stores that are serving
  std::unordered_map<int32_t, LeaderEpoch> led_in_;  // the epoch each leading store began in
};

}  // namespace strata::server
