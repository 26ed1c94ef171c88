#include "io/io_stats.h"

#include <bit>

#include <fmt/format.h>

namespace strata::io {

void LatencySummary::record(uint64_t us) {
  size_t b = std::min<size_t>(static_cast<size_t>(std::bit_width(us)), buckets_.size() - 1);
  ++buckets_[b];
  ++count_;
  max_us_ = std::max(max_us_, us);
}

uint64_t LatencySummary::quantile_us(double q) const {
  if (count_ == 0) return 0;
  auto rank = static_cast<uint64_t>(q * static_cast<double>(count_));
  if (rank >= count_) rank = count_ - 1;
  uint64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen > rank) return std::min(max_us_, b == 0 ? uint64_t{0} : (uint64_t{1} << b) - 1);
  }
  return max_us_;
}

std::string IoStats::to_json() const {
  auto one = [](const LatencySummary& s) {
    return fmt::format(R"({{"n":{},"p50_us":{},"p99_us":{},"max_us":{}}})", s.count(),
                       s.quantile_us(0.5), s.quantile_us(0.99), s.max_us());
  };
  return fmt::format(R"({{"write":{},"read":{},"sync":{},"loop_lag":{}}})", one(write), one(read),
                     one(sync), one(loop_lag));
}

}  // namespace strata::io
