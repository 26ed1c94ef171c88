#include "coordinator/producer_ids.h"

#include <charconv>

#include <fmt/format.h>

namespace strata::coordinator {

namespace {
constexpr int kAttempts = 10;  // other brokers taking blocks at the same moment
}  // namespace

Result<int64_t> ProducerIds::next() {
  if (next_ >= end_) STRATA_TRY(take_block());
  return next_++;
}

Status ProducerIds::take_block() {
  const std::string key(kProducerIdsKey);
  for (int i = 0; i < kAttempts; ++i) {
    STRATA_ASSIGN_OR_RETURN(auto entry, store_.get(key));
    int64_t start = 0;
    int64_t version = MetadataStore::kAbsent;
    if (entry) {
      const auto& v = entry->value;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), start);
      if (ec != std::errc() || end != v.data() + v.size() || start < 0) {
        return Error(Errc::kCorruption,
                     fmt::format("{} holds '{}', not a producer id", key, entry->value));
      }
      version = entry->version;
    }
    if (start > INT64_MAX - kBlockSize) {
      return Error(Errc::kInternal, "the producer ids are exhausted");
    }
    auto put = store_.put(key, std::to_string(start + kBlockSize), version);
    if (put) {
      next_ = start;
      end_ = start + kBlockSize;
      return ok_status();
    }
    // Another broker took a block since the read: read again.
    if (put.error().code() != Errc::kAlreadyExists && put.error().code() != Errc::kNotFound &&
        put.error().code() != Errc::kInvalidArgument) {
      return std::move(put).error();
    }
  }
  return Error(Errc::kUnavailable,
               fmt::format("could not take a block of producer ids after {} attempts", kAttempts));
}

}  // namespace strata::coordinator
