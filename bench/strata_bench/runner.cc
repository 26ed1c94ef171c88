#include "bench/strata_bench/runner.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "bench/strata_bench/accounting.h"
#include "bench/strata_bench/message.h"
#include "bench/strata_bench/process_stats.h"

namespace strata::bench {

bool RunResult::accounting_ok() const {
  if (acked + failed != sent) return false;  // a producer did not flush
  for (const auto& g : groups) {
    if (g.foreign != 0 || g.missing > failed) return false;
  }
  return true;
}

namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

constexpr size_t kMaxErrors = 10;

// Error messages from every thread; only the first few are kept.
class ErrorLog {
 public:
  void add(std::string_view what) {
    std::lock_guard lock(mu_);
    ++count_;
    if (messages_.size() < kMaxErrors) messages_.emplace_back(what);
  }
  std::vector<std::string> take() {
    std::lock_guard lock(mu_);
    if (count_ > messages_.size())
      messages_.push_back("... " + std::to_string(count_ - messages_.size()) + " more");
    return messages_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> messages_;
  uint64_t count_ = 0;
};

struct Window {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  bool contains(int64_t t) const { return t >= start_ns && t < end_ns; }
};

// What one producer thread sees. Written by its thread; the counters the
// main thread samples while it runs are atomics.
struct ProducerState final : AckSink {
  ProducerState(const Window& w, ErrorLog& e, int seconds)
      : window(w), errors(e), timeline(w.start_ns, seconds) {}
  const Window& window;
  ErrorLog& errors;
  std::unique_ptr<Producer> producer;
  std::string topic;
  std::atomic<uint64_t> sent{0};
  uint64_t acked_count = 0;
  uint64_t failed_count = 0;
  uint64_t acked_in_window = 0;
  LatencyHistogram publish_latency;
  TimelineRecorder timeline;
  bool flushed = false;

  void acked(int64_t send_ns) override {
    ++acked_count;
    if (window.contains(send_ns)) {
      ++acked_in_window;
      int64_t latency = steady_now_ns() - send_ns;
      publish_latency.record(latency);
      timeline.publish(send_ns, latency);
    }
  }
  void failed(std::string_view error) override {
    ++failed_count;
    errors.add("publish: " + std::string(error));
  }
};

// Per consumer group: what its members received.
struct GroupState {
  GroupState(std::string n, int producers) : name(std::move(n)), accounting(producers) {}
  std::string name;
  GroupAccounting accounting;
  std::atomic<uint64_t> received{0};
  std::atomic<uint64_t> received_in_window{0};
  std::atomic<uint64_t> bytes_in_window{0};
};

// One consumer thread's sink: stamps of a poll go to the group's accounting
// in one batch.
struct ConsumerState final : MessageSink {
  ConsumerState(const Window& w, GroupState& g, int seconds)
      : window(w), group(g), timeline(w.start_ns, seconds) {}
  const Window& window;
  GroupState& group;
  std::unique_ptr<Consumer> consumer;
  LatencyHistogram e2e_latency;
  TimelineRecorder timeline;
  std::vector<Stamp> batch;
  uint64_t bytes = 0;
  uint64_t in_window = 0;
  uint64_t unstamped = 0;

