// What the index keeps for log compaction (issue 15): the key map — each
// key's latest record in a partition, by a 64-bit hash of the key — and the
// partition's compaction state: how far it is cleaned, when each cleaning
// passed, and the cuts that void key-map entries.
//
// A key-map entry is a promise that the record at `offset` carries `key`
// and supersedes every earlier record of it. A truncation (a follower's
// divergent tail, a crash that lost unsynced bytes the index had seen)
// breaks that promise for entries at or above the cut: rather than find and
// delete them, the cut bumps the map's generation and is remembered, and an
// entry written before it is void when its offset is at or above the cut.
// A void, missing or colliding entry makes the cleaner keep a record,
// never drop one.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/ids.h"
#include "base/result.h"

namespace strata::index {

// The hash the key map is keyed by (XXH3, 64 bits; stable across runs).
uint64_t key_hash(std::span<const std::byte> key);

// Tests only: replaces key_hash (to force collisions); nullptr restores it.
using KeyHashFn = uint64_t (*)(std::span<const std::byte>);
void set_key_hash_for_testing(KeyHashFn fn);

struct KeyEntry {
  Offset offset;
  uint64_t generation = 0;   // the map's generation when the entry was written
  int64_t producer_id = -1;  // the transactional producer that wrote it; -1: not transactional
  std::string key;           // the whole key: a hash collision is seen, never trusted
  bool operator==(const KeyEntry&) const = default;
};

std::string encode_key_entry(const KeyEntry& e);
Result<KeyEntry> decode_key_entry(std::string_view v);

struct KeyMapCut {
  uint64_t generation;  // the generation the cut began
  Offset from;          // entries of earlier generations at or above it are void
  bool operator==(const KeyMapCut&) const = default;
};

// One cleaning of the partition: it covered the log below `end` at `time_ms`.
// A tombstone is first seen by the first cleaning whose end is above it and
// removed by a cleaning delete.retention.ms after that one.
struct CleanerPass {
  Offset end;
  int64_t time_ms = 0;
  bool operator==(const CleanerPass&) const = default;
};

struct CompactionState {
  // At most this many cuts are kept; entries older than the oldest kept
  // cut's generation count as void.
  static constexpr size_t kMaxCuts = 32;
  static constexpr size_t kMaxPasses = 32;

  uint64_t generation = 0;
  std::vector<KeyMapCut> cuts;      // oldest first
  uint64_t void_below = 0;          // entries of generations below this are void (cuts forgotten)
  Offset cleaned_through{0};        // the first offset the last cleaning did not cover
  std::vector<CleanerPass> passes;  // by end, ascending
  int64_t last_cleaned_ms = 0;      // 0: never cleaned
  bool operator==(const CompactionState&) const = default;

  // Whether `e` still names the latest record of its key (as far as the map knows).
  bool valid(const KeyEntry& e) const;
  // A truncation of the log at `from`: bumps the generation, remembers the
  // cut, and pulls the cleaned point and the passes back to it.
  void cut(Offset from);
  // When a tombstone at `offset` was first seen by a cleaning (`now` if by none yet).
  int64_t first_seen_ms(Offset offset, int64_t now) const;
  // Records a cleaning that covered the log below `end` at `now`; passes
  // whose tombstones have all outlived `retention_ms` are merged.
  void add_pass(Offset end, int64_t now, int64_t retention_ms);
};

std::string encode_compaction_state(const CompactionState& s);
Result<CompactionState> decode_compaction_state(std::string_view v);

}  // namespace strata::index
