#include "engine/batch_cursor.h"

#include <fmt/format.h>

#include "engine/log.h"

namespace strata::engine {

std::shared_ptr<BatchCursor> BatchCursor::start(Log& log, std::shared_ptr<Segment> segment,
                                                uint64_t position, size_t chunk_bytes) {
  return std::shared_ptr<BatchCursor>(
      new BatchCursor(log, std::move(segment), position, chunk_bytes));
}

void BatchCursor::next(NextCallback done) {
  // Move on to the next segment when this one is exhausted.
  while (position_ >= segment_->size) {
    auto next = log_.segments().after(segment_->base);
    if (!next) return done(std::optional<CursorBatch>());
    segment_ = std::move(next);
    position_ = 0;
    chunk_ = SharedBytes();
  }
  uint64_t limit = segment_->size;
  bool in_chunk = position_ >= chunk_position_ &&
                  position_ + kBatchHeaderSize <= chunk_position_ + chunk_.size();
  if (!in_chunk) return read_chunk(kBatchHeaderSize, std::move(done));

  const std::byte* p = chunk_.data() + (position_ - chunk_position_);
  int64_t size = peek_batch_size(p);
  if (size < static_cast<int64_t>(kBatchHeaderSize) ||
      position_ + static_cast<uint64_t>(size) > limit ||
      be::load<int8_t>(p + batch_field::kMagic) != kMagicV2) {
    return done(
        Error(Errc::kCorruption, fmt::format("segment {} of partition {}: bad batch at position {}",
                                             segment_->base, log_.uid(), position_)));
  }
  if (position_ + static_cast<uint64_t>(size) > chunk_position_ + chunk_.size()) {
    return read_chunk(static_cast<size_t>(size), std::move(done));
  }
  SharedBytes bytes = chunk_.slice(position_ - chunk_position_, static_cast<size_t>(size));
#ifndef NDEBUG
  auto checked = check_batch_integrity(bytes.span());
  STRATA_CHECK(checked.ok(), "committed batch fails its check: {}", checked.error().to_string());
#endif
  CursorBatch batch{read_batch_header(bytes.data()), bytes, segment_->base, position_};
  position_ += static_cast<uint64_t>(size);
  done(std::optional<CursorBatch>(std::move(batch)));
}

void BatchCursor::read_chunk(size_t need, NextCallback done) {
  uint64_t limit = segment_->size;
  size_t len =
      static_cast<size_t>(std::min<uint64_t>(std::max(need, chunk_bytes_), limit - position_));
  auto buf = SharedBytes::allocate(len);
  auto self = shared_from_this();
  auto segment = segment_;
  uint64_t pos = position_;
  segment->file->read_at(
      pos, buf.span(),
      [self, segment, buf, pos, need, done = std::move(done)](Result<size_t> got) mutable {
        if (!got) return done(std::move(got).error());
        if (*got < std::min<size_t>(need, buf.size())) {
          return done(Error(Errc::kCorruption,
                            fmt::format("segment {} is shorter than its committed size: read {} of "
                                        "{} bytes at {}",
                                        segment->base, *got, buf.size(), pos)));
        }
        self->chunk_ = buf.slice(0, *got);
        self->chunk_position_ = pos;
        self->next(std::move(done));
      });
}

}  // namespace strata::engine