  void received(std::string_view value) override {
    int64_t now = steady_now_ns();
    auto stamp = read_stamp(value);
    if (!stamp) {
      ++unstamped;
      return;
    }
    if (window.contains(stamp->send_ns)) {
      e2e_latency.record(now - stamp->send_ns);
      timeline.e2e(stamp->send_ns, now - stamp->send_ns);
    }
    if (window.contains(now)) {
      ++in_window;
      bytes += value.size();
    }
    batch.push_back(*stamp);
  }
  // Publishes what the last poll received.
  void commit() {
    group.accounting.record(batch);
    group.received.fetch_add(batch.size(), std::memory_order_relaxed);
    group.received_in_window.fetch_add(in_window, std::memory_order_relaxed);
    group.bytes_in_window.fetch_add(bytes, std::memory_order_relaxed);
    batch.clear();
    bytes = in_window = 0;
  }
};

// Sends until the window closes, paced at `rate` msg/s (0: unthrottled),
// then flushes.
void produce_loop(ProducerState& p, const Workload& w, int index, double rate, int64_t stop_ns,
                  milliseconds flush_timeout) {
  std::string value(static_cast<size_t>(w.message_size), 'x');
  std::string key;
  std::mt19937_64 rng(0x5eed + static_cast<uint64_t>(index));
  std::uniform_int_distribution<int> pick_key(0, std::max(w.key_count - 1, 0));
  const int64_t interval_ns = rate > 0 ? static_cast<int64_t>(1e9 / rate) : 0;
  int64_t next_due = steady_now_ns();
  uint64_t seq = 0;
  for (int64_t now = steady_now_ns(); now < stop_ns; now = steady_now_ns()) {
    if (interval_ns > 0 && next_due > now) {
      p.producer->poll(milliseconds(0));
      std::this_thread::sleep_for(nanoseconds(std::min<int64_t>(next_due - now, 1'000'000)));
      continue;
    }
    int partition = -1;
    key.clear();
    if (w.keys != KeyDistribution::kNone) {
      int k = w.keys == KeyDistribution::kUniform
                  ? pick_key(rng)
                  : static_cast<int>(
                        (seq * static_cast<uint64_t>(w.producers) + static_cast<uint64_t>(index)) %
                        static_cast<uint64_t>(std::max(w.key_count, 1)));
      key = "key-" + std::to_string(k);
      // The same key lands on the same partition with every driver.
      partition =
          static_cast<int>(std::hash<std::string>{}(key) % static_cast<size_t>(w.partitions));
    }
    write_stamp(value.data(), Stamp{steady_now_ns(), static_cast<uint32_t>(index), seq});
    Status s = p.producer->send(partition, key, value);
    p.sent.store(++seq, std::memory_order_relaxed);
    if (!s) p.failed(s.error().message());
    next_due += interval_ns;
    if ((seq & 255) == 0) p.producer->poll(milliseconds(0));
  }
  Status f = p.producer->flush(flush_timeout);
  p.flushed = f.ok();
  if (!f) p.errors.add("flush: " + f.error().message());
}

void consume_loop(ConsumerState& c, const std::atomic<bool>& stop, ErrorLog& errors) {
  uint64_t consecutive_errors = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    auto n = c.consumer->poll(milliseconds(100), c);
    c.commit();
    if (!n) {
      errors.add("consume (" + c.group.name + "): " + n.error().message());
      // A broken consumer must not spin; back off a little more each time.
      std::this_thread::sleep_for(milliseconds(std::min<uint64_t>(10 * ++consecutive_errors, 500)));
    } else {
      consecutive_errors = 0;
    }
  }
}

// Waits (bounded) until every group's members together hold every
// partition of the workload, so that producing starts only once each group
// reads: a group's initial join (group.initial.rebalance.delay.ms and the
// rebalance) is not latency. Members of systems without assignments count
// as ready at once.
void wait_for_assignments(const std::vector<std::unique_ptr<ConsumerState>>& consumers,
                          const Workload& w, ErrorLog& errors) {
  constexpr int64_t kJoinTimeoutNs = 60'000'000'000;
  const int want = w.partitions * static_cast<int>(w.topic_names().size());
  const int64_t deadline = steady_now_ns() + kJoinTimeoutNs;
  for (;;) {
    std::map<const GroupState*, int> held;
    bool assignments = false;
    for (const auto& c : consumers) {
      int n = c->consumer->assigned_partitions();
      if (n < 0) continue;
      assignments = true;
      held[&c->group] += n;
    }
    bool all = std::all_of(held.begin(), held.end(), [&](auto& g) { return g.second >= want; });
    if (!assignments || all) return;
    if (steady_now_ns() >= deadline) {
      for (const auto& [g, n] : held) {
        if (n < want) {
          errors.add("group " + g->name + " holds " + std::to_string(n) + " of " +
                     std::to_string(want) + " partitions after 60 s; producing anyway");
        }
      }
      return;
    }
    std::this_thread::sleep_for(milliseconds(20));
  }
}

struct Watched {
  pid_t pid;
  std::string name;
  ProcessSample at_start;
};

ProcessResult finish_watch(const Watched& w, double window_s) {
  ProcessResult r;
  r.pid = w.pid;
  r.name = w.name;
  if (auto end = sample_process(w.pid)) {
    r.cpu_seconds = end->cpu_seconds - w.at_start.cpu_seconds;
    r.cpu_cores = window_s > 0 ? r.cpu_seconds / window_s : 0;
    r.rss_bytes = end->rss_bytes;
    r.peak_rss_bytes = end->peak_rss_bytes;
  }
  return r;
}

}  // namespace

