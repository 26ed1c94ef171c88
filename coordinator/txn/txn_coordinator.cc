#include "coordinator/txn/txn_coordinator.h"

#include <spdlog/spdlog.h>

#include "coordinator/txn/txn_records.h"

namespace strata::coordinator {
namespace {

// Requests waiting for one id's markers, at most (beyond: told to retry).
constexpr size_t kMaxParked = 16;

}  // namespace

TxnCoordinator::TxnCoordinator(const Clock& clock, Timers& timers, TxnConfig config,
                               AllocateId allocate, WriteMarkers write_markers)
    : clock_(clock),
      timers_(timers),
      config_(config),
      allocate_(std::move(allocate)),
      write_markers_(std::move(write_markers)) {
  schedule_expiry();
}

TxnCoordinator::~TxnCoordinator() {
  *alive_ = false;
  timers_.cancel(expiry_timer_);
}

void TxnCoordinator::schedule_expiry() {
  expiry_timer_ = timers_.schedule(config_.abort_check_interval_ms, [this, alive = alive_] {
    if (!*alive) return;
    abort_expired();
    schedule_expiry();
  });
}

void TxnCoordinator::host(int32_t partition, TxnStore* store, int32_t coordinator_epoch,
                          std::vector<std::pair<std::string, TxnMetadata>> loaded) {
  unhost(partition);
  hosted_[partition] = Hosted{store, coordinator_epoch, ++next_generation_};
  std::vector<std::string> resume;
  for (auto& [id, meta] : loaded) {
    if (preparing(meta.state)) resume.push_back(id);
    txns_[id] = Entry{partition, std::move(meta), false};
  }
  for (const auto& id : resume) {
    spdlog::info("transactional id '{}': resuming the markers of its {}", id,
                 state_name(txns_[id].meta->state));
    finish(id);
  }
}

void TxnCoordinator::unhost(int32_t partition) {
  if (hosted_.erase(partition) == 0) return;
  std::vector<std::function<void()>> parked;
  for (auto& [id, e] : txns_) {
    if (e.partition != partition) continue;
    for (auto& fn : e.parked)
      parked.push_back(std::move(fn));
  }
  std::erase_if(txns_, [partition](const auto& kv) { return kv.second.partition == partition; });
  for (auto& fn : parked)
    fn();  // answered NOT_COORDINATOR now
}

TxnCoordinator::Entry* TxnCoordinator::live(const std::string& id, uint64_t generation) {
  auto it = txns_.find(id);
  if (it == txns_.end()) return nullptr;
  auto h = hosted_.find(it->second.partition);
  if (h == hosted_.end() || h->second.generation != generation) return nullptr;
  return &it->second;
}

std::optional<Errc> TxnCoordinator::routing_error(const std::string& id) const {
  if (hosted_.count(txn_partition_for(id)) == 0) return Errc::kNotCoordinator;
  return std::nullopt;
}

void TxnCoordinator::write(const std::string& id, TxnMetadata next,
                           std::function<void(Errc)> done) {
  int32_t partition = txn_partition_for(id);
  auto h = hosted_.find(partition);
  if (h == hosted_.end()) return done(Errc::kNotCoordinator);
  auto& entry = txns_[id];
  entry.partition = partition;
  entry.writing = true;
  uint64_t generation = h->second.generation;
  h->second.store->write(
      id, next, [this, id, next, generation, done = std::move(done), alive = alive_](Status st) {
        if (!*alive) return;
        Entry* e = live(id, generation);
        if (e == nullptr) return done(Errc::kNotCoordinator);
        e->writing = false;
        if (!st) {
          spdlog::warn("transactional id '{}': writing its state: {}", id, st.error().to_string());
          if (!e->meta) txns_.erase(id);
          return done(Errc::kCoordinatorNotAvailable);
        }
        e->meta = next;
        done(Errc::kOk);
        resume_parked(id);
      });
}

void TxnCoordinator::resume_parked(const std::string& id) {
  auto it = txns_.find(id);
  if (it == txns_.end() || it->second.writing || it->second.parked.empty()) return;
  auto parked = std::move(it->second.parked);
  it->second.parked.clear();
  for (auto& fn : parked)
    fn();
}

void TxnCoordinator::init_producer(const std::string& id, int32_t timeout_ms,
                                   std::optional<ProducerIdEpoch> expected,
                                   std::function<void(InitResult)> done) {
  if (auto e = routing_error(id)) return done({*e});
  auto it = txns_.find(id);
  if (it != txns_.end() && it->second.writing) return done({Errc::kConcurrentTransactions});
  std::optional<TxnMetadata> current;
  if (it != txns_.end()) current = it->second.meta;
  if (current && expected && expected->producer_id == current->producer_id &&
      it->second.last_epoch && expected->producer_epoch == *it->second.last_epoch &&
      current->state != TxnState::kOngoing) {
    // A retry of the InitProducerId that made the current epoch (its answer
    // was lost): the same answer again, not another bump (KIP-360).
    return done({Errc::kOk, current->producer_id, current->producer_epoch});
  }
  auto d = coordinator::init_producer(current, timeout_ms, config_.max_timeout_ms, clock_.now_ms(),
                                      expected);
  if (d.error == Errc::kConcurrentTransactions && d.next) {
    // A transaction in progress: abort it (its producer is fenced by the
    // bumped epoch); the client retries once the abort is complete.
    write(id, *d.next, [this, id](Errc e) {
      if (e == Errc::kOk) finish(id);
    });
    return done({Errc::kConcurrentTransactions});
  }
  if (d.error != Errc::kOk) return done({d.error});
  std::optional<int16_t> previous;
  if (current && d.next && current->producer_id == d.next->producer_id) {
    previous = current->producer_epoch;
  }
  auto commit = [this, id, done, previous](TxnMetadata next) {
    write(id, next, [this, id, next, done, previous](Errc e) {
      if (e != Errc::kOk) return done({e});
      if (auto it = txns_.find(id); it != txns_.end()) it->second.last_epoch = previous;
      done({Errc::kOk, next.producer_id, next.producer_epoch});
    });
  };
  if (!d.new_producer_id) return commit(*d.next);
  // Held while the id is allocated, so that no other request races it.
  auto& entry = txns_[id];
  entry.partition = txn_partition_for(id);
  entry.writing = true;
  uint64_t generation = hosted_.at(entry.partition).generation;
  allocate_([this, id, generation, next = *d.next, commit, done,
             alive = alive_](Result<int64_t> pid) mutable {
    if (!*alive) return;
    Entry* e = live(id, generation);
    if (e == nullptr) return done({Errc::kNotCoordinator});
    e->writing = false;
    if (!pid) {
      if (!e->meta) txns_.erase(id);
      return done({Errc::kCoordinatorNotAvailable});
    }
    next.producer_id = *pid;
    commit(next);
  });
}

void TxnCoordinator::add_partitions(const std::string& id, int64_t producer_id, int16_t epoch,
                                    std::vector<TxnPartition> partitions,
                                    std::function<void(Errc)> done) {
  if (auto e = routing_error(id)) return done(*e);
  auto it = txns_.find(id);
  if (it == txns_.end() || !it->second.meta) return done(Errc::kInvalidProducerIdMapping);
  const auto& m = *it->second.meta;
  // A fenced producer learns it first, whatever is in flight (as Kafka's
  // coordinator checks the producer before anything else).
  if (auto e = check_producer(m, producer_id, epoch); e != Errc::kOk) return done(e);
  if (it->second.writing) {
    if (preparing(m.state) && it->second.parked.size() < kMaxParked) {
      // The producer's next transaction, while the last one's markers are
      // written: answered once they are (a few milliseconds), not told to
      // retry, which librdkafka does only after retry.backoff.ms.
      it->second.parked.push_back([this, id, producer_id, epoch, partitions, done]() mutable {
        add_partitions(id, producer_id, epoch, std::move(partitions), std::move(done));
      });
      return;
    }
    return done(Errc::kConcurrentTransactions);
  }
  auto d = coordinator::add_partitions(m, producer_id, epoch, partitions, clock_.now_ms());
  if (d.error != Errc::kOk || !d.next) return done(d.error);
  write(id, *d.next, std::move(done));
}

Errc TxnCoordinator::verify(const std::string& id, int64_t producer_id, int16_t epoch,
                            const TxnPartition& partition) const {
  if (auto e = routing_error(id)) return *e;
  auto it = txns_.find(id);
  if (it == txns_.end() || !it->second.meta) return Errc::kInvalidProducerIdMapping;
  const auto& m = *it->second.meta;
  if (m.producer_id != producer_id) return Errc::kInvalidProducerIdMapping;
  if (m.producer_epoch != epoch) return Errc::kProducerFenced;
  if (m.state != TxnState::kOngoing || m.partitions.count(partition) == 0) {
    return Errc::kInvalidTxnState;
  }
  return Errc::kOk;
}

void TxnCoordinator::end_txn(const std::string& id, int64_t producer_id, int16_t epoch, bool commit,
                             std::function<void(Errc)> done) {
  if (auto e = routing_error(id)) return done(*e);
  auto it = txns_.find(id);
  if (it == txns_.end() || !it->second.meta) return done(Errc::kInvalidProducerIdMapping);
  const auto& m = *it->second.meta;
  if (auto e = check_producer(m, producer_id, epoch); e != Errc::kOk) return done(e);
  if (it->second.writing) return done(Errc::kConcurrentTransactions);
  auto d = coordinator::end_txn(m, producer_id, epoch, commit, clock_.now_ms());
  if (d.error != Errc::kOk || !d.next) return done(d.error);
  write(id, *d.next, [this, id, done = std::move(done)](Errc e) {
    done(e);
    if (e == Errc::kOk) finish(id);
  });
}

void TxnCoordinator::finish(const std::string& id) {
  auto it = txns_.find(id);
  if (it == txns_.end() || !it->second.meta || !preparing(it->second.meta->state)) return;
  auto h = hosted_.find(it->second.partition);
  if (h == hosted_.end()) return;
  it->second.writing = true;
  const auto& m = *it->second.meta;
  send_markers(id, h->second.generation,
               std::vector<TxnPartition>(m.partitions.begin(), m.partitions.end()));
}

void TxnCoordinator::send_markers(const std::string& id, uint64_t generation,
                                  std::vector<TxnPartition> left) {
  Entry* e = live(id, generation);
  if (e == nullptr) return;
  const auto& m = *e->meta;
  if (left.empty()) return complete_txn(id, generation);
  MarkerWrite w{m.producer_id, m.producer_epoch, hosted_.at(e->partition).coordinator_epoch,
                m.state == TxnState::kPrepareCommit, std::move(left)};
  write_markers_(std::move(w), [this, id, generation, alive = alive_](
                                   std::vector<std::pair<TxnPartition, MarkerOutcome>> outcomes) {
    Entry* e = live(id, generation);
    if (!*alive || e == nullptr) return;
    std::vector<TxnPartition> retry;
    for (auto& [p, outcome] : outcomes) {
      if (outcome == MarkerOutcome::kFenced) {
        // As Kafka's coordinator: stop here, write no Complete. A newer
        // coordinator of the id resumes the transaction from the log.
        spdlog::error(
            "transactional id '{}': the marker for {}-{} was fenced; this coordinator "
            "is stale and leaves the transaction to the newer one",
            id, p.topic, p.partition);
        e->writing = false;
        return resume_parked(id);
      }
      if (outcome == MarkerOutcome::kRetry) retry.push_back(std::move(p));
    }
    if (retry.empty()) return send_markers(id, generation, {});
    timers_.schedule(config_.marker_retry_backoff_ms,
                     [this, id, generation, retry = std::move(retry), alive] {
                       if (*alive) send_markers(id, generation, retry);
                     });
  });
}

void TxnCoordinator::complete_txn(const std::string& id, uint64_t generation) {
  Entry* e = live(id, generation);
  if (e == nullptr) return;
  // Every partition has its marker: the transaction is complete.
  e->writing = false;
  write(id, complete(*e->meta, clock_.now_ms()), [this, id, generation](Errc err) {
    if (err == Errc::kOk || err == Errc::kNotCoordinator) return;
    // Still Prepare*, markers all written: try the completion again later
    // (and only it), holding the id meanwhile.
    if (Entry* e = live(id, generation)) e->writing = true;
    timers_.schedule(config_.marker_retry_backoff_ms, [this, id, generation, alive = alive_] {
      if (*alive) complete_txn(id, generation);
    });
  });
}

void TxnCoordinator::abort_expired() {
  int64_t now = clock_.now_ms();
  std::vector<std::pair<std::string, TxnMetadata>> expired;
  for (const auto& [id, e] : txns_) {
    if (e.writing || !e.meta) continue;
    if (auto next = abort_if_expired(*e.meta, now)) expired.emplace_back(id, std::move(*next));
  }
  for (auto& [id, next] : expired) {
    spdlog::info("transactional id '{}': aborting its transaction, older than its timeout of {} ms",
                 id, next.timeout_ms);
    write(id, std::move(next), [this, id](Errc e) {
      if (e == Errc::kOk) finish(id);
    });
  }
}

std::optional<TxnMetadata> TxnCoordinator::describe(const std::string& id) const {
  auto it = txns_.find(id);
  if (it == txns_.end()) return std::nullopt;
  return it->second.meta;
}

std::vector<std::pair<std::string, TxnMetadata>> TxnCoordinator::list() const {
  std::vector<std::pair<std::string, TxnMetadata>> out;
  for (const auto& [id, e] : txns_)
    if (e.meta) out.emplace_back(id, *e.meta);
  return out;
}

}  // namespace strata::coordinator
