// strata consume: read a topic from the beginning, the end, an offset, a
// time, or as a member of a group.
// strata replay: a bounded replay of an offset or time range that stops
// exactly at the end of the range, optionally merging partitions in
// timestamp order.
#include <atomic>
#include <csignal>
#include <deque>
#include <map>

#include <fmt/format.h>
#include <unistd.h>

#include "tools/commands.h"
#include "tools/message_format.h"
#include "tools/output.h"
#include "tools/time_spec.h"

namespace strata::tools {
namespace {

std::atomic<bool> interrupted{false};

void on_signal(int) {
  interrupted = true;
}

struct MessageDeleter {
  void operator()(rd_kafka_message_t* m) const { rd_kafka_message_destroy(m); }
};
using Message = std::unique_ptr<rd_kafka_message_t, MessageDeleter>;

struct Range {
  int32_t partition = 0;
  int64_t start = 0;
  int64_t end = -1;  // exclusive; -1 = no end
  bool done = false;
};

Result<std::vector<int32_t>> pick_partitions(const Kafka::Topic& topic,
                                             const std::vector<int>& wanted) {
  std::vector<int32_t> out;
  if (wanted.empty()) {
    for (const auto& p : topic.partitions)
      out.push_back(p.id);
    return out;
  }
  for (int p : wanted) {
    if (p < 0 || p >= static_cast<int>(topic.partitions.size())) {
      return Error(Errc::kInvalidArgument, fmt::format("topic {} has no partition {} (it has {})",
                                                       topic.name, p, topic.partitions.size()));
    }
    out.push_back(p);
  }
  return out;
}

Status assign(Kafka& k, const std::string& topic, const std::vector<Range>& ranges) {
  auto* list = rd_kafka_topic_partition_list_new(static_cast<int>(ranges.size()));
  for (const auto& r : ranges) {
    if (!r.done)
      rd_kafka_topic_partition_list_add(list, topic.c_str(), r.partition)->offset = r.start;
  }
  auto err = rd_kafka_assign(k.rk(), list);
  rd_kafka_topic_partition_list_destroy(list);
  if (err) return kafka_error(err, "assign");
  return ok_status();
}

// Polls until every bounded range is done, `limit` messages were handed to
// `emit`, or the user interrupts. Messages outside their range are skipped;
// `keep` may drop more (time filters).
Status drain(Kafka& k, std::vector<Range>& ranges, int64_t limit,
             const std::function<bool(const rd_kafka_message_t*)>& keep,
             const std::function<void(Message)>& emit, const std::function<void()>& progress) {
  std::map<int32_t, Range*> by_partition;
  for (auto& r : ranges)
    by_partition[r.partition] = &r;
  auto all_done = [&] {
    return std::all_of(ranges.begin(), ranges.end(), [](const Range& r) { return r.done; });
  };
  bool bounded =
      std::all_of(ranges.begin(), ranges.end(), [](const Range& r) { return r.end >= 0; });
  int64_t emitted = 0;
  while (!interrupted && !(bounded && all_done()) && (limit < 0 || emitted < limit)) {
    Message m(rd_kafka_consumer_poll(k.rk(), 100));
    if (!m) continue;
    auto it = by_partition.find(m->partition);
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      if (it != by_partition.end() && it->second->end >= 0 && m->offset >= it->second->end) {
        it->second->done = true;
      }
      continue;
    }
    if (m->err) {
      if (m->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) {
        return kafka_error(
            m->err, fmt::format("partition {} offset {}", m->partition, m->offset),
            "the offset is outside the log (deleted by retention, or not written yet)");
      }
      return kafka_error(m->err, "consume", rd_kafka_message_errstr(m.get()));
    }
    if (it == by_partition.end()) continue;
    Range& r = *it->second;
    if (r.done || m->offset < r.start) continue;
    if (r.end >= 0 && m->offset >= r.end) {
      r.done = true;
      continue;
    }
    if (r.end >= 0 && m->offset + 1 >= r.end) r.done = true;
    if (keep && !keep(m.get())) continue;
    ++emitted;
    emit(std::move(m));
    if (progress) progress();
  }
  return ok_status();
}

struct ConsumeOptions {
  std::string topic;
  std::vector<int> partitions;
  bool from_beginning = false;
  bool from_end = false;
  int64_t offset = -1;
  std::string time;
  std::string group;
  int64_t count = -1;
  bool exit_at_end = false;
  std::string format;
};

Status consume(const Globals& g, const ConsumeOptions& o) {
  STRATA_ASSIGN_OR_RETURN(Format format, parse_format(o.format, g.json));
  int starts = (o.from_beginning ? 1 : 0) + (o.from_end ? 1 : 0) + (o.offset >= 0 ? 1 : 0) +
               (o.time.empty() ? 0 : 1);
  if (starts > 1) {
    return Error(Errc::kInvalidArgument,
                 "give at most one of --from-beginning, --from-end, --offset, --time");
  }
  std::optional<int64_t> at_time;
  if (!o.time.empty()) {
    STRATA_ASSIGN_OR_RETURN(int64_t t, parse_time(o.time));
    at_time = t;
  }
  std::map<std::string, std::string> conf = {{"enable.partition.eof", "true"}};
  if (!o.group.empty()) {
    conf["group.id"] = o.group;
    conf["auto.offset.reset"] = o.from_end ? "latest" : "earliest";
  } else {
    conf["group.id"] = "strata-cli";  // required by librdkafka; nothing is committed
    conf["enable.auto.commit"] = "false";
  }
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kConsumer, conf));
  STRATA_ASSIGN_OR_RETURN(auto topic, k->topic(o.topic));
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  auto emit = [format](Message m) {
    print_message(m.get(), format);
    std::fflush(stdout);
  };
  if (!o.group.empty()) {
    if (!o.partitions.empty() || o.offset >= 0 || at_time) {
      return Error(Errc::kInvalidArgument,
                   "--group reads what the group is assigned: no --partition, --offset or --time");
    }
    auto* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, o.topic.c_str(), RD_KAFKA_PARTITION_UA);
    rd_kafka_poll_set_consumer(k->rk());
    auto err = rd_kafka_subscribe(k->rk(), list);
    rd_kafka_topic_partition_list_destroy(list);
    if (err) return kafka_error(err, "subscribe");
    int64_t n = 0;
    Status st = ok_status();
    while (!interrupted && (o.count < 0 || n < o.count)) {
      Message m(rd_kafka_consumer_poll(k->rk(), 100));
      if (!m) continue;
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        if (o.exit_at_end) {
          // Stop once every assigned partition reported its end.
          rd_kafka_topic_partition_list_t* assigned = nullptr;
          rd_kafka_assignment(k->rk(), &assigned);
          bool at_end = true;
          rd_kafka_position(k->rk(), assigned);
          for (int i = 0; assigned && i < assigned->cnt; ++i) {
            int64_t lo, hi;
            rd_kafka_get_watermark_offsets(k->rk(), o.topic.c_str(), assigned->elems[i].partition,
                                           &lo, &hi);
            if (assigned->elems[i].offset < hi) at_end = false;
          }
          if (assigned) rd_kafka_topic_partition_list_destroy(assigned);
          if (at_end) break;
        }
        continue;
      }
      if (m->err) {
        st = kafka_error(m->err, "consume", rd_kafka_message_errstr(m.get()));
        break;
      }
      emit(std::move(m));
      ++n;
    }
    rd_kafka_consumer_close(k->rk());
    return st;
  }
  STRATA_ASSIGN_OR_RETURN(auto parts, pick_partitions(topic, o.partitions));
  std::vector<Range> ranges;
  std::vector<int64_t> time_offsets;
  if (at_time) {
    STRATA_ASSIGN_OR_RETURN(time_offsets, k->offsets_for_times(o.topic, parts, *at_time));
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(auto wm, k->watermarks(o.topic, parts[i]));
    Range r;
    r.partition = parts[i];
    if (o.offset >= 0) {
      if (o.offset < wm.first) {
        return Error(Errc::kIoError,
                     fmt::format("offset {} of partition {} is before the log start {}", o.offset,
                                 parts[i], wm.first));
      }
      r.start = o.offset;
    } else if (at_time) {
      r.start = time_offsets[i] < 0 ? wm.second : time_offsets[i];
    } else {
      r.start = o.from_end ? wm.second : wm.first;
    }
    if (o.exit_at_end) r.end = wm.second;
    if (r.end >= 0 && r.start >= r.end) r.done = true;
    ranges.push_back(r);
  }
  STRATA_TRY(assign(*k, o.topic, ranges));
  auto st = drain(*k, ranges, o.count, nullptr, emit, nullptr);
  rd_kafka_consumer_close(k->rk());
  return st;
}