Result<RunResult> run_workload(Driver& driver, const Workload& w, const RunOptions& options) {
  STRATA_TRY(w.validate());
  STRATA_TRY(driver.prepare(w));
  const auto topics = w.topic_names();
  ErrorLog errors;
  // The window's times are set once the clients exist (below).
  Window window;
  const int seconds = static_cast<int>(std::ceil(w.duration_s));

  // Clients are made before any thread starts, consumers first so their
  // groups exist before the first message.
  std::vector<std::unique_ptr<GroupState>> groups;
  for (const auto& name : w.group_names())
    groups.push_back(std::make_unique<GroupState>(name, w.producers));
  std::vector<std::unique_ptr<ConsumerState>> consumers;
  for (auto& g : groups) {
    for (const auto& topic : topics) {
      for (int m = 0; m < w.consumers_per_group; ++m) {
        auto c = std::make_unique<ConsumerState>(window, *g, seconds);
        STRATA_ASSIGN_OR_RETURN(c->consumer,
                                driver.consumer(w, topic, g->name, m, w.consumers_per_group));
        consumers.push_back(std::move(c));
      }
    }
  }
  std::vector<std::unique_ptr<ProducerState>> producers;
  for (int i = 0; i < w.producers; ++i) {
    auto p = std::make_unique<ProducerState>(window, errors, seconds);
    p->topic = topics[static_cast<size_t>(i) % topics.size()];
    STRATA_ASSIGN_OR_RETURN(p->producer, driver.producer(w, p->topic, i, *p));
    producers.push_back(std::move(p));
  }

  std::atomic<bool> stop_consumers{false};
  std::vector<std::thread> consumer_threads, producer_threads;
  for (auto& c : consumers)
    consumer_threads.emplace_back(
        [&c, &stop_consumers, &errors] { consume_loop(*c, stop_consumers, errors); });
  wait_for_assignments(consumers, w, errors);

  const int64_t t0 = steady_now_ns();
  window.start_ns = t0 + static_cast<int64_t>(w.warmup_s * 1e9);
  window.end_ns = window.start_ns + static_cast<int64_t>(w.duration_s * 1e9);
  for (auto& p : producers)
    p->timeline.start_at(window.start_ns);
  for (auto& c : consumers)
    c->timeline.start_at(window.start_ns);
  const double window_s = w.duration_s;
  const milliseconds flush_timeout(static_cast<int64_t>(std::max(w.drain_timeout_s, 10.0) * 1000));

  const double per_producer_rate = w.rate / w.producers;
  for (int i = 0; i < w.producers; ++i)
    producer_threads.emplace_back([&, i] {
      produce_loop(*producers[static_cast<size_t>(i)], w, i, per_producer_rate, window.end_ns,
                   flush_timeout);
    });

  auto sleep_until_ns = [](int64_t t) {
    int64_t now = steady_now_ns();
    if (t > now) std::this_thread::sleep_for(nanoseconds(t - now));
  };
  auto sent_now = [&] {
    uint64_t n = 0;
    for (auto& p : producers)
      n += p->sent.load(std::memory_order_relaxed);
    return n;
  };
  auto report_progress = [&](int64_t now) {
    if (!options.progress) return;
    std::string line =
        "[" + std::to_string((now - t0) / 1'000'000'000) + "s] sent " + std::to_string(sent_now());
    for (auto& g : groups)
      line += ", " + g->name + " " + std::to_string(g->received.load());
    std::fprintf(stderr, "%s\n", line.c_str());
  };

  // Sleeps until `until`, reporting progress once a second of the run.
  int64_t next_tick = t0 + 1'000'000'000;
  auto wait_until = [&](int64_t until) {
    for (;;) {
      sleep_until_ns(std::min(until, next_tick));
      if (steady_now_ns() >= next_tick) {
        report_progress(next_tick);
        next_tick += 1'000'000'000;
      }
      if (steady_now_ns() >= until) return;
    }
  };
  auto sample_or_zero = [](pid_t pid) {
    auto s = sample_process(pid);
    return s ? *s : ProcessSample{};
  };

  wait_until(window.start_ns);
  Watched self{::getpid(), "strata-bench", sample_or_zero(::getpid())};
  std::vector<Watched> watched;
  for (pid_t pid : options.watch_pids) {
    auto name = process_name(pid);
    watched.push_back({pid, name ? *name : "?", sample_or_zero(pid)});
  }
  // Once a second of the window: CPU of every watched process over that
  // second, and the page cache's dirty and writeback bytes at its end.
  Timeline timeline(seconds);
  {
    std::vector<Watched> all = watched;
    all.push_back(self);
    std::vector<double> cpu_before;
    for (const auto& wp : all)
      cpu_before.push_back(wp.at_start.cpu_seconds);
    int64_t before_ns = window.start_ns;
    for (int i = 0; i < seconds; ++i) {
      wait_until(std::min(window.start_ns + (i + 1) * int64_t{1'000'000'000}, window.end_ns));
      int64_t now = steady_now_ns();
      auto& sec = timeline.second(static_cast<size_t>(i));
      double elapsed_s = static_cast<double>(std::max<int64_t>(now - before_ns, 1)) / 1e9;
      for (size_t k = 0; k < all.size(); ++k) {
        double cpu = sample_or_zero(all[k].pid).cpu_seconds;
        sec.cpu_cores[all[k].name] = (cpu - cpu_before[k]) / elapsed_s;
        cpu_before[k] = cpu;
      }
      sec.wall_ms = std::chrono::duration_cast<milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
      if (auto pc = sample_page_cache()) {
        sec.dirty_bytes = pc->dirty_bytes;
        sec.writeback_bytes = pc->writeback_bytes;
        sec.cached_bytes = pc->cached_bytes;
      }
      before_ns = now;
    }
  }

  // The window has closed: sample everything at once.
  RunResult r;
  r.workload = w;
  r.driver = std::string(driver.name());
  r.window_seconds = window_s;
  r.client = finish_watch(self, window_s);
  for (const auto& wp : watched)
    r.processes.push_back(finish_watch(wp, window_s));
  const uint64_t sent_at_end = sent_now();
  std::vector<int64_t> lag_at_end;
  for (auto& g : groups)
    lag_at_end.push_back(static_cast<int64_t>(sent_at_end) -
                         static_cast<int64_t>(g->received.load()));

  for (auto& t : producer_threads)
    t.join();
  const int64_t producers_done = steady_now_ns();
  std::vector<uint64_t> sent_by_producer;
  for (auto& p : producers) {
    r.sent += p->sent.load();
    r.acked += p->acked_count;
    r.failed += p->failed_count;
    r.acked_in_window += p->acked_in_window;
    r.publish_latency.merge(p->publish_latency);
    timeline.merge(p->timeline);
    sent_by_producer.push_back(p->sent.load());
  }
  // Unflushed messages count as failed: their fate is unknown.
  r.failed = std::max(r.failed, r.sent - std::min(r.sent, r.acked));

  // Drain: wait until every group has every message that was not refused.
  const uint64_t expected = r.sent - r.failed;
  const int64_t drain_deadline = producers_done + static_cast<int64_t>(w.drain_timeout_s * 1e9);
  std::vector<int64_t> drained_at(groups.size(), -1);
  for (;;) {
    int64_t now = steady_now_ns();
    bool all = true;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (drained_at[i] < 0 && groups[i]->accounting.unique() >= expected) drained_at[i] = now;
      all = all && drained_at[i] >= 0;
    }
    if (all || now >= drain_deadline) break;
    std::this_thread::sleep_for(milliseconds(20));
  }
  stop_consumers = true;
  for (auto& t : consumer_threads)
    t.join();
  for (auto& c : consumers) {
    r.e2e_latency.merge(c->e2e_latency);
    timeline.merge(c->timeline);
    if (c->unstamped > 0)
      errors.add(std::to_string(c->unstamped) + " message(s) without a stamp in " + c->group.name);
    if (Status s = c->consumer->close(); !s) errors.add("close consumer: " + s.error().message());
  }

  for (size_t i = 0; i < groups.size(); ++i) {
    auto& g = *groups[i];
    GroupResult gr;
    gr.name = g.name;
    gr.received = g.received.load();
    gr.received_in_window = g.received_in_window.load();
    gr.msgs_per_s = static_cast<double>(gr.received_in_window) / window_s;
    gr.mb_per_s = static_cast<double>(g.bytes_in_window.load()) / window_s / 1e6;
    gr.unique = g.accounting.unique();
    gr.duplicates = g.accounting.duplicates();
    gr.foreign = g.accounting.foreign();
    gr.missing = g.accounting.missing(sent_by_producer);
    gr.lag_at_window_end = lag_at_end[i];
    gr.drained = drained_at[i] >= 0;
    gr.drain_seconds =
        gr.drained ? static_cast<double>(std::max<int64_t>(drained_at[i] - producers_done, 0)) / 1e9
                   : w.drain_timeout_s;
    r.groups.push_back(gr);
  }
  r.produce_msgs_per_s = static_cast<double>(r.acked_in_window) / window_s;
  r.produce_mb_per_s = r.produce_msgs_per_s * w.message_size / 1e6;
  r.errors = errors.take();
  r.timeline = std::move(timeline);
  if (Status s = driver.cleanup(w); !s) r.errors.push_back("cleanup: " + s.error().message());
  return r;
}

}  // namespace strata::bench
