// LogProducers (log_producers.h): the producers' states and the aborted
// transactions — loaded from the index at open, kept with every committed
// batch and marker, cut with the log, expired. And Log's answer to a
// retried batch.
#include "engine/log_producers.h"

#include <unordered_set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engine/log.h"
#include "engine/segment_scanner.h"

namespace strata::engine {

Status LogProducers::load() {
  const auto& o = log_.options_;
  STRATA_ASSIGN_OR_RETURN(auto stored, o.index->producer_states(o.uid));
  for (auto& [id, bytes] : stored) {
    auto state = decode_producer_state(bytes);
    if (!state) {
      // Derived data: a producer forgotten may start again at any sequence.
      spdlog::warn("partition {}: forgetting producer {}: {}", o.uid, id,
                   state.error().to_string());
      continue;
    }
    committed_.put(id, std::move(state).value());
  }
  STRATA_ASSIGN_OR_RETURN(auto aborted, o.index->aborted_txns(o.uid));
  for (const auto& e : aborted)
    aborted_.add(e);
  return ok_status();
}

std::vector<index::IndexStore::ProducerRecord> LogProducers::records() const {
  std::vector<index::IndexStore::ProducerRecord> out;
  for (const auto& [id, state] : committed_.all())
    out.emplace_back(id, encode_producer_state(state));
  return out;
}

void LogProducers::track(const BatchHeader& h, std::span<const std::byte> bytes,
                         index::IndexStore::Update& update) {
  if (h.control() && h.producer_id >= 0) {
    auto marker = read_marker(bytes);
    if (!marker) {
      // Validated when appended; a marker that no longer reads is logged
      // and ignored rather than stopping the log.
      spdlog::error("partition {}: control batch at {} unreadable: {}", log_.options_.uid,
                    h.base_offset, marker.error().to_string());
      return;
    }
    if (!*marker) return;
    auto effect = committed_.apply_marker(**marker, h.base_offset, h.max_timestamp);
    if (!effect.changed) return;
    update.set_producer(h.producer_id, encode_producer_state(*committed_.find(h.producer_id)));
    if (const auto& a = effect.aborted) {
      aborted_.add(*a);
      update.add_aborted(*a);
    }
    return;
  }
  if (!idempotent(h)) return;
  // The batch's own timestamp (as Kafka's lastTimestamp): leader, followers
  // and recovery derive the same state from the same bytes.
  if (committed_.apply(h, h.max_timestamp)) {
    update.set_producer(h.producer_id, encode_producer_state(*committed_.find(h.producer_id)));
  }
}

Result<std::vector<index::IndexStore::ProducerRecord>> LogProducers::cut(Offset offset) {
  accepted_.drop_from(offset);
  auto dropped = committed_.drop_from(offset);
  aborted_.drop_from(offset);
  if (!dropped.unknown.empty()) STRATA_TRY(rescan(dropped.unknown, offset));
  return records();
}

Status LogProducers::rescan(const std::vector<int64_t>& ids, Offset until) {
  // Rare (a cut through more than five of one producer's batches or
  // markers) and blocking: the log's batches below `until` are read from
  // its start, and those of `ids` replayed into tables of their own.
  std::unordered_set<int64_t> wanted(ids.begin(), ids.end());
  ProducerStates rebuilt;
  uint64_t bytes = 0;
  for (auto& [base, seg] : log_.segments_) {
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
    for (auto* table : {&committed_, &accepted_}) {
      if (state) {
        table->put(id, *state);
      } else {
        table->erase(id);
      }
    }
  }
  spdlog::info("partition {}: {} producer(s) rebuilt from the log below {} ({} bytes read)",
               log_.options_.uid, ids.size(), until, bytes);
  return ok_status();
}

size_t LogProducers::expire() {
  const auto& o = log_.options_;
  TimestampMs now = o.clock->now_ms();
  int64_t ttl = o.producer_id_expiration_ms;
  accepted_.expire(now, ttl);
  auto gone = committed_.expire(now, ttl);
  if (gone.empty()) return 0;
  index::IndexStore::Update update(log_.options_.uid);
  for (int64_t id : gone)
    update.set_producer(id, std::nullopt);
  if (auto st = log_.options_.index->write(update); !st) {
    spdlog::error("partition {}: producer state write failed: {}", log_.options_.uid,
                  st.error().to_string());
  }
  spdlog::info("partition {}: {} idempotent producer(s) expired", log_.options_.uid, gone.size());
  return gone.size();
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
