// LatencyHistogram: a high-dynamic-range histogram of nanosecond values.
//
// Log-linear buckets: exact below 128 ns, then 128 sub-buckets per power of
// two, so any recorded value is reported within 1/128 (< 0.8%) of itself
// from 0 to 2^63 ns. Fixed memory (about 60 KiB), O(1) record, mergeable:
// each thread keeps its own and the runner adds them up. (HdrHistogram's C
// library is not packaged in Debian; this is the small part of it we need.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata::bench {

class LatencyHistogram {
 public:
  LatencyHistogram();

  void record(int64_t value_ns);  // negative values count as 0
  void merge(const LatencyHistogram& other);
  void reset();

  uint64_t count() const { return count_; }
  int64_t min() const { return count_ == 0 ? 0 : min_; }
  int64_t max() const { return max_; }
  double mean() const;
  // The value at quantile q in [0, 1]: the highest value that falls in the
  // same bucket as the ceil(q * count)-th smallest recorded value (clamped
  // to max). 0 when empty.
  int64_t quantile(double q) const;

  // Bucket arithmetic, public for tests.
  static size_t bucket_of(uint64_t v);
  static uint64_t bucket_low(size_t b);
  static uint64_t bucket_high(size_t b);  // inclusive

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  int64_t min_ = 0;
  int64_t max_ = 0;
  long double sum_ = 0;
};

}  // namespace strata::bench
