// ProducerIds: producer ids for InitProducerId, unique across the cluster
// and across restarts. The metadata store holds the next unallocated id
// under /strata/producer_ids; a broker takes a block of kBlockSize ids from
// it with a compare-and-set on the key's version (so two brokers never get
// the same block) and hands them out one by one. Ids of a block a broker
// did not use before it stopped are never handed out: ids are not reused.
//
//   ProducerIds ids(store);
//   Result<int64_t> id = ids.next();
//
// Thread-safety: one thread (the broker's control thread); next() blocks
// on the store when a block runs out.
#pragma once

#include <cstdint>

#include "base/result.h"
#include "coordinator/metadata_store.h"

namespace strata::coordinator {

inline constexpr std::string_view kProducerIdsKey = "/strata/producer_ids";

class ProducerIds {
 public:
  static constexpr int64_t kBlockSize = 1000;

  explicit ProducerIds(MetadataStore& store) : store_(store) {}

  // The next id of this broker's block, taking a new block first if it ran out.
  Result<int64_t> next();

 private:
  Status take_block();

  MetadataStore& store_;
  int64_t next_ = 0;  // the block [next_, end_) is this broker's
  int64_t end_ = 0;
};

}  // namespace strata::coordinator
