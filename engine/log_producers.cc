// Log: the idempotent producers' state (ProducerStates) — loaded from the
// index at open, kept with every committed batch, cut with the log,
// expired, and the answer to a retried batch.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engine/log.h"

namespace strata::engine {

Status Log::load_producers(Offset before) {
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
  // What the marker does not cover goes; recovery's scan applies it again
  // if it is still in the log, and its last index write stores the table.
  committed_producers_.drop_from(before);
  return ok_status();
}

std::vector<index::IndexStore::ProducerRecord> Log::producer_records() const {
  std::vector<index::IndexStore::ProducerRecord> out;
  for (const auto& [id, state] : committed_producers_.all())
    out.emplace_back(id, encode_producer_state(state));
  return out;
}

void Log::track_producer(const BatchHeader& h, index::IndexStore::Update& update) {
  if (!idempotent(h)) return;
  // The batch's own timestamp (as Kafka's lastTimestamp): leader, followers
  // and recovery derive the same state from the same bytes.
  if (committed_producers_.apply(h, h.max_timestamp)) {
    update.set_producer(h.producer_id,
                        encode_producer_state(*committed_producers_.find(h.producer_id)));
  }
}

std::vector<index::IndexStore::ProducerRecord> Log::cut_producers(Offset offset) {
  producers_.drop_from(offset);
  committed_producers_.drop_from(offset);
  return producer_records();
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