struct ReplayOptions {
  std::string topic;
  std::vector<int> partitions;
  std::string from;
  std::string to;
  std::string from_time;
  std::string to_time;
  bool merge = false;
  std::string format;
};

Status replay(const Globals& g, const ReplayOptions& o) {
  STRATA_ASSIGN_OR_RETURN(Format format, parse_format(o.format, g.json));
  if (!o.from.empty() && !o.from_time.empty())
    return Error(Errc::kInvalidArgument, "give --from or --from-time, not both");
  if (!o.to.empty() && !o.to_time.empty())
    return Error(Errc::kInvalidArgument, "give --to or --to-time, not both");
  if (o.from.empty() && o.from_time.empty())
    return Error(Errc::kInvalidArgument, "--from (or --from-time) is required");
  Position from, to{Position::Kind::kOffset, -1};
  if (!o.from.empty()) {
    STRATA_ASSIGN_OR_RETURN(from, parse_position(o.from));
  } else {
    STRATA_ASSIGN_OR_RETURN(int64_t t, parse_time(o.from_time));
    from = {Position::Kind::kTime, t};
  }
  if (!o.to.empty()) {
    STRATA_ASSIGN_OR_RETURN(to, parse_position(o.to));
  } else if (!o.to_time.empty()) {
    STRATA_ASSIGN_OR_RETURN(int64_t t, parse_time(o.to_time));
    to = {Position::Kind::kTime, t};
  }
  if (to.value >= 0 && from.kind == to.kind && to.value < from.value) {
    return Error(Errc::kInvalidArgument, "the range ends before it starts");
  }
  std::map<std::string, std::string> conf = {{"enable.partition.eof", "true"},
                                             {"group.id", "strata-cli"},
                                             {"enable.auto.commit", "false"}};
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kConsumer, conf));
  STRATA_ASSIGN_OR_RETURN(auto topic, k->topic(o.topic));
  STRATA_ASSIGN_OR_RETURN(auto parts, pick_partitions(topic, o.partitions));
  std::vector<int64_t> from_times, to_times;
  if (from.kind == Position::Kind::kTime) {
    STRATA_ASSIGN_OR_RETURN(from_times, k->offsets_for_times(o.topic, parts, from.value));
  }
  if (to.kind == Position::Kind::kTime && to.value >= 0) {
    STRATA_ASSIGN_OR_RETURN(to_times, k->offsets_for_times(o.topic, parts, to.value));
  }
  std::vector<Range> ranges;
  int64_t total = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(auto wm, k->watermarks(o.topic, parts[i]));
    Range r;
    r.partition = parts[i];
    if (from.kind == Position::Kind::kOffset) {
      if (from.value < wm.first) {
        return Error(
            Errc::kIoError,
            fmt::format("the range starts at offset {}, before the log start {} of partition {} "
                        "(older records were deleted)",
                        from.value, wm.first, parts[i]));
      }
      r.start = from.value;
    } else {
      r.start = from_times[i] < 0 ? wm.second : from_times[i];
    }
    // The range ends where --to says, and never after what exists now.
    r.end = wm.second;
    if (to.value >= 0) {
      int64_t e = to.kind == Position::Kind::kOffset ? to.value
                                                     : (to_times[i] < 0 ? wm.second : to_times[i]);
      r.end = std::min(r.end, e);
    }
    if (r.start >= r.end) {
      r.done = true;
    } else {
      total += r.end - r.start;
    }
    ranges.push_back(r);
  }
  STRATA_TRY(assign(*k, o.topic, ranges));
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  // Records outside the time range (timestamps need not be monotonic).
  std::function<bool(const rd_kafka_message_t*)> keep;
  if (from.kind == Position::Kind::kTime || to.kind == Position::Kind::kTime) {
    int64_t lo = from.kind == Position::Kind::kTime ? from.value : INT64_MIN;
    int64_t hi = to.kind == Position::Kind::kTime && to.value >= 0 ? to.value : INT64_MAX;
    keep = [lo, hi](const rd_kafka_message_t* m) {
      int64_t ts = rd_kafka_message_timestamp(m, nullptr);
      return ts >= lo && ts < hi;
    };
  }
  int64_t seen = 0;
  bool tty = isatty(STDERR_FILENO) != 0;
  auto progress = [&] {
    ++seen;
    if (tty && (seen % 1000 == 0))
      std::fprintf(stderr, "\rreplayed %lld of at most %lld", static_cast<long long>(seen),
                   static_cast<long long>(total));
  };
  Status st = ok_status();
  int64_t printed = 0;
  if (!o.merge) {
    st = drain(
        *k, ranges, -1, keep,
        [&](Message m) {
          print_message(m.get(), format);
          ++printed;
        },
        progress);
  } else {
    // Merge: hold each partition's next message; print the earliest head
    // whenever every unfinished partition has one.
    std::map<int32_t, std::deque<Message>> heads;
    auto flush_ready = [&](bool final) {
      while (true) {
        int32_t best = -1;
        int64_t best_ts = INT64_MAX;
        for (const auto& r : ranges) {
          auto& q = heads[r.partition];
          if (q.empty()) {
            if (!r.done && !final) return;  // must wait for this partition
            continue;
          }
          int64_t ts = rd_kafka_message_timestamp(q.front().get(), nullptr);
          if (ts < best_ts) {
            best_ts = ts;
            best = r.partition;
          }
        }
        if (best < 0) return;
        print_message(heads[best].front().get(), format);
        ++printed;
        heads[best].pop_front();
      }
    };
    st = drain(
        *k, ranges, -1, keep,
        [&](Message m) {
          int32_t p = m->partition;
          heads[p].push_back(std::move(m));
          flush_ready(false);
        },
        progress);
    if (st) flush_ready(true);
  }
  if (tty) std::fprintf(stderr, "\r");
  rd_kafka_consumer_close(k->rk());
  if (!st) return st;
  if (interrupted) return Error(Errc::kIoError, "interrupted");
  if (!g.json && format != Format::kJson) {
    std::fprintf(stderr, "replayed %lld message(s) from %zu partition(s)\n",
                 static_cast<long long>(printed), ranges.size());
  }
  return ok_status();
}

}  // namespace

