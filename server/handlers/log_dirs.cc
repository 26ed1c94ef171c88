// DescribeLogDirs: the replicas this broker holds — leaders and followers —
// with their size on disk, and on compacted topics the state of their
// compaction (Strata's tagged fields, kafka/messages/describe_log_dirs.h).
#include <algorithm>
#include <filesystem>
#include <set>

#include <sys/statvfs.h>

#include "replication/fan_out.h"
#include "server/handlers/handlers.h"
#include "server/shard_state.h"

namespace strata::server::handlers {

using replication::Partition;
using replication::run_on_owners;
namespace {

using Resp = kafka::DescribeLogDirsResponse;

Resp::Partition describe_replica(Partition& p, int32_t index) {
  auto& log = p.log();
  Resp::Partition out;
  out.partition_index = index;
  out.partition_size = static_cast<int64_t>(log.segments().size_bytes());
  // Kafka's lag of a current log: how far its end trails the high watermark.
  out.offset_lag = std::max<int64_t>(0, p.high_watermark().value() - log.log_end_offset().value());
  if (log.config().cleanup_compact) {
    auto c = log.compaction().cleanable(p.last_stable_offset());
    out.dirty_bytes = static_cast<int64_t>(c.dirty_bytes);
    out.clean_bytes = static_cast<int64_t>(c.clean_bytes);
    out.last_cleaned_ms = log.compaction().state().last_cleaned_ms;
    out.last_cleaning = log.compaction().last_cleaning();
    out.cleaning_failures = log.compaction().failures();
  }
  return out;
}

}  // namespace

void describe_log_dirs(const RequestContext& ctx, kafka::DescribeLogDirsRequest req,
                       Responder<kafka::DescribeLogDirsResponse> out) {
  auto services = ctx.services();
  auto snap = services.cluster.snapshot();
  // What is asked: the named partitions, each once however often named
  // (unknown ones are left out, as Kafka does), or every partition of
  // every topic.
  std::vector<std::pair<const coordinator::TopicInfo*, int32_t>> asked;
  if (req.topics) {
    std::set<std::pair<std::string, int32_t>> seen;
    for (const auto& t : *req.topics) {
      const auto* topic = snap->find(t.topic);
      if (topic == nullptr) continue;
      for (int32_t p : t.partitions) {
        if (topic->state(p) != nullptr && seen.emplace(t.topic, p).second)
          asked.emplace_back(topic, p);
      }
    }
  } else {
    for (const auto& [name, topic] : snap->topics) {
      for (int32_t p = 0; p < topic->partitions; ++p)
        asked.emplace_back(topic.get(), p);
    }
  }
  // Of those, the replicas placed on this broker.
  std::vector<PartitionUid> uids;
  std::vector<std::pair<std::string, int32_t>> names;
  for (const auto& [topic, p] : asked) {
    const auto& replicas = topic->state(p)->replicas;
    if (std::find(replicas.begin(), replicas.end(), services.cluster.node_id()) == replicas.end())
      continue;
    uids.push_back(topic->uid(PartitionId(p)));
    names.emplace_back(topic->name, p);
  }
  auto dir = std::filesystem::absolute(services.configs.config().data_dir).lexically_normal();
  using Found = std::optional<Resp::Partition>;
  run_on_owners<Found>(
      services.shards, ctx.shard.id(), uids,
      [names](Partition* p, size_t i, std::function<void(Found)> done) {
        // A replica not open here yet (or being deleted) is not on disk.
        done(p == nullptr ? std::nullopt : Found(describe_replica(*p, names[i].second)));
      },
      [names, dir, out](std::vector<Found> found) {
        Resp resp;
        auto& result = resp.results.emplace_back();
        result.log_dir = dir.string();
        for (size_t i = 0; i < found.size(); ++i) {
          if (!found[i]) continue;
          auto t = std::find_if(result.topics.begin(), result.topics.end(),
                                [&](const auto& rt) { return rt.name == names[i].first; });
          if (t == result.topics.end()) {
            t = result.topics.emplace(result.topics.end());
            t->name = names[i].first;
          }
          t->partitions.push_back(*found[i]);
        }
        struct statvfs fs {};
        if (statvfs(dir.c_str(), &fs) == 0) {
          result.total_bytes = static_cast<int64_t>(fs.f_blocks * fs.f_frsize);
          result.usable_bytes = static_cast<int64_t>(fs.f_bavail * fs.f_frsize);
        }
        out.send(resp);
      });
}

}  // namespace strata::server::handlers
