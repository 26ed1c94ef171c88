#include "index/compaction_state.h"

#include <algorithm>
#include <atomic>

#include <xxhash.h>

#include "index/key_codec.h"

namespace strata::index {
namespace {

constexpr size_t kEntryFixed = 24;

Error corrupt(std::string_view what) {
  return Error(Errc::kCorruption, std::string(what));
}

// Reads big-endian u64s from a string, failing past its end.
class Reader {
 public:
  explicit Reader(std::string_view v) : v_(v) {}
  bool u64(uint64_t& out) {
    if (v_.size() - pos_ < 8) return false;
    out = keys::read_u64(v_, pos_);
    pos_ += 8;
    return true;
  }
  bool done() const { return pos_ == v_.size(); }

 private:
  std::string_view v_;
  size_t pos_ = 0;
};

}  // namespace

namespace {
std::atomic<KeyHashFn> key_hash_override{nullptr};
}  // namespace

uint64_t key_hash(std::span<const std::byte> key) {
  if (auto fn = key_hash_override.load(std::memory_order_relaxed)) return fn(key);
  return XXH3_64bits(key.data(), key.size());
}

void set_key_hash_for_testing(KeyHashFn fn) {
  key_hash_override.store(fn, std::memory_order_relaxed);
}

std::string encode_key_entry(const KeyEntry& e) {
  std::string v;
  keys::append_u64(v, keys::flip(e.offset.value()));
  keys::append_u64(v, e.generation);
  keys::append_u64(v, keys::flip(e.producer_id));
  v.append(e.key);
  return v;
}

Result<KeyEntry> decode_key_entry(std::string_view v) {
  if (v.size() < kEntryFixed) return corrupt("key map entry too short");
  return KeyEntry{Offset(keys::unflip(keys::read_u64(v, 0))), keys::read_u64(v, 8),
                  keys::unflip(keys::read_u64(v, 16)), std::string(v.substr(kEntryFixed))};
}

bool CompactionState::valid(const KeyEntry& e) const {
  if (e.generation < void_below || e.generation > generation) return false;
  return std::none_of(cuts.begin(), cuts.end(), [&](const KeyMapCut& c) {
    return c.generation > e.generation && e.offset >= c.from;
  });
}

void CompactionState::cut(Offset from) {
  ++generation;
  cuts.push_back(KeyMapCut{generation, from});
  if (cuts.size() > kMaxCuts) {
    void_below = cuts.front().generation;
    cuts.erase(cuts.begin());
  }
  cleaned_through = std::min(cleaned_through, from);
  for (auto& p : passes)
    p.end = std::min(p.end, from);
  passes.erase(
      std::unique(passes.begin(), passes.end(),
                  [](const CleanerPass& a, const CleanerPass& b) { return a.end == b.end; }),
      passes.end());
}

int64_t CompactionState::first_seen_ms(Offset offset, int64_t now) const {
  for (const auto& p : passes) {
    if (offset < p.end) return p.time_ms;
  }
  return now;
}

void CompactionState::add_pass(Offset end, int64_t now, int64_t retention_ms) {
  if (passes.empty() || end > passes.back().end) passes.push_back(CleanerPass{end, now});
  // Every pass up to the last expired one: their tombstones may all go, so
  // one pass with the last one's end and time stands for them.
  size_t expired = 0;
  for (size_t i = 0; i < passes.size(); ++i) {
    if (passes[i].time_ms <= now - retention_ms) expired = i + 1;
  }
  if (expired > 1) passes.erase(passes.begin(), passes.begin() + static_cast<long>(expired - 1));
  // Too many: the oldest two become one with the later time, which can only
  // keep tombstones longer.
  while (passes.size() > kMaxPasses)
    passes.erase(passes.begin());
}

std::string encode_compaction_state(const CompactionState& s) {
  std::string v;
  keys::append_u64(v, s.generation);
  keys::append_u64(v, s.void_below);
  keys::append_u64(v, s.cuts.size());
  for (const auto& c : s.cuts) {
    keys::append_u64(v, c.generation);
    keys::append_u64(v, keys::flip(c.from.value()));
  }
  keys::append_u64(v, keys::flip(s.cleaned_through.value()));
  keys::append_u64(v, s.passes.size());
  for (const auto& p : s.passes) {
    keys::append_u64(v, keys::flip(p.end.value()));
    keys::append_u64(v, keys::flip(p.time_ms));
  }
  keys::append_u64(v, keys::flip(s.last_cleaned_ms));
  return v;
}

Result<CompactionState> decode_compaction_state(std::string_view v) {
  CompactionState s;
  Reader r(v);
  uint64_t n = 0, a = 0, b = 0;
  if (!r.u64(s.generation) || !r.u64(s.void_below) || !r.u64(n) || n > CompactionState::kMaxCuts) {
    return corrupt("compaction state: bad header");
  }
  for (uint64_t i = 0; i < n; ++i) {
    if (!r.u64(a) || !r.u64(b)) return corrupt("compaction state: short cut list");
    s.cuts.push_back(KeyMapCut{a, Offset(keys::unflip(b))});
  }
  if (!r.u64(a) || !r.u64(n) || n > CompactionState::kMaxPasses) {
    return corrupt("compaction state: bad pass list");
  }
  s.cleaned_through = Offset(keys::unflip(a));
  for (uint64_t i = 0; i < n; ++i) {
    if (!r.u64(a) || !r.u64(b)) return corrupt("compaction state: short pass list");
    s.passes.push_back(CleanerPass{Offset(keys::unflip(a)), keys::unflip(b)});
  }
  if (!r.u64(a) || !r.done()) return corrupt("compaction state: bad tail");
  s.last_cleaned_ms = keys::unflip(a);
  return s;
}

}  // namespace strata::index
