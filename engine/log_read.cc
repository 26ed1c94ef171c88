// Log::read and Log::offset_for_timestamp: the asynchronous read paths. Both
// find a starting position through the index (or the cached last entry),
// then walk batches forward with a BatchCursor.
#include <algorithm>

#include <fmt/format.h>

#include "engine/batch_cursor.h"
#include "engine/compression.h"
#include "engine/log.h"

namespace strata::engine {
namespace {

// Reads run in chunks at least this large, and at least one index interval
// larger than the byte limit so the batch at the index entry can be skipped.
constexpr size_t kMinChunkBytes = 64 * 1024;
// A compressed batch may not expand beyond this when searched by time.
constexpr size_t kMaxDecompressedBytes = 256 << 20;

}  // namespace

uint64_t Log::start_position(const Segment& seg, Offset offset) const {
  if (const auto* cs = compaction_.swapped_in_for(offset)) {
    // The cleaned range's index is still being written: the cleaned
    // segment's own entries (in offset order) say where its batches are.
    const auto& e = cs->entries;
    auto it = std::upper_bound(e.begin(), e.end(), offset,
                               [](Offset o, const index::IndexEntry& x) { return o < x.offset; });
    return it == e.begin() ? 0 : std::prev(it)->position.value();
  }
  if (last_entry_ && last_entry_->offset <= offset && last_entry_->segment == seg.base) {
    return last_entry_->position.value();
  }
  auto entry = options_.index->offset_floor(options_.uid, offset);
  if (entry.ok() && entry->has_value() && (*entry)->segment == seg.base) {
    return (*entry)->position.value();
  }
  return 0;
}

// Feeds the cursor's batches to `visit` until it returns a result (nullopt
// means "continue"); at the end of the log `visit` gets nullptr and must
// return one. Runs `done` with the result, or with a read error.
template <typename R>
void walk_batches(std::shared_ptr<BatchCursor> cursor,
                  std::function<std::optional<Result<R>>(const CursorBatch*)> visit,
                  std::function<void(Result<R>)> done) {
  struct Walk : std::enable_shared_from_this<Walk> {
    std::shared_ptr<BatchCursor> cursor;
    std::function<std::optional<Result<R>>(const CursorBatch*)> visit;
    std::function<void(Result<R>)> done;
    // The cursor answers batches it holds at once, inside next(): those are
    // taken in this loop rather than by recursion, whose depth would grow
    // with the batches one read walks (thousands of small ones overflowed
    // the stack under ASan).
    void step() {
      auto self = this->shared_from_this();
      for (;;) {
        // 0: next() is running; 1: it answered inside and the walk goes on;
        // 2: next() returned without an answer, which will come later.
        auto state = std::make_shared<int>(0);
        cursor->next([self, state](Result<std::optional<CursorBatch>> next) {
          if (!self->take(std::move(next))) return;
          if (*state == 0) {
            *state = 1;
          } else {
            self->step();
          }
        });
        if (*state != 1) {
          *state = 2;
          return;
        }
      }
    }
    // Visits one answer; false once the walk is done.
    bool take(Result<std::optional<CursorBatch>> next) {
      if (!next) {
        done(std::move(next).error());
        return false;
      }
      const CursorBatch* b = next->has_value() ? &**next : nullptr;
      std::optional<Result<R>> r = visit(b);
      if (r) {
        done(std::move(*r));
        return false;
      }
      STRATA_CHECK(b != nullptr, "visitor continued past the end of the log");
      return true;
    }
  };
  auto w = std::make_shared<Walk>();
  w->cursor = std::move(cursor);
  w->visit = std::move(visit);
  w->done = std::move(done);
  w->step();
}

void Log::read(Offset offset, size_t max_bytes, Offset limit, ReadCallback done) {
  if (offset < start_offset_ || offset > end_offset_) {
    auto err = Error(Errc::kOffsetOutOfRange,
                     fmt::format("offset {} is outside the log {}..{} of partition {}", offset,
                                 start_offset_, end_offset_, options_.uid));
    post([done = std::move(done), err] { done(err); });
    return;
  }
  if (offset == end_offset_ || offset >= limit) {
    post([done = std::move(done), end = end_offset_] { done(ReadResult{{}, 0, end}); });
    return;
  }
  auto seg = segments_.containing(offset);
  STRATA_CHECK(seg != nullptr, "no segment for offset {} in {}..{}", offset, start_offset_,
               end_offset_);
  uint64_t pos = start_position(*seg, offset);
  size_t chunk = std::max(kMinChunkBytes, max_bytes) +
                 static_cast<size_t>(options_.config.index_interval_bytes);
  ++reads_in_flight_;
  auto result = std::make_shared<ReadResult>();
  auto segment = std::make_shared<Offset>(seg->base);
  walk_batches<ReadResult>(
      BatchCursor::start(*this, seg, pos, chunk),
      [this, offset, max_bytes, limit, result,
       segment](const CursorBatch* b) -> std::optional<Result<ReadResult>> {
        auto finish = [&]() -> std::optional<Result<ReadResult>> {
          result->log_end_offset = end_offset_;
          return Result<ReadResult>(std::move(*result));
        };
        if (b == nullptr || b->header.base_offset >= limit) return finish();
        if (b->header.last_offset() < offset) return std::nullopt;
        // A read returns whole batches of one segment; the first always.
        if (result->bytes > 0 &&
            (result->bytes + b->bytes.size() > max_bytes || b->segment != *segment)) {
          return finish();
        }
        *segment = b->segment;
        result->bytes += b->bytes.size();
        // Batches adjacent in one chunk share one slice.
        if (result->slices.empty() || !result->slices.back().try_extend(b->bytes)) {
          result->slices.push_back(b->bytes);
        }
        if (result->bytes >= max_bytes) return finish();
        return std::nullopt;
      },
      [this, alive = alive_, done = std::move(done)](Result<ReadResult> r) {
        if (!*alive) return;
        read_done();
        done(std::move(r));
      });
}

namespace {

// The first record of `b` at or after `ts` (and at or after `min_offset`).
Result<std::optional<TimestampLookup>> search_batch(const CursorBatch& b, TimestampMs ts,
                                                    Offset min_offset) {
  const auto& h = b.header;
  if (h.log_append_time()) {
    // Every record carries the batch's append time.
    return std::optional<TimestampLookup>(
        TimestampLookup{std::max(h.base_offset, min_offset), h.max_timestamp});
  }
  std::vector<std::byte> plain;
  STRATA_ASSIGN_OR_RETURN(auto payload,
                          batch_records(b.bytes.span(), h, plain, kMaxDecompressedBytes));
  std::optional<TimestampLookup> found;
  STRATA_TRY(for_each_record(payload, h.records_count, [&](const RecordView& r) {
    Offset o = h.base_offset + r.offset_delta;
    TimestampMs t = h.base_timestamp + r.timestamp_delta;
    if (t >= ts && o >= min_offset) {
      found = TimestampLookup{o, t};
      return false;
    }
    return true;
  }));
  return found;
}

}  // namespace

void Log::offset_for_timestamp(TimestampMs ts, TimestampCallback done) {
  if (end_offset_ == start_offset_ || ts > applied_.max_timestamp) {
    post([done = std::move(done)] { done(std::optional<TimestampLookup>()); });
    return;
  }
  std::shared_ptr<Segment> seg = segments_.begin()->second;
  uint64_t pos = 0;
  auto entry = options_.index->time_floor(options_.uid, ts);
  if (entry.ok() && entry->has_value() && (*entry)->offset >= start_offset_) {
    auto it = segments_.find((*entry)->segment);
    if (it != segments_.end()) {
      seg = it->second;
      // An entry of a range being swapped in may point into the replaced
      // file: the walk starts at the segment's beginning instead.
      pos = compaction_.swapped_in_for((*entry)->offset) ? 0 : (*entry)->position.value();
    }
  }
  ++reads_in_flight_;
  Offset min_offset = start_offset_;
  walk_batches<std::optional<TimestampLookup>>(
      BatchCursor::start(*this, seg, pos, kMinChunkBytes),
      [ts,
       min_offset](const CursorBatch* b) -> std::optional<Result<std::optional<TimestampLookup>>> {
        if (b == nullptr) return Result<std::optional<TimestampLookup>>(std::nullopt);
        // maxTimestamp is broker-derived in batches written since the
        // validator rewrites it, but not in older ones: only LogAppendTime
        // batches are skipped by it. The index bounds the walk to about one
        // index interval either way.
        if (b->header.last_offset() < min_offset ||
            (b->header.log_append_time() && b->header.max_timestamp < ts)) {
          return std::nullopt;
        }
        auto found = search_batch(*b, ts, min_offset);
        if (!found || found->has_value()) return found;
        return std::nullopt;  // no record of this batch is that late: keep looking
      },
      [this, alive = alive_, done = std::move(done)](Result<std::optional<TimestampLookup>> r) {
        if (!*alive) return;
        read_done();
        done(std::move(r));
      });
}

}  // namespace strata::engine
