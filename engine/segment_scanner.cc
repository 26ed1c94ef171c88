#include "engine/segment_scanner.h"

#include <cstring>

#include <fmt/format.h>

namespace strata::engine {

SegmentScanner::SegmentScanner(io::File& file, uint64_t start, uint64_t end, bool verify_crc,
                               size_t chunk_bytes)
    : file_(file), pos_(start), end_(end), verify_crc_(verify_crc), chunk_bytes_(chunk_bytes) {}

Status SegmentScanner::fill(uint64_t pos, size_t need) {
  if (pos >= buf_pos_ && pos + need <= buf_pos_ + buf_len_) return ok_status();
  size_t want = std::max(need, chunk_bytes_);
  want = static_cast<size_t>(std::min<uint64_t>(want, end_ - pos));
  if (buf_.size() < want) buf_.resize(want);
  STRATA_ASSIGN_OR_RETURN(size_t got, file_.pread(pos, std::span(buf_.data(), want)));
  buf_pos_ = pos;
  buf_len_ = got;
  return ok_status();
}

Result<std::optional<ScannedBatch>> SegmentScanner::next() {
  if (defect_ || pos_ >= end_) return std::optional<ScannedBatch>();
  uint64_t left = end_ - pos_;
  if (left < kBatchHeaderSize) {
    defect_ =
        Error(Errc::kTruncatedBatch, fmt::format("{} stray bytes at position {}", left, pos_));
    return std::optional<ScannedBatch>();
  }
  STRATA_TRY(fill(pos_, kBatchHeaderSize));
  if (buf_len_ < pos_ - buf_pos_ + kBatchHeaderSize) {
    defect_ = Error(Errc::kTruncatedBatch, fmt::format("file ends inside the header at {}", pos_));
    return std::optional<ScannedBatch>();
  }
  int64_t size = peek_batch_size(buf_.data() + (pos_ - buf_pos_));
  if (size < static_cast<int64_t>(kBatchHeaderSize)) {
    defect_ = Error(Errc::kCorruptMessage,
                    fmt::format("batch at position {} has impossible size {}", pos_, size));
    return std::optional<ScannedBatch>();
  }
  if (static_cast<uint64_t>(size) > left) {
    defect_ = Error(
        Errc::kTruncatedBatch,
        fmt::format("batch at position {} of {} bytes is cut off after {}", pos_, size, left));
    return std::optional<ScannedBatch>();
  }
  STRATA_TRY(fill(pos_, static_cast<size_t>(size)));
  if (buf_len_ < pos_ - buf_pos_ + static_cast<uint64_t>(size)) {
    defect_ = Error(Errc::kTruncatedBatch, fmt::format("file shrank under batch at {}", pos_));
    return std::optional<ScannedBatch>();
  }
  std::span<const std::byte> bytes(buf_.data() + (pos_ - buf_pos_), static_cast<size_t>(size));
  Result<BatchHeader> header = Error(Errc::kInternal, "unset");
  if (verify_crc_) {
    header = check_batch_integrity(bytes);
  } else if (be::load<int8_t>(bytes.data() + batch_field::kMagic) != kMagicV2) {
    header = Error(Errc::kUnsupportedMagic, "magic is not 2");
  } else {
    header = read_batch_header(bytes.data());
  }
  if (!header) {
    defect_ = Error(header.error().code(),
                    fmt::format("batch at position {}: {}", pos_, header.error().message()));
    return std::optional<ScannedBatch>();
  }
  ScannedBatch b{pos_, *header, bytes};
  pos_ += static_cast<uint64_t>(size);
  return std::optional<ScannedBatch>(b);
}

}  // namespace strata::engine
