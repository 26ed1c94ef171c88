#include "server/group_lag.h"

#include "coordinator/group/group_records.h"
#include "replication/fan_out.h"
#include "server/services.h"
#include "server/shard_state.h"

namespace strata::server {

using replication::Partition;
using replication::run_on_owners;

void group_lag(Services services, unsigned origin, const std::string& group,
               std::function<void(Result<std::vector<PartitionLag>>)> done) {
  auto snap = services.cluster.snapshot();
  const auto* offsets_topic = snap->find(coordinator::kOffsetsTopic);
  if (offsets_topic == nullptr) return done(std::vector<PartitionLag>());
  unsigned target = services.shards.shard_for(
      offsets_topic->uid(PartitionId(coordinator::offsets_partition_for(group))));
  services.shards.shard(target).post([services, target, origin, group, done = std::move(done)] {
    auto fetched = services.shards.state(target).groups().fetch_offsets(group, std::nullopt);
    services.shards.shard(origin).post(
        [services, origin, fetched = std::move(fetched), done]() mutable {
          if (!fetched) return done(fetched.error());
          auto snap = services.cluster.snapshot();
          auto lags = std::make_shared<std::vector<PartitionLag>>();
          std::vector<PartitionUid> uids;
          std::vector<size_t> where;
          for (const auto& f : *fetched) {
            lags->push_back(PartitionLag{f.topic, f.partition, f.offset.offset, -1, 0});
            const auto* t = snap->find(f.topic);
            if (t != nullptr && f.partition < t->partitions) {
              uids.push_back(t->uid(PartitionId(f.partition)));
              where.push_back(lags->size() - 1);
            }
          }
          run_on_owners<int64_t>(
              services.shards, origin, uids,
              [](Partition* p, size_t, std::function<void(int64_t)> cb) {
                cb(p == nullptr ? -1 : p->high_watermark().value());
              },
              [lags, where, done](std::vector<int64_t> hws) {
                for (size_t i = 0; i < hws.size(); ++i) {
                  auto& l = (*lags)[where[i]];
                  l.high_watermark = hws[i];
                  l.lag = hws[i] < 0 ? 0 : std::max<int64_t>(0, hws[i] - l.committed);
                }
                done(std::move(*lags));
              });
        });
  });
}

}  // namespace strata::server
