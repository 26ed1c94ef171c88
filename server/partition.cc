#include "server/partition.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engine/batch_recompress.h"
#include "engine/legacy_records.h"
#include "server/kafka/header.h"

namespace strata::server {

Offset Partition::high_watermark() const {
  return log_->config().durability == engine::Durability::kFsync ? log_->durable_offset()
                                                                 : log_->log_end_offset();
}

namespace {

// What the wrappers of one legacy message set may decompress to.
constexpr size_t kMaxLegacyExpandedBytes = 64 << 20;

// Splits a record set into batches by their length fields.
Result<std::vector<SharedBytes>> split_batches(const kafka::Records& records) {
  std::vector<SharedBytes> batches;
  for (const auto& slice : records.slices) {
    size_t pos = 0;
    while (pos < slice.size()) {
      size_t left = slice.size() - pos;
      if (left < engine::kBatchLogOverhead) {
        return Error(Errc::kCorruptMessage,
                     fmt::format("{} stray bytes after the last batch", left));
      }
      int64_t size = engine::peek_batch_size(slice.data() + pos);
      if (size < static_cast<int64_t>(engine::kBatchLogOverhead) ||
          static_cast<uint64_t>(size) > left) {
        // Let the validator name the defect precisely.
        auto checked = engine::check_batch_integrity(std::span<const std::byte>(
            slice.data() + pos, std::min<size_t>(left, size > 0 ? size : left)));
        return checked.ok() ? Error(Errc::kCorruptMessage, "batch overruns the record set")
                            : checked.error();
      }
      batches.push_back(slice.slice(pos, static_cast<size_t>(size)));
      pos += static_cast<size_t>(size);
    }
  }
  return batches;
}

// A record set of magic 0/1 messages (Produce v0-v2) as one v2 batch, as
// Kafka up-converts them.
Result<std::vector<SharedBytes>> up_convert(const kafka::Records& records) {
  SharedBytes set = records.slices.size() == 1 ? records.slices[0] : kafka::concat(records.slices);
  STRATA_ASSIGN_OR_RETURN(
      auto batch, engine::up_convert(set.span(), {.max_expanded_bytes = kMaxLegacyExpandedBytes}));
  return std::vector<SharedBytes>{SharedBytes::adopt(std::move(batch))};
}

}  // namespace

void Partition::produce(const kafka::Records& records, const ProduceOptions& options,
                        std::function<void(Result<ProduceResult>)> done) {
  bool legacy = options.legacy_formats && !records.slices.empty() &&
                engine::starts_legacy(records.slices[0].span());
  auto split = legacy ? up_convert(records) : split_batches(records);
  if (!split) return done(split.error());
  std::vector<SharedBytes> batches = std::move(*split);
  if (!legacy) {
    for (const auto& b : batches) {
      if (!engine::starts_legacy(b.span())) continue;
      // As Kafka: from Produce v3 a record set holds RecordBatch v2 only.
      return done(Error(Errc::kInvalidRecord,
                        options.legacy_formats
                            ? "a record set mixes magic 2 batches and magic 0/1 messages"
                            : "Produce v3 and later may only carry magic 2 record batches"));
    }
  }
  if (batches.empty()) return done(Error(Errc::kInvalidRecord, "empty record set"));

  // Topic compression (compression.type other than producer): the batches
  // are re-encoded here, so the checks below and the log see what is stored.
  if (auto st = apply_topic_compression(batches); !st) return done(st.error());

  engine::AppendOptions opts;
  if (batches.size() > 1) {
    // All or nothing: check every batch before the first is appended.
    for (const auto& b : batches) {
      auto v = log_->check_append(b.span(), opts);
      if (!v) return done(v.error());
    }
  }
  struct State {
    size_t remaining;
    int64_t records = 0;
    std::optional<ProduceResult> first;
    std::optional<Error> error;
    std::function<void(Result<ProduceResult>)> done;
  };
  auto state = std::make_shared<State>(
      State{batches.size(), 0, std::nullopt, std::nullopt, std::move(done)});
  bool durable = options.wait_durable && log_->config().durability == engine::Durability::kFsync;
  auto finish = [this, state, durable] {
    if (state->error) return state->done(*state->error);
    if (!durable) return state->done(*state->first);
    log_->flush([state](Status st) {
      if (!st) return state->done(st.error());
      state->done(*state->first);
    });
  };
  for (size_t i = 0; i < batches.size(); ++i) {
    auto st =
        log_->append(batches[i], opts, [this, state, finish, i](Result<engine::AppendResult> r) {
          if (!r) {
            if (!state->error) state->error = r.error();
          } else {
            state->records += (r->last_offset - r->base_offset) + 1;
            if (i == 0) {
              state->first =
                  ProduceResult{r->base_offset, r->log_append_time, log_->log_start_offset()};
            }
          }
          if (--state->remaining == 0) {
            after_append(state->records);
            finish();
          }
        });
    if (!st) {
      // Batches before this one are queued and will complete; this one and
      // the rest never will. The partition answers with the error.
      state->error = st.error();
      state->remaining -= batches.size() - i;
      if (state->remaining == 0) finish();
      return;
    }
  }
}

void Partition::after_append(int64_t records) {
  if (log_->config().durability == engine::Durability::kFsync) {
    // Move the high watermark along; flushes waiting together share a sync.
    log_->flush([this](Status) { notify(); });
    return;
  }
  notify();
  bool had_deadline = flush_policy_.deadline().has_value();
  if (flush_policy_.on_append(records, FlushPolicy::Clock::now())) {
    start_policy_flush();
  } else if (auto at = flush_policy_.deadline(); at && !had_deadline && flush_listener_) {
    flush_listener_(*at);
  }
}

void Partition::set_config(const engine::TopicConfig& config) {
  log_->set_config(config);
  flush_policy_.configure(config);
}

void Partition::flush_if_due(FlushPolicy::Clock::time_point now) {
  if (auto at = flush_policy_.deadline(); at && *at <= now) start_policy_flush();
}

void Partition::start_policy_flush() {
  flush_policy_.flushed();
  log_->flush([this](Status st) {
    if (!st) {
      spdlog::error("partition {}-{}: flush failed: {}", topic_, id_, st.error().to_string());
    }
  });
}

Status Partition::apply_topic_compression(std::vector<SharedBytes>& batches) const {
  const auto& config = log_->config();
  if (!config.compression_type) return ok_status();
  engine::RecompressOptions options;
  options.codec = *config.compression_type;
  options.level = config.compression_level(options.codec);
  for (auto& b : batches) {
    STRATA_ASSIGN_OR_RETURN(auto converted, engine::recompress_batch(b.span(), options));
    if (converted) b = SharedBytes::adopt(std::move(*converted));
  }
  return ok_status();
}

void Partition::read(Offset offset, size_t max_bytes, std::function<void(Result<FetchRead>)> done) {
  Offset hw = high_watermark();
  log_->read(offset, max_bytes, hw,
             [this, hw, done = std::move(done)](Result<engine::ReadResult> r) {
               if (!r) return done(r.error());
               FetchRead out;
               out.records.slices = std::move(r->slices);
               out.bytes = r->bytes;
               out.high_watermark = hw;
               out.last_stable_offset = hw;
               out.log_start_offset = log_->log_start_offset();
               done(std::move(out));
             });
}

void Partition::wait(Offset seen, std::weak_ptr<void> alive, std::function<void()> fire) {
  if (high_watermark() > seen) return fire();
  if (waiters_.size() >= 64) {
    std::erase_if(waiters_, [](const Waiter& w) { return w.alive.expired(); });
  }
  waiters_.push_back(Waiter{seen, std::move(alive), std::move(fire)});
}

void Partition::notify() {
  if (waiters_.empty()) return;
  Offset hw = high_watermark();
  std::vector<std::function<void()>> ready;
  std::erase_if(waiters_, [&](Waiter& w) {
    if (w.alive.expired()) return true;
    if (hw <= w.seen) return false;
    ready.push_back(std::move(w.fire));
    return true;
  });
  for (auto& f : ready)
    f();
}

void Partition::wake_all() {
  auto waiters = std::move(waiters_);
  waiters_.clear();
  for (auto& w : waiters) {
    if (!w.alive.expired()) w.fire();
  }
}

}  // namespace strata::server
