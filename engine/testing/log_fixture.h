// LogFixture: a Log on a fault-injecting file layer in a temporary
// directory, driven by the test thread, with a manual clock and a model of
// what was appended. Shared by the engine's log tests and benchmarks.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "engine/batch_builder.h"
#include "engine/log.h"
#include "io/disk_file_system.h"
#include "io/fault_file_system.h"
#include "io/testing/loop.h"

namespace strata::engine::testing {

// One appended batch as the log stored it.
struct ModelBatch {
  std::vector<std::byte> bytes;  // stamped with its offsets
  BatchHeader header;
  std::vector<TimestampMs> record_timestamps;
};

class LogFixture : public ::testing::Test {
 protected:
  std::filesystem::path log_dir() const { return dir_.path() / "topic-0"; }
  std::filesystem::path index_dir() const { return dir_.path() / "index"; }

  void open_index(bool flush_on_close = true) {
    index_ = index::IndexStore::open(index_dir(), {.flush_on_close = flush_on_close}).value();
  }

  Status open_log(bool clean_start = false) {
    if (!index_) open_index();
    LogOptions o;
    o.uid = uid_;
    o.dir = log_dir();
    o.config = config_;
    o.fs = &fs_;
    o.index = index_.get();
    o.clock = &clock_;
    o.io = &loop_.io();
    o.clean_start = clean_start;
    o.cache_window_bytes = cache_window_bytes_;
    o.cache_drop_chunk_bytes = cache_drop_chunk_bytes_;
    o.on_storage_error = [this](const Error& e) { storage_errors_.push_back(e.to_string()); };
    auto log = Log::open(o);
    if (!log) return std::move(log).error();
    log_ = std::move(log).value();
    return ok_status();
  }

  // Drops the log and the index without a clean close, as a crash would.
  // With `lose_index_memtable`, index writes not yet flushed are lost too.
  void crash(bool lose_index_memtable) {
    log_.reset();
    loop_.run_ready();
    if (lose_index_memtable) {
      index_.reset();  // opened with flush_on_close = false by the caller
    } else {
      ASSERT_TRUE(index_->flush().ok());
      index_.reset();
    }
  }

  void close_cleanly() {
    std::optional<Status> st;
    log_->close([&](Status s) { st = std::move(s); });
    loop_.run_until([&] { return st.has_value(); });
    ASSERT_TRUE(st->ok()) << st->error().to_string();
    log_.reset();
    ASSERT_TRUE(index_->flush().ok());
    index_.reset();
  }

  // A batch of `records` records with timestamps from `ts(i)`.
  std::vector<std::byte> make_batch(int records, size_t value_bytes,
                                    const std::function<TimestampMs(int)>& ts,
                                    Compression codec = Compression::kNone) {
    BatchBuilder b({.compression = codec});
    for (int i = 0; i < records; ++i) {
      std::string value =
          "batch" + std::to_string(batches_made_) + "-rec" + std::to_string(i) + "-";
      value.resize(std::max(value.size(), value_bytes), 'v');
      b.add({.key = "k" + std::to_string(i), .value = value, .timestamp = ts(i)});
    }
    ++batches_made_;
    return b.build().value();
  }

  // Appends without running the loop; the result arrives in `out`.
  Status append_async(std::vector<std::byte> bytes, std::optional<Result<AppendResult>>* out,
                      bool record = true, const AppendOptions& options = {}) {
    auto shared = SharedBytes::copy_of(bytes);
    auto st = log_->append(shared, options, [this, shared, out, record](Result<AppendResult> r) {
      if (r.ok() && record) {
        ModelBatch m;
        m.bytes.assign(shared.data(), shared.data() + shared.size());
        m.header = read_batch_header(shared.data());
        m.record_timestamps = record_timestamps(m);
        model_[m.header.base_offset] = std::move(m);
      }
      if (out) *out = std::move(r);
    });
    return st;
  }

  Result<AppendResult> append(std::vector<std::byte> bytes, const AppendOptions& options = {}) {
    std::optional<Result<AppendResult>> out;
    auto st = append_async(std::move(bytes), &out, true, options);
    if (!st) return std::move(st).error();
    loop_.run_until([&] { return out.has_value(); });
    return std::move(*out);
  }

  Status flush() {
    std::optional<Status> st;
    log_->flush([&](Status s) { st = std::move(s); });
    loop_.run_until([&] { return st.has_value(); });
    return *st;
  }

  Result<ReadResult> read(Offset offset, size_t max_bytes, Offset limit = Offset::max()) {
    std::optional<Result<ReadResult>> out;
    log_->read(offset, max_bytes, limit, [&](Result<ReadResult> r) { out = std::move(r); });
    loop_.run_until([&] { return out.has_value(); });
    return std::move(*out);
  }

  Result<std::optional<TimestampLookup>> lookup(TimestampMs ts) {
    std::optional<Result<std::optional<TimestampLookup>>> out;
    log_->offset_for_timestamp(ts, [&](auto r) { out = std::move(r); });
    loop_.run_until([&] { return out.has_value(); });
    return std::move(*out);
  }

  static std::vector<TimestampMs> record_timestamps(const ModelBatch& m);

  // The batches of a read, split.
  static std::vector<std::vector<std::byte>> split(const ReadResult& r);

  // The earliest (offset, timestamp) with timestamp >= ts among the model's
  // batches at or above `from`.
  std::optional<TimestampLookup> brute_force_lookup(TimestampMs ts, Offset from) const;
  // The log's lookup of `ts` agrees with brute_force_lookup from the log start.
  void expect_lookup_matches_model(TimestampMs ts);

  // Forgets model batches at or above `end` (lost in a crash).
  void model_truncate(Offset end);
  void model_drop_below(Offset start);

  // Checks every read the model allows: a read at each batch's base and
  // last offset returns that batch first, byte for byte, followed by whole
  // consecutive batches within the limit.
  void expect_reads_match_model(size_t max_bytes);
  // Checks the index against the segment files and the model.
  void expect_index_agrees();

  strata::testing::TempDir dir_;
  strata::testing::Loop loop_;
  io::DiskFileSystem disk_{&loop_.ring()};
  io::FaultFileSystem fs_{disk_, loop_.io()};
  ManualClock clock_;
  TopicConfig config_;
  uint64_t cache_window_bytes_ = 0;
  uint64_t cache_drop_chunk_bytes_ = LogOptions{}.cache_drop_chunk_bytes;
  PartitionUid uid_{7};
  std::unique_ptr<index::IndexStore> index_;
  std::unique_ptr<Log> log_;
  // What on_storage_error reported, in order.
  std::vector<std::string> storage_errors_;
  std::map<Offset, ModelBatch> model_;
  int batches_made_ = 0;
};

}  // namespace strata::engine::testing
