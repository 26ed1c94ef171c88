// Accounting: which messages a consumer group has seen, so a run can say
// exactly how many were lost or delivered twice, not just compare counts.
//
// Every message carries (producer, sequence) in its stamp; a group keeps one
// bitmap per producer. Consumers record a poll's worth of stamps at a time
// under one lock.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "bench/strata_bench/message.h"

namespace strata::bench {

// The set of sequence numbers seen from one producer.
class SequenceSet {
 public:
  // True if `seq` was not in the set before.
  bool insert(uint64_t seq);
  bool contains(uint64_t seq) const;
  // How many of [0, limit) are absent.
  uint64_t missing_below(uint64_t limit) const;

 private:
  std::vector<uint64_t> bits_;
};

class GroupAccounting {
 public:
  explicit GroupAccounting(int producers) : seen_(static_cast<size_t>(producers)) {}

  // Records a batch of received stamps. Stamps naming a producer index out
  // of range count as foreign (they did not come from this run).
  void record(std::span<const Stamp> stamps);

  uint64_t unique() const;
  uint64_t duplicates() const;
  uint64_t foreign() const;
  // Messages producer i sent (sequences [0, sent[i])) that the group has not
  // seen.
  uint64_t missing(const std::vector<uint64_t>& sent) const;

 private:
  mutable std::mutex mu_;
  std::vector<SequenceSet> seen_;
  uint64_t unique_ = 0;
  uint64_t duplicates_ = 0;
  uint64_t foreign_ = 0;
};

}  // namespace strata::bench
