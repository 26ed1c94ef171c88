#include "bench/strata_bench/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace strata::bench {
namespace {

constexpr int kSubBits = 7;
constexpr uint64_t kSub = uint64_t{1} << kSubBits;  // sub-buckets per power of two
// Values below kSub have a bucket each; each exponent e in [kSubBits, 63]
// has kSub buckets after them.
constexpr size_t kBuckets = kSub + (64 - kSubBits) * kSub;

}  // namespace

size_t LatencyHistogram::bucket_of(uint64_t v) {
  if (v < kSub) return static_cast<size_t>(v);
  int e = 63 - std::countl_zero(v);  // position of the leading one, >= kSubBits
  uint64_t mantissa = (v >> (e - kSubBits)) & (kSub - 1);
  return static_cast<size_t>(kSub + static_cast<uint64_t>(e - kSubBits) * kSub + mantissa);
}

uint64_t LatencyHistogram::bucket_low(size_t b) {
  if (b < kSub) return b;
  uint64_t e = (b - kSub) / kSub + kSubBits;
  uint64_t mantissa = (b - kSub) % kSub;
  return (kSub + mantissa) << (e - kSubBits);
}

uint64_t LatencyHistogram::bucket_high(size_t b) {
  if (b + 1 >= kBuckets) return std::numeric_limits<uint64_t>::max();
  return bucket_low(b + 1) - 1;
}

LatencyHistogram::LatencyHistogram() : counts_(kBuckets, 0) {}

void LatencyHistogram::record(int64_t value_ns) {
  int64_t v = std::max<int64_t>(value_ns, 0);
  ++counts_[bucket_of(static_cast<uint64_t>(v))];
  if (count_ == 0 || v < min_) min_ = v;
  max_ = std::max(max_, v);
  ++count_;
  sum_ += static_cast<long double>(v);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  for (size_t i = 0; i < kBuckets; ++i)
    counts_[i] += other.counts_[i];
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

void LatencyHistogram::reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  min_ = max_ = 0;
  sum_ = 0;
}

double LatencyHistogram::mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_ / static_cast<long double>(count_));
}

int64_t LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    seen += counts_[b];
    if (seen >= rank) {
      uint64_t high = bucket_high(b);
      return std::min<int64_t>(max_, static_cast<int64_t>(std::min<uint64_t>(
                                         high, std::numeric_limits<int64_t>::max())));
    }
  }
  return max_;
}

}  // namespace strata::bench
