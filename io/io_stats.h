// IoStats: how long one shard's disk operations took, submission to
// completion, and how late its loop ran a handler that was due: the numbers
// that tell a broker-side tail from a client-side one.
//
//   auto snap = ring.stats();   // copy, then
//   ring.reset_stats();         // once per reporting interval
//   snap.sync.quantile_us(0.99);
//
// Recording is a few arithmetic operations (log2 buckets), cheap enough to
// be always on. Thread-safety: the shard's thread only.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace strata::io {

// A latency distribution in power-of-two microsecond buckets: bucket i holds
// values in [2^(i-1), 2^i) us (bucket 0: below 1 us). Quantiles answer the
// upper bound of their bucket, i.e. within a factor of two; max is exact.
class LatencySummary {
 public:
  void record(uint64_t us);
  uint64_t count() const { return count_; }
  uint64_t max_us() const { return max_us_; }
  uint64_t quantile_us(double q) const;
  void reset() { *this = LatencySummary(); }

 private:
  std::array<uint64_t, 40> buckets_{};
  uint64_t count_ = 0;
  uint64_t max_us_ = 0;
};

struct IoStats {
  LatencySummary write;     // writev submitted -> completed
  LatencySummary read;      // read submitted -> completed
  LatencySummary sync;      // fdatasync/fsync submitted -> completed
  LatencySummary loop_lag;  // a timer due -> its handler running

  // One JSON object: {"write":{"n":..,"p50_us":..,"p99_us":..,"max_us":..},...}
  std::string to_json() const;
};

}  // namespace strata::io