void add_consume_commands(CLI::App& app, Globals& g, Action& action) {
  auto o = std::make_shared<ConsumeOptions>();
  auto* c = app.add_subcommand(
      "consume",
      "Read messages: from the beginning, the end, an offset, a time, or as a group member");
  c->add_option("-t,--topic", o->topic, "Topic")->required();
  c->add_option("-p,--partition", o->partitions, "Only these partitions (repeatable)");
  c->add_flag("--from-beginning", o->from_beginning, "Start at the log start (the default)");
  c->add_flag("--from-end", o->from_end, "Start at the end: only new messages");
  c->add_option("-o,--offset", o->offset, "Start at this offset")->check(CLI::NonNegativeNumber);
  c->add_option("--time", o->time,
                "Start at the first message at or after this time (RFC 3339 or epoch ms)");
  c->add_option("-g,--group", o->group,
                "Consume as a member of this group (offsets are committed)");
  c->add_option("-n,--count", o->count, "Stop after this many messages")
      ->check(CLI::NonNegativeNumber);
  c->add_flag("-e,--exit", o->exit_at_end,
              "Stop at the end of the partitions as they were at the start");
  c->add_option("-f,--format", o->format, "text (default), json or raw");
  c->callback([&, o] { action = [&g, o] { return consume(g, *o); }; });

  auto r = std::make_shared<ReplayOptions>();
  auto* rp = app.add_subcommand(
      "replay",
      "Replay a range of a topic and stop at its end. Positions are offsets (1234), times "
      "(2026-11-29T08:00:00Z) or epoch milliseconds prefixed with @ (@1764403200000); "
      "--from is inclusive, --to exclusive");
  rp->add_option("-t,--topic", r->topic, "Topic")->required();
  rp->add_option("-p,--partition", r->partitions, "Only these partitions (repeatable)");
  rp->add_option("--from", r->from, "Start: an offset, a time, or @epoch-ms");
  rp->add_option("--to", r->to,
                 "End (exclusive): an offset, a time, or @epoch-ms; default: the current end");
  rp->add_option("--from-time", r->from_time, "Start time (RFC 3339 or epoch ms)");
  rp->add_option("--to-time", r->to_time, "End time, exclusive (RFC 3339 or epoch ms)");
  rp->add_flag("-m,--merge", r->merge, "Merge partitions in timestamp order");
  rp->add_option("-f,--format", r->format, "text (default), json or raw");
  rp->callback([&, r] { action = [&g, r] { return replay(g, *r); }; });
}

}  // namespace strata::tools
