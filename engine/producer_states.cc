#include "engine/producer_states.h"

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

// The encoding: version u8 = 1 | epoch i16 | last_write_ms i64 | count u8 |
// count × (first i32, last i32, base i64, last i64), big-endian.
constexpr uint8_t kFormat = 1;
constexpr size_t kFixed = 1 + 2 + 8 + 1;
constexpr size_t kPerBatch = 4 + 4 + 8 + 8;

}  // namespace

std::string encode_producer_state(const ProducerState& state) {
  std::string out(kFixed + kPerBatch * state.batches.size(), '\0');
  auto* p = reinterpret_cast<std::byte*>(out.data());
  p[0] = std::byte{kFormat};
  be::store<int16_t>(p + 1, state.epoch);
  be::store<int64_t>(p + 3, state.last_write_ms);
  p[11] = static_cast<std::byte>(state.batches.size());
  p += kFixed;
  for (const auto& b : state.batches) {
    be::store<int32_t>(p, b.first_sequence);
    be::store<int32_t>(p + 4, b.last_sequence);
    be::store<int64_t>(p + 8, b.base_offset.value());
    be::store<int64_t>(p + 16, b.last_offset.value());
    p += kPerBatch;
  }
  return out;
}

Result<ProducerState> decode_producer_state(std::string_view bytes) {
  const auto* p = reinterpret_cast<const std::byte*>(bytes.data());
  if (bytes.size() < kFixed || std::to_integer<uint8_t>(p[0]) != kFormat) {
    return Error(Errc::kCorruption, fmt::format("producer state of {} byte(s) is not of format {}",
                                                bytes.size(), kFormat));
  }
  size_t count = std::to_integer<uint8_t>(p[11]);
  if (bytes.size() != kFixed + count * kPerBatch || count > ProducerStates::kKeptBatches) {
    return Error(Errc::kCorruption, fmt::format("producer state of {} byte(s) with {} batch(es)",
                                                bytes.size(), count));
  }
  ProducerState s;
  s.epoch = be::load<int16_t>(p + 1);
  s.last_write_ms = be::load<int64_t>(p + 3);
  p += kFixed;
  for (size_t i = 0; i < count; ++i, p += kPerBatch) {
    s.batches.push_back(ProducerBatch{be::load<int32_t>(p), be::load<int32_t>(p + 4),
                                      Offset(be::load<int64_t>(p + 8)),
                                      Offset(be::load<int64_t>(p + 16))});
  }
  return s;
}

Result<ProducerStates::Verdict> ProducerStates::check(const BatchHeader& h) const {
  if (!idempotent(h)) return Verdict{};
  auto it = states_.find(h.producer_id);
  if (it == states_.end() || it->second.batches.empty()) return Verdict{};
  const ProducerState& s = it->second;
  if (h.producer_epoch < s.epoch) {
    return Error(Errc::kInvalidProducerEpoch,
                 fmt::format("producer {} at epoch {}, older than its epoch {} here", h.producer_id,
                             h.producer_epoch, s.epoch));
  }
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

bool ProducerStates::apply(const BatchHeader& h, TimestampMs now_ms) {
  if (!idempotent(h)) return false;
  ProducerState& s = states_[h.producer_id];
  if (!s.batches.empty()) {
    if (h.base_offset <= s.batches.back().last_offset) return false;  // already here
    if (h.producer_epoch != s.epoch) s.batches.clear();
  }
  s.epoch = h.producer_epoch;
  s.batches.push_back(
      ProducerBatch{h.base_sequence, last_sequence(h), h.base_offset, h.last_offset()});
  while (s.batches.size() > kKeptBatches)
    s.batches.pop_front();
  s.last_write_ms = now_ms;
  return true;
}

std::vector<int64_t> ProducerStates::drop_from(Offset offset) {
  std::vector<int64_t> changed;
  for (auto it = states_.begin(); it != states_.end();) {
    auto& batches = it->second.batches;
    size_t before = batches.size();
    while (!batches.empty() && batches.back().base_offset >= offset)
      batches.pop_back();
    if (batches.size() != before) changed.push_back(it->first);
    it = batches.empty() ? states_.erase(it) : std::next(it);
  }
  return changed;
}

std::vector<int64_t> ProducerStates::expire(TimestampMs now_ms, int64_t expiration_ms) {
  std::vector<int64_t> gone;
  for (auto it = states_.begin(); it != states_.end();) {
    if (now_ms - it->second.last_write_ms > expiration_ms) {
      gone.push_back(it->first);
      it = states_.erase(it);
    } else {
      ++it;
    }
  }
  return gone;
}

const ProducerState* ProducerStates::find(int64_t producer_id) const {
  auto it = states_.find(producer_id);
  return it == states_.end() ? nullptr : &it->second;
}

}  // namespace strata::engine
