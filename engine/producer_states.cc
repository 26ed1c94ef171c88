#include "engine/producer_states.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/big_endian.h"

namespace strata::engine {

namespace {

// Sequence numbers wrap from INT32_MAX to 0.
int32_t add_sequence(int32_t seq, int32_t n) {
  int64_t next = static_cast<int64_t>(seq) + n;
  return static_cast<int32_t>(next > INT32_MAX ? next - INT32_MAX - 1 : next);
}

int32_t last_sequence(const BatchHeader& h) {
  return add_sequence(h.base_sequence, h.last_offset_delta);
}

// The encoding, big-endian: version u8 = 2 | epoch i16 | last_write_ms i64
// | coordinator_epoch i32 | txn_first_offset i64 (-1: none) | last_offset
// i64 | batches u8 |
// txns u8 | batches × (first i32, last i32, base i64, last i64) | txns ×
// (first i64, marker i64). Version 1 (before transactions) is epoch,
// last_write_ms and the batches only.
constexpr uint8_t kFormat = 2;
constexpr size_t kFixed1 = 1 + 2 + 8 + 1;
constexpr size_t kFixed = 1 + 2 + 8 + 4 + 8 + 8 + 1 + 1;
constexpr size_t kPerBatch = 4 + 4 + 8 + 8;
constexpr size_t kPerTxn = 8 + 8;

Error bad_state(size_t size, std::string_view why) {
  return Error(Errc::kCorruption, fmt::format("producer state of {} byte(s): {}", size, why));
}

}  // namespace

std::string encode_producer_state(const ProducerState& state) {
  std::string out(kFixed + kPerBatch * state.batches.size() + kPerTxn * state.txns.size(), '\0');
  auto* p = reinterpret_cast<std::byte*>(out.data());
  p[0] = std::byte{kFormat};
  be::store<int16_t>(p + 1, state.epoch);
  be::store<int64_t>(p + 3, state.last_write_ms);
  be::store<int32_t>(p + 11, state.coordinator_epoch);
  be::store<int64_t>(p + 15, state.txn_first_offset ? state.txn_first_offset->value() : -1);
  be::store<int64_t>(p + 23, state.last_offset.value());
  p[31] = static_cast<std::byte>(state.batches.size());
  p[32] = static_cast<std::byte>(state.txns.size());
  p += kFixed;
  for (const auto& b : state.batches) {
    be::store<int32_t>(p, b.first_sequence);
    be::store<int32_t>(p + 4, b.last_sequence);
    be::store<int64_t>(p + 8, b.base_offset.value());
    be::store<int64_t>(p + 16, b.last_offset.value());
    p += kPerBatch;
  }
  for (const auto& t : state.txns) {
    be::store<int64_t>(p, t.first_offset.value());
    be::store<int64_t>(p + 8, t.marker_offset.value());
    p += kPerTxn;
  }
  return out;
}

Result<ProducerState> decode_producer_state(std::string_view bytes) {
  const auto* p = reinterpret_cast<const std::byte*>(bytes.data());
  uint8_t format = bytes.empty() ? 0 : std::to_integer<uint8_t>(p[0]);
  if (format != 1 && format != kFormat) {
    return bad_state(bytes.size(), fmt::format("unknown format {}", format));
  }
  size_t fixed = format == 1 ? kFixed1 : kFixed;
  if (bytes.size() < fixed) return bad_state(bytes.size(), "shorter than its header");
  ProducerState s;
  s.epoch = be::load<int16_t>(p + 1);
  s.last_write_ms = be::load<int64_t>(p + 3);
  size_t batches = 0;
  size_t txns = 0;
  if (format == 1) {
    batches = std::to_integer<uint8_t>(p[11]);
  } else {
    s.coordinator_epoch = be::load<int32_t>(p + 11);
    int64_t first = be::load<int64_t>(p + 15);
    if (first >= 0) s.txn_first_offset = Offset(first);
    s.last_offset = Offset(be::load<int64_t>(p + 23));
    batches = std::to_integer<uint8_t>(p[31]);
    txns = std::to_integer<uint8_t>(p[32]);
  }
  if (bytes.size() != fixed + batches * kPerBatch + txns * kPerTxn ||
      batches > ProducerStates::kKeptBatches || txns > ProducerStates::kKeptBatches) {
    return bad_state(bytes.size(), fmt::format("{} batch(es), {} transaction(s)", batches, txns));
  }
  p += fixed;
  for (size_t i = 0; i < batches; ++i, p += kPerBatch) {
    s.batches.push_back(ProducerBatch{be::load<int32_t>(p), be::load<int32_t>(p + 4),
                                      Offset(be::load<int64_t>(p + 8)),
                                      Offset(be::load<int64_t>(p + 16))});
  }
  for (size_t i = 0; i < txns; ++i, p += kPerTxn)
    s.txns.push_back(TxnSpan{Offset(be::load<int64_t>(p)), Offset(be::load<int64_t>(p + 8))});
  if (format == 1 && !s.batches.empty()) s.last_offset = s.batches.back().last_offset;
  return s;
}

Result<ProducerStates::Verdict> ProducerStates::check(const BatchHeader& h) const {
  if (!idempotent(h)) return Verdict{};
  auto it = states_.find(h.producer_id);
  if (it == states_.end()) return Verdict{};
  const ProducerState& s = it->second;
  if (h.producer_epoch < s.epoch) {
    return Error(Errc::kInvalidProducerEpoch,
                 fmt::format("producer {} at epoch {}, older than its epoch {} here", h.producer_id,
                             h.producer_epoch, s.epoch));
  }
  // No batch kept (only a marker seen): any sequence.
  if (s.batches.empty()) return Verdict{};
  if (h.producer_epoch > s.epoch) {
    if (h.base_sequence != 0) {
      return Error(Errc::kOutOfOrderSequence,
                   fmt::format("producer {} starts its new epoch {} at sequence {}, not 0",
                               h.producer_id, h.producer_epoch, h.base_sequence));
    }
    return Verdict{};
  }
  int32_t last = last_sequence(h);
  for (const auto& b : s.batches) {
    if (b.first_sequence == h.base_sequence && b.last_sequence == last) return Verdict{b};
  }
  int32_t expected = add_sequence(s.batches.back().last_sequence, 1);
  if (h.base_sequence != expected) {
    return Error(Errc::kOutOfOrderSequence,
                 fmt::format("producer {} (epoch {}) sent sequence {} where {} was expected",
                             h.producer_id, h.producer_epoch, h.base_sequence, expected));
  }
  return Verdict{};
}

Status ProducerStates::check_epoch(const BatchHeader& h) const {
  if (!idempotent(h)) return ok_status();
  auto it = states_.find(h.producer_id);
  if (it == states_.end() || h.producer_epoch >= it->second.epoch) return ok_status();
  return Error(Errc::kInvalidProducerEpoch,
               fmt::format("producer {} at epoch {}, older than its epoch {} here", h.producer_id,
                           h.producer_epoch, it->second.epoch));
}

bool ProducerStates::apply(const BatchHeader& h, TimestampMs now_ms) {
  if (!idempotent(h)) return false;
  ProducerState& s = states_[h.producer_id];
  if (h.base_offset <= s.last_offset) return false;  // already here
  if (h.producer_epoch != s.epoch) s.batches.clear();
  s.epoch = h.producer_epoch;
  s.last_offset = h.last_offset();
  s.batches.push_back(
      ProducerBatch{h.base_sequence, last_sequence(h), h.base_offset, h.last_offset()});
  while (s.batches.size() > kKeptBatches)
    s.batches.pop_front();
  if (h.transactional() && !s.txn_first_offset) {
    s.txn_first_offset = h.base_offset;
    transactional_.insert(h.producer_id);
  }
  s.last_write_ms = now_ms;
  return true;
}

Status ProducerStates::check_marker(const TxnMarker& m) const {
  auto it = states_.find(m.producer_id);
  if (it == states_.end()) return ok_status();
  const ProducerState& s = it->second;
  if (m.producer_epoch < s.epoch) {
    return Error(Errc::kInvalidProducerEpoch,
                 fmt::format("a marker for producer {} at epoch {}, older than its epoch {} here",
                             m.producer_id, m.producer_epoch, s.epoch));
  }
  if (m.coordinator_epoch < s.coordinator_epoch) {
    return Error(Errc::kTransactionCoordinatorFenced,
                 fmt::format("a marker for producer {} from coordinator epoch {}, older than {}",
                             m.producer_id, m.coordinator_epoch, s.coordinator_epoch));
  }
  return ok_status();
}

ProducerStates::MarkerEffect ProducerStates::apply_marker(const TxnMarker& m, Offset offset,
                                                          TimestampMs now_ms) {
  ProducerState& s = states_[m.producer_id];
  if (offset <= s.last_offset) return {};  // already here
  s.last_offset = offset;
  MarkerEffect effect{.changed = true};
  if (s.txn_first_offset) {
    if (!m.commit) effect.aborted = AbortedTxn{m.producer_id, *s.txn_first_offset, offset};
    s.txns.push_back(TxnSpan{*s.txn_first_offset, offset});
    while (s.txns.size() > kKeptBatches)
      s.txns.pop_front();
    s.txn_first_offset.reset();
  }
  // A marker may carry a newer epoch (the coordinator fencing the
  // producer): its sequences start again.
  if (m.producer_epoch != s.epoch) s.batches.clear();
  s.epoch = m.producer_epoch;
  s.coordinator_epoch = m.coordinator_epoch;
  s.last_write_ms = now_ms;
  return effect;
}

Offset ProducerStates::last_stable_offset(Offset high_watermark) const {
  Offset lso = high_watermark;
  for (int64_t id : transactional_) {
    const ProducerState& s = states_.at(id);
    if (s.txn_first_offset) lso = std::min(lso, *s.txn_first_offset);
    for (auto t = s.txns.rbegin(); t != s.txns.rend() && t->marker_offset >= high_watermark; ++t)
      lso = std::min(lso, t->first_offset);
  }
  return lso;
}

ProducerStates::Dropped ProducerStates::drop_from(Offset offset) {
  Dropped dropped;
  for (auto it = states_.begin(); it != states_.end();) {
    ProducerState& s = it->second;
    bool cut = false;
    // A full history that goes entirely: what came before it is unknown.
    bool unknown = (s.batches.size() >= kKeptBatches && s.batches.front().base_offset >= offset) ||
                   (s.txns.size() >= kKeptBatches && s.txns.front().marker_offset >= offset);
    while (!s.batches.empty() && s.batches.back().base_offset >= offset) {
      s.batches.pop_back();
      cut = true;
    }
    if (s.txn_first_offset && *s.txn_first_offset >= offset) {
      s.txn_first_offset.reset();
      cut = true;
    }
    while (!s.txns.empty() && s.txns.back().marker_offset >= offset) {
      if (s.txns.back().first_offset < offset) s.txn_first_offset = s.txns.back().first_offset;
      s.txns.pop_back();
      cut = true;
    }
    if (unknown) dropped.unknown.push_back(it->first);
    if (cut) {
      dropped.changed.push_back(it->first);
      Offset last(-1);
      if (!s.batches.empty()) last = std::max(last, s.batches.back().last_offset);
      if (!s.txns.empty()) last = std::max(last, s.txns.back().marker_offset);
      if (s.txn_first_offset) last = std::max(last, *s.txn_first_offset);
      s.last_offset = last;
    }
    track_transactional(it->first, s);
    bool empty = s.batches.empty() && s.txns.empty() && !s.txn_first_offset;
    it = empty ? states_.erase(it) : std::next(it);
  }
  return dropped;
}

std::vector<int64_t> ProducerStates::expire(TimestampMs now_ms, int64_t expiration_ms) {
  std::vector<int64_t> gone;
  for (auto it = states_.begin(); it != states_.end();) {
    if (now_ms - it->second.last_write_ms > expiration_ms && !it->second.txn_first_offset) {
      gone.push_back(it->first);
      transactional_.erase(it->first);
      it = states_.erase(it);
    } else {
      ++it;
    }
  }
  return gone;
}

void ProducerStates::put(int64_t producer_id, ProducerState state) {
  track_transactional(producer_id, state);
  states_[producer_id] = std::move(state);
}

void ProducerStates::erase(int64_t producer_id) {
  states_.erase(producer_id);
  transactional_.erase(producer_id);
}

void ProducerStates::track_transactional(int64_t id, const ProducerState& s) {
  if (s.txn_first_offset || !s.txns.empty()) {
    transactional_.insert(id);
  } else {
    transactional_.erase(id);
  }
}

const ProducerState* ProducerStates::find(int64_t producer_id) const {
  auto it = states_.find(producer_id);
  return it == states_.end() ? nullptr : &it->second;
}

}  // namespace strata::engine
