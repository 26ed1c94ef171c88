// Timeline: what happened in each second of the measured window, so a tail
// is seen where it happens instead of guessed from a run's percentiles.
//
// Latencies go into the second their message was sent in; counts into the
// second they happened in. Each thread records into its own
// TimelineRecorder (no locks on the hot path); the runner merges them and
// adds what it sampled once a second (the watched processes' CPU, the
// kernel's dirty and writeback page-cache bytes).
//
//   TimelineRecorder rec(window_start_ns, seconds);
//   rec.publish(send_ns, latency_ns);      // a producer thread
//   timeline.merge(rec);                   // the runner, after the run
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "bench/strata_bench/histogram.h"

namespace strata::bench {

class TimelineRecorder {
 public:
  TimelineRecorder(int64_t start_ns, int seconds) : start_ns_(start_ns), seconds_(seconds) {}
  // Moves the window's start (before anything is recorded).
  void start_at(int64_t start_ns) { start_ns_ = start_ns; }

  void publish(int64_t send_ns, int64_t latency_ns) { at(publish_, send_ns).record(latency_ns); }
  void e2e(int64_t send_ns, int64_t latency_ns) { at(e2e_, send_ns).record(latency_ns); }

 private:
  friend class Timeline;
  using Seconds = std::vector<std::unique_ptr<LatencyHistogram>>;
  LatencyHistogram& at(Seconds& s, int64_t t_ns);

  int64_t start_ns_;
  int seconds_;
  Seconds publish_, e2e_;
  LatencyHistogram discard_;  // samples outside the window
};

// The kernel's page cache state (/proc/meminfo), in bytes.
struct PageCacheSample {
  uint64_t dirty_bytes = 0;
  uint64_t writeback_bytes = 0;
  uint64_t cached_bytes = 0;  // every page the cache holds, clean ones too
};
Result<PageCacheSample> sample_page_cache();

struct TimelineSecond {
  LatencyHistogram publish;
  LatencyHistogram e2e;
  uint64_t dirty_bytes = 0;                 // sampled at the end of the second
  uint64_t writeback_bytes = 0;             // sampled at the end of the second
  uint64_t cached_bytes = 0;                // sampled at the end of the second
  int64_t wall_ms = 0;                      // the wall clock at the end of the second
  std::map<std::string, double> cpu_cores;  // per watched process, over the second
};

class Timeline {
 public:
  explicit Timeline(int seconds) : seconds_(static_cast<size_t>(seconds)) {}

  void merge(const TimelineRecorder& r);
  // What the runner sampled at the end of second `i`.
  TimelineSecond& second(size_t i) { return seconds_.at(i); }
  const std::vector<TimelineSecond>& seconds() const { return seconds_; }

 private:
  std::vector<TimelineSecond> seconds_;
};

}  // namespace strata::bench
