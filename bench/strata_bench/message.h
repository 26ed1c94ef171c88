// The stamp strata-bench writes at the front of every message value, so a
// consumer can measure end-to-end latency and account for every message.
//
//   bytes 0..8    send time, steady-clock nanoseconds (little endian)
//   bytes 8..12   producer index
//   bytes 12..16  reserved, zero
//   bytes 16..24  sequence number within the producer, from 0
//
// The rest of the value is filler. All clients run in one process on one
// machine, so the steady clock is shared by senders and receivers.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace strata::bench {

inline constexpr int kMinMessageSize = 24;

struct Stamp {
  int64_t send_ns = 0;
  uint32_t producer = 0;
  uint64_t sequence = 0;
};

inline int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Writes `s` into the first kMinMessageSize bytes of `value`.
inline void write_stamp(char* value, const Stamp& s) {
  std::memcpy(value, &s.send_ns, 8);
  std::memcpy(value + 8, &s.producer, 4);
  std::memset(value + 12, 0, 4);
  std::memcpy(value + 16, &s.sequence, 8);
}

// Reads the stamp of a received value; nullopt when it is too short to hold one.
inline std::optional<Stamp> read_stamp(std::string_view value) {
  if (value.size() < static_cast<size_t>(kMinMessageSize)) return std::nullopt;
  Stamp s;
  std::memcpy(&s.send_ns, value.data(), 8);
  std::memcpy(&s.producer, value.data() + 8, 4);
  std::memcpy(&s.sequence, value.data() + 16, 8);
  return s;
}

}  // namespace strata::bench
