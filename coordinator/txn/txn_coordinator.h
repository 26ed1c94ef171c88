// TxnCoordinator: the transaction coordinator of the transactional ids whose
// __transaction_state partitions one shard leads (Kafka's
// TransactionCoordinator). The decisions are txn_state.h's; this class
// keeps each id's metadata, writes every change to the id's TxnStore
// before it takes effect (and before it is answered), writes the commit or
// abort markers of a transaction being ended to its partitions (retrying
// until each partition has its marker), then records the transaction
// complete. It aborts transactions that outlive their timeout.
//
// A write in flight for an id makes the id's other requests wait: they are
// answered CONCURRENT_TRANSACTIONS, which clients retry. A partition's
// coordinator epoch (the leader epoch of its __transaction_state partition)
// goes into the markers, so a deposed coordinator's late markers are fenced.
//
//   TxnCoordinator tc(clock, timers, config, allocate_id, write_markers);
//   tc.host(partition, &store, coordinator_epoch, store.all().value());
//   tc.end_txn(id, pid, epoch, /*commit=*/true, [](Errc e) { ... });
//
// Thread-safety: one shard; every callback runs on it (possibly inside the
// call, when the answer is immediate).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "base/timers.h"
#include "coordinator/txn/txn_state.h"
#include "coordinator/txn/txn_store.h"

namespace strata::coordinator {

struct TxnConfig {
  int32_t max_timeout_ms = 900000;          // transaction.max.timeout.ms
  int64_t abort_check_interval_ms = 10000;  // how often expired transactions are looked for
  int64_t marker_retry_backoff_ms = 100;    // between attempts at a partition's marker
};

// The markers of one ended transaction, for its partitions.
struct MarkerWrite {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t coordinator_epoch = 0;
  bool commit = false;
  std::vector<TxnPartition> partitions;
};

// How a partition's marker fared: written (or the partition is gone, so
// there is nothing to end), to be tried again, or refused because the
// partition has seen a newer coordinator or producer epoch: this
// coordinator is stale, and the transaction is left to the newer one.
enum class MarkerOutcome { kWritten, kRetry, kFenced };

class TxnCoordinator {
 public:
  // Allocates a new producer id (unique in the cluster); `done` on this shard.
  using AllocateId = std::function<void(std::function<void(Result<int64_t>)>)>;
  // Writes the markers; `done` (on this shard) with each partition's outcome.
  using WriteMarkers = std::function<void(
      MarkerWrite, std::function<void(std::vector<std::pair<TxnPartition, MarkerOutcome>>)>)>;

  TxnCoordinator(const Clock& clock, Timers& timers, TxnConfig config, AllocateId allocate,
                 WriteMarkers write_markers);
  ~TxnCoordinator();
  TxnCoordinator(const TxnCoordinator&) = delete;
  TxnCoordinator& operator=(const TxnCoordinator&) = delete;

  // Starts serving the ids of `partition` with what its store loaded;
  // transactions caught between their markers and completion are resumed.
  void host(int32_t partition, TxnStore* store, int32_t coordinator_epoch,
            std::vector<std::pair<std::string, TxnMetadata>> loaded);
  // Stops serving them (the partition moved or is closing); writes in
  // flight are dropped (the next coordinator resumes from the log).
  void unhost(int32_t partition);
  bool hosts(int32_t partition) const { return hosted_.count(partition) != 0; }

  struct InitResult {
    Errc error = Errc::kOk;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
  };
  // InitProducerId with a transactional id (txn_state.h's init_producer).
  void init_producer(const std::string& transactional_id, int32_t timeout_ms,
                     std::optional<ProducerIdEpoch> expected, std::function<void(InitResult)> done);
  // AddPartitionsToTxn, and AddOffsetsToTxn's __consumer_offsets partition.
  // While the last transaction's markers are written the request waits for
  // them (Kafka answers CONCURRENT_TRANSACTIONS, which librdkafka retries
  // only after retry.backoff.ms, and an abort then fails, librdkafka issue
  // #4849).
  void add_partitions(const std::string& transactional_id, int64_t producer_id, int16_t epoch,
                      std::vector<TxnPartition> partitions, std::function<void(Errc)> done);
  // KIP-890's check before a transactional write: kNone if `partition` is in
  // the transaction the producer (id, epoch) has in progress.
  Errc verify(const std::string& transactional_id, int64_t producer_id, int16_t epoch,
              const TxnPartition& partition) const;
  // EndTxn: answered once the Prepare state is written; the markers follow.
  void end_txn(const std::string& transactional_id, int64_t producer_id, int16_t epoch, bool commit,
               std::function<void(Errc)> done);

  // DescribeTransactions: the id's metadata, or the error routing it gets
  // (kTransactionalIdNotFound as nullopt with kNone).
  std::optional<TxnMetadata> describe(const std::string& transactional_id) const;
  // ListTransactions: every id this shard coordinates, with its metadata.
  std::vector<std::pair<std::string, TxnMetadata>> list() const;

  // Aborts the transactions older than their timeout (also run by a timer).
  void abort_expired();

  // The error every request for `transactional_id` gets before any work:
  // NOT_COORDINATOR where its partition is not hosted here.
  std::optional<Errc> routing_error(const std::string& transactional_id) const;

 private:
  struct Entry {
    int32_t partition = 0;
    std::optional<TxnMetadata> meta;  // nullopt: not written yet
    bool writing = false;             // a store write or markers in flight
    // The epoch before the current one's InitProducerId bumped it (in
    // memory, as Kafka keeps it): a v3+ retry of that InitProducerId, naming
    // it, gets the current epoch again.
    std::optional<int16_t> last_epoch;
    // AddPartitionsToTxn requests that came while the last transaction's
    // markers were written: run again once they are.
    std::vector<std::function<void()>> parked;
  };
  struct Hosted {
    TxnStore* store = nullptr;
    int32_t coordinator_epoch = 0;
    uint64_t generation = 0;
  };

  // Writes `next` for `id` and applies it; `done` with kNone once applied.
  void write(const std::string& id, TxnMetadata next, std::function<void(Errc)> done);
  // Writes the markers of the Prepare state `id` is in, then completes it.
  void finish(const std::string& id);
  void send_markers(const std::string& id, uint64_t generation, std::vector<TxnPartition> left);
  // Runs the requests parked on `id` once nothing is in flight for it.
  void resume_parked(const std::string& id);
  // Writes the Complete state after the markers, retrying only that write.
  void complete_txn(const std::string& id, uint64_t generation);
  void schedule_expiry();
  // The entry of `id` if its partition is hosted with `generation`.
  Entry* live(const std::string& id, uint64_t generation);

  const Clock& clock_;
  Timers& timers_;
  TxnConfig config_;
  AllocateId allocate_;
  WriteMarkers write_markers_;
  std::unordered_map<int32_t, Hosted> hosted_;
  std::map<std::string, Entry> txns_;
  uint64_t next_generation_ = 0;
  TimerId expiry_timer_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace strata::coordinator
