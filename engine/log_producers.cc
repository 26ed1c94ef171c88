// Log: the idempotent and transactional producers' state (ProducerStates)
// and the aborted transactions — loaded from the index at open, kept with
// every committed batch and marker, cut with the log, expired; the answer
// to a retried batch.
#include <unordered_set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engine/log.h"
#include "engine/segment_scanner.h"

namespace strata::engine {

Status Log::load_producers() {
  STRATA_ASSIGN_OR_RETURN(auto stored, options_.index->producer_states(options_.uid));
  for (auto& [id, bytes] : stored) {
    auto state = decode_producer_state(bytes);
    if (!state) {
      // Derived data: a producer forgotten may start again at any sequence.
      spdlog::warn("partition {}: forgetting producer {}: {}", options_.uid, id,
                   state.error().to_string());
      continue;
    }
    committed_producers_.put(id, std::move(state).value());
  }
  return ok_status();
}

std::vector<index::IndexStore::ProducerRecord> Log::producer_records() const {
  std::vector<index::IndexStore::ProducerRecord> out;
  for (const auto& [id, state] : committed_producers_.all())
    out.emplace_back(id, encode_producer_state(state));
  return out;
}

Status Log::load_aborted() {
  STRATA_ASSIGN_OR_RETURN(auto stored, options_.index->aborted_txns(options_.uid));
  for (const auto& e : stored) {
    aborted_[e.last_offset] = e;
    longest_aborted_ = std::max(longest_aborted_, (e.last_offset - e.first_offset));
  }
  return ok_status();
}

void Log::track_producer(const BatchHeader& h, std::span<const std::byte> bytes,
                         index::IndexStore::Update& update) {
  if (h.control() && h.producer_id >= 0) {
    auto marker = read_marker(bytes);
    if (!marker) {
      // Validated when appended; a marker that no longer reads is logged
      // and ignored rather than stopping the log.
      spdlog::error("partition {}: control batch at {} unreadable: {}", options_.uid, h.base_offset,
                    marker.error().to_string());
      return;
    }
    if (!*marker) return;
    auto effect = committed_producers_.apply_marker(**marker, h.base_offset, h.max_timestamp);
    if (!effect.changed) return;
    update.set_producer(h.producer_id,
                        encode_producer_state(*committed_producers_.find(h.producer_id)));
    if (const auto& a = effect.aborted) {
      aborted_[a->last_offset] = *a;
      longest_aborted_ = std::max(longest_aborted_, (a->last_offset - a->first_offset));
      update.add_aborted(*a);
    }
    return;
  }
  if (!idempotent(h)) return;
  // The batch's own timestamp (as Kafka's lastTimestamp): leader, followers
  // and recovery derive the same state from the same bytes.
  if (committed_producers_.apply(h, h.max_timestamp)) {
    update.set_producer(h.producer_id,
                        encode_producer_state(*committed_producers_.find(h.producer_id)));
  }
}

Result<std::vector<index::IndexStore::ProducerRecord>> Log::cut_producers(Offset offset) {
  producers_.drop_from(offset);
  auto dropped = committed_producers_.drop_from(offset);
  aborted_.erase(aborted_.lower_bound(offset), aborted_.end());
  if (!dropped.unknown.empty()) STRATA_TRY(rescan_producers(dropped.unknown, offset));
  return producer_records();
}

Status Log::rescan_producers(const std::vector<int64_t>& ids, Offset until) {
  // Rare (a cut through more than five of one producer's batches or
  // markers) and blocking: the log's batches below `until` are read from
  // its start, and those of `ids` replayed into tables of their own.
  std::unordered_set<int64_t> wanted(ids.begin(), ids.end());
  ProducerStates rebuilt;
  uint64_t bytes = 0;
  for (auto& [base, seg] : segments_) {
    if (base >= until) break;
    SegmentScanner scanner(*seg->file, 0, seg->size, /*verify_crc=*/false);
    while (true) {
      STRATA_ASSIGN_OR_RETURN(auto batch, scanner.next());
      if (!batch) break;
      const auto& h = batch->header;
      if (h.base_offset >= until) break;
      bytes += batch->bytes.size();
      if (!wanted.contains(h.producer_id)) continue;
      if (!h.control()) {
        rebuilt.apply(h, h.max_timestamp);
        continue;
      }
      STRATA_ASSIGN_OR_RETURN(auto marker, read_marker(batch->bytes));
      if (marker) rebuilt.apply_marker(*marker, h.base_offset, h.max_timestamp);
    }
  }
  for (int64_t id : ids) {
    const ProducerState* state = rebuilt.find(id);
    for (auto* table : {&committed_producers_, &producers_}) {
      if (state) {
        table->put(id, *state);
      } else {
        table->erase(id);
      }
    }
  }
  spdlog::info("partition {}: {} producer(s) rebuilt from the log below {} ({} bytes read)",
               options_.uid, ids.size(), until, bytes);
  return ok_status();
}

std::vector<index::AbortedEntry> Log::aborted_records() const {
  std::vector<index::AbortedEntry> out;
  out.reserve(aborted_.size());
  for (const auto& [marker, txn] : aborted_)
    out.push_back(txn);
  return out;
}

size_t Log::expire_producers() {
  TimestampMs now = options_.clock->now_ms();
  int64_t ttl = options_.producer_id_expiration_ms;
  producers_.expire(now, ttl);
  auto gone = committed_producers_.expire(now, ttl);
  if (gone.empty()) return 0;
  index::IndexStore::Update update(options_.uid);
  for (int64_t id : gone)
    update.set_producer(id, std::nullopt);
  if (auto st = options_.index->write(update); !st) {
    spdlog::error("partition {}: producer state write failed: {}", options_.uid,
                  st.error().to_string());
  }
  spdlog::info("partition {}: {} idempotent producer(s) expired", options_.uid, gone.size());
  return gone.size();
}

std::vector<AbortedTxn> Log::aborted_transactions(Offset from, Offset upper) const {
  std::vector<AbortedTxn> out;
  // Markers more than the longest transaction beyond `upper` end
  // transactions that began at or after it.
  for (auto it = aborted_.lower_bound(from); it != aborted_.end(); ++it) {
    if (it->first.value() - longest_aborted_ > upper.value()) break;
    if (it->second.first_offset < upper) out.push_back(it->second);
  }
  return out;
}

void Log::answer_duplicate(const ProducerBatch& original, AppendCallback done) {
  if (original.last_offset < end_offset_) {
    post([done = std::move(done), original] {
      done(AppendResult{original.base_offset, original.last_offset, -1});
    });
    return;
  }
  duplicates_.push_back(DuplicateWaiter{original, std::move(done)});
}

void Log::settle_duplicates(std::vector<std::pair<AppendCallback, Result<AppendResult>>>& results) {
  std::erase_if(duplicates_, [&](DuplicateWaiter& w) {
    if (w.original.last_offset >= end_offset_) return false;
    results.emplace_back(std::move(w.done),
                         AppendResult{w.original.base_offset, w.original.last_offset, -1});
    return true;
  });
}

}  // namespace strata::engine
