#include "engine/testing/log_fixture.h"

#include <fcntl.h>
#include <unistd.h>

#include "base/big_endian.h"
#include "engine/compression.h"

namespace strata::engine::testing {

std::vector<TimestampMs> LogFixture::record_timestamps(const ModelBatch& m) {
  std::vector<TimestampMs> out;
  const auto& h = m.header;
  if (h.log_append_time()) return std::vector<TimestampMs>(h.records_count, h.max_timestamp);
  std::span<const std::byte> payload(m.bytes.data() + kBatchHeaderSize,
                                     m.bytes.size() - kBatchHeaderSize);
  auto plain = decompress(h.compression(), payload, 1 << 30).value();
  auto st = for_each_record(plain, h.records_count, [&](const RecordView& r) {
    out.push_back(h.base_timestamp + r.timestamp_delta);
    return true;
  });
  EXPECT_TRUE(st.ok());
  return out;
}

std::vector<std::vector<std::byte>> LogFixture::split(const ReadResult& r) {
  std::vector<std::vector<std::byte>> out;
  for (const auto& s : r.slices) {
    size_t pos = 0;
    while (pos < s.size()) {
      size_t n = static_cast<size_t>(peek_batch_size(s.data() + pos));
      EXPECT_LE(pos + n, s.size()) << "a slice ends inside a batch";
      out.emplace_back(s.data() + pos, s.data() + pos + n);
      pos += n;
    }
  }
  return out;
}

std::optional<TimestampLookup> LogFixture::brute_force_lookup(TimestampMs ts, Offset from) const {
  for (const auto& [base, m] : model_) {
    for (size_t i = 0; i < m.record_timestamps.size(); ++i) {
      Offset o = base + static_cast<int64_t>(i);
      if (o >= from && m.record_timestamps[i] >= ts) {
        return TimestampLookup{o, m.record_timestamps[i]};
      }
    }
  }
  return std::nullopt;
}

void LogFixture::model_truncate(Offset end) {
  model_.erase(model_.lower_bound(end), model_.end());
}

void LogFixture::model_drop_below(Offset start) {
  model_.erase(model_.begin(), model_.lower_bound(start));
}

void LogFixture::expect_reads_match_model(size_t max_bytes) {
  ASSERT_FALSE(model_.empty());
  EXPECT_EQ(log_->log_start_offset(), model_.begin()->first);
  EXPECT_EQ(log_->log_end_offset(), model_.rbegin()->second.header.next_offset());
  for (auto it = model_.begin(); it != model_.end(); ++it) {
    const auto& h = it->second.header;
    for (Offset at : {h.base_offset, h.base_offset + h.last_offset_delta / 2, h.last_offset()}) {
      auto r = read(at, max_bytes);
      ASSERT_TRUE(r.ok()) << "read at " << at << ": " << r.error().to_string();
      auto batches = split(*r);
      ASSERT_FALSE(batches.empty()) << "read at " << at;
      EXPECT_EQ(r->bytes, [&] {
        size_t n = 0;
        for (auto& b : batches)
          n += b.size();
        return n;
      }());
      if (batches.size() > 1) {
        EXPECT_LE(r->bytes, max_bytes);
      }
      auto expect = it;
      for (const auto& b : batches) {
        ASSERT_NE(expect, model_.end()) << "read past the model at " << at;
        ASSERT_EQ(b, expect->second.bytes) << "batch " << expect->first << " read at " << at;
        ++expect;
      }
    }
  }
}

void LogFixture::expect_lookup_matches_model(TimestampMs ts) {
  auto got = lookup(ts);
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  auto want = brute_force_lookup(ts, log_->log_start_offset());
  ASSERT_EQ(got->has_value(), want.has_value()) << "ts " << ts;
  if (want) {
    EXPECT_EQ((*got)->offset, want->offset) << "ts " << ts;
    EXPECT_EQ((*got)->timestamp, want->timestamp) << "ts " << ts;
  }
}

void LogFixture::expect_index_agrees() {
  auto entries = index_->offset_entries(uid_).value();
  auto time_entries = index_->time_entries(uid_).value();
  ASSERT_EQ(entries.size(), time_entries.size());
  std::optional<Offset> prev;
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    EXPECT_EQ(e, time_entries[i]);
    if (prev) {
      EXPECT_GT(e.offset, *prev);
    }
    prev = e.offset;
    ASSERT_TRUE(model_.count(e.offset)) << "index entry at " << e.offset << " names no batch";
    EXPECT_LT(e.offset, log_->log_end_offset());
    // The entry points at the batch's bytes in its segment file.
    auto path = log_dir() / segment_file_name(e.segment);
    int fd = ::open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0) << path;
    std::vector<std::byte> header(kBatchHeaderSize);
    ASSERT_EQ(::pread(fd, header.data(), header.size(), static_cast<off_t>(e.position.value())),
              static_cast<ssize_t>(kBatchHeaderSize));
    ::close(fd);
    EXPECT_EQ(read_batch_header(header.data()).base_offset, e.offset);
    // max_timestamp_before is the largest timestamp of every earlier record
    // that is still in the log.
    TimestampMs max_before = index::kNoTimestamp;
    for (const auto& [base, m] : model_) {
      if (base >= e.offset) break;
      max_before = std::max(max_before, m.header.max_timestamp);
    }
    if (model_.begin()->first == e.offset || max_before != index::kNoTimestamp) {
      EXPECT_GE(e.max_timestamp_before, max_before) << "entry at " << e.offset;
    }
  }
  // Every segment's first batch has an entry.
  for (Offset base : log_->segments().bases()) {
    auto seg = log_->segments().containing(base);
    if (seg->size == 0) continue;
    bool found = false;
    for (const auto& e : entries)
      found |= e.segment == base && e.position == FilePos(0);
    EXPECT_TRUE(found) << "segment " << base << " has no entry for its first batch";
  }
  auto applied = index_->applied(uid_).value();
  ASSERT_TRUE(applied.has_value());
  EXPECT_EQ(applied->next_offset, log_->log_end_offset());
}

}  // namespace strata::engine::testing
