#include "bench/strata_bench/accounting.h"

#include <bit>

namespace strata::bench {

// Bounds the bitmap a garbage stamp could make us allocate (2 GiB of bits).
constexpr uint64_t kMaxSequence = uint64_t{1} << 34;

bool SequenceSet::insert(uint64_t seq) {
  size_t word = seq / 64;
  if (word >= bits_.size()) bits_.resize(std::max(word + 1, bits_.size() * 2), 0);
  uint64_t mask = uint64_t{1} << (seq % 64);
  bool fresh = (bits_[word] & mask) == 0;
  bits_[word] |= mask;
  return fresh;
}

bool SequenceSet::contains(uint64_t seq) const {
  size_t word = seq / 64;
  return word < bits_.size() && (bits_[word] & (uint64_t{1} << (seq % 64))) != 0;
}

uint64_t SequenceSet::missing_below(uint64_t limit) const {
  uint64_t present = 0;
  size_t full_words = limit / 64;
  for (size_t w = 0; w < full_words && w < bits_.size(); ++w)
    present += static_cast<uint64_t>(std::popcount(bits_[w]));
  if (limit % 64 != 0 && full_words < bits_.size()) {
    uint64_t mask = (uint64_t{1} << (limit % 64)) - 1;
    present += static_cast<uint64_t>(std::popcount(bits_[full_words] & mask));
  }
  return limit - present;
}

void GroupAccounting::record(std::span<const Stamp> stamps) {
  std::lock_guard lock(mu_);
  for (const Stamp& s : stamps) {
    if (s.producer >= seen_.size() || s.sequence >= kMaxSequence) {
      ++foreign_;
    } else if (seen_[s.producer].insert(s.sequence)) {
      ++unique_;
    } else {
      ++duplicates_;
    }
  }
}

uint64_t GroupAccounting::unique() const {
  std::lock_guard lock(mu_);
  return unique_;
}

uint64_t GroupAccounting::duplicates() const {
  std::lock_guard lock(mu_);
  return duplicates_;
}

uint64_t GroupAccounting::foreign() const {
  std::lock_guard lock(mu_);
  return foreign_;
}

uint64_t GroupAccounting::missing(const std::vector<uint64_t>& sent) const {
  std::lock_guard lock(mu_);
  uint64_t total = 0;
  for (size_t p = 0; p < sent.size() && p < seen_.size(); ++p)
    total += seen_[p].missing_below(sent[p]);
  return total;
}

}  // namespace strata::bench
