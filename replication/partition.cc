#include "replication/partition.h"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engine/batch_recompress.h"

namespace strata::replication {

Error not_hosted() {
  return Error(Errc::kNotHosted, "this broker holds no open replica of the partition");
}

Partition::Partition(std::string topic, PartitionId id, std::unique_ptr<engine::Log> log, Role role,
                     LeaderEpoch leader_epoch)
    : topic_(std::move(topic)),
      id_(id),
      log_(std::move(log)),
      role_(role),
      leader_epoch_(leader_epoch) {
  flush_policy_.configure(log_->config());
}

void Partition::become(Role role, LeaderEpoch leader_epoch) {
  if (leader_epoch < leader_epoch_) {
    spdlog::warn("partition {}-{}: ignoring leader epoch {} older than {}", topic_, id_,
                 leader_epoch, leader_epoch_);
    return;
  }
  if (role == role_ && leader_epoch == leader_epoch_) return;
  // A new leadership starts its watermark from what this replica exposed.
  start_hw_ = high_watermark();
  in_sync_.reset();
  role_ = role;
  leader_epoch_ = leader_epoch;
  wake_all();
}

Offset Partition::high_watermark() const {
  if (role_ == Role::kLeader && in_sync_) return in_sync_->high_watermark();
  Offset held = log_->config().durability == engine::Durability::kFsync ? log_->durable_offset()
                                                                        : log_->log_end_offset();
  return role_ == Role::kFollower ? std::min(held, leader_high_watermark_) : held;
}

Status Partition::require_follower() const {
  if (role_ == Role::kFollower) return ok_status();
  return Error(
      Errc::kInvalidArgument,
      fmt::format("{}-{} leads here: it takes no batches from another leader", topic_, id_));
}

void Partition::append_from_leader(std::span<const std::byte> records,
                                   std::function<void(Result<Offset>)> done) {
  append_from_leader(SharedBytes::copy_of(records), std::move(done));
}

void Partition::append_from_leader(SharedBytes records, std::function<void(Result<Offset>)> done) {
  if (auto st = require_follower(); !st) return done(st.error());
  engine::AppendOptions opts;
  opts.from_client = false;
  opts.keep_offsets = true;
  opts.allow_control = true;  // the leader's transaction markers
  // Whole batches, each appended as it is: a bad one stops the copy there
  // (the batches before it stay, and the next fetch starts after them).
  struct State {
    size_t left = 0;
    int64_t records = 0;
    std::optional<Error> error;
    std::function<void(Result<Offset>)> done;
  };
  auto state = std::make_shared<State>();
  state->done = std::move(done);
  size_t pos = 0;
  std::vector<SharedBytes> batches;
  while (pos < records.size()) {
    if (records.size() - pos < engine::kBatchHeaderSize) {
      state->error = Error(Errc::kTruncatedBatch, "the leader's records end inside a batch header");
      break;
    }
    auto h = engine::read_batch_header(records.data() + pos);
    if (h.total_size() < engine::kBatchHeaderSize || h.total_size() > records.size() - pos) {
      state->error = Error(Errc::kTruncatedBatch, "the leader's records end inside a batch");
      break;
    }
    batches.push_back(records.slice(pos, h.total_size()));
    pos += h.total_size();
  }
  auto finish = [this, state] {
    if (state->records > 0) after_append(state->records);
    if (state->error) return state->done(*state->error);
    state->done(log_->log_end_offset());
  };
  state->left = batches.size();
  if (batches.empty()) return finish();
  for (size_t i = 0; i < batches.size(); ++i) {
    auto st = log_->append(batches[i], opts, [state, finish](Result<engine::AppendResult> r) {
      if (r) {
        state->records += r->last_offset.value() - r->base_offset.value() + 1;
      } else if (!state->error) {
        state->error = r.error();
      }
      if (--state->left == 0) finish();
    });
    if (!st) {
      if (!state->error) state->error = st.error();
      state->left -= batches.size() - i;
      if (state->left == 0) finish();
      return;
    }
  }
}

void Partition::when_idle_as_follower(std::function<Status()> cut,
                                      std::function<void(Status)> done) {
  if (auto st = require_follower(); !st) return done(st);
  // The log cuts only when idle: let what is in flight land first.
  log_->flush([this, cut = std::move(cut), done = std::move(done)](Status st) mutable {
    if (!st) return done(st);
    // A cleaning's swap holds its segments until it ends.
    log_->compaction().when_swapped([this, cut = std::move(cut), done = std::move(done)] {
      if (auto r = require_follower(); !r) return done(r);
      done(cut());
    });
  });
}

void Partition::truncate_to(Offset offset, std::function<void(Status)> done) {
  when_idle_as_follower([this, offset] { return log_->truncate_to(offset); }, std::move(done));
}

void Partition::restart_at(Offset offset, std::function<void(Status)> done) {
  when_idle_as_follower(
      [this, offset] {
        return offset == log_->log_end_offset() ? ok_status() : log_->restart_at(offset);
      },
      std::move(done));
}

void Partition::truncate_above(Offset offset, std::function<void(Status)> done) {
  if (offset >= log_->log_end_offset()) return done(ok_status());
  truncate_to(offset, std::move(done));
}

Partition::FollowerPosition Partition::follower_position() const {
  const auto& epochs = log_->leader_epochs();
  return FollowerPosition{epochs.empty() ? -1 : epochs.rbegin()->first, log_->log_end_offset(),
                          log_->durable_offset(), high_watermark()};
}

void Partition::apply_from_leader(SharedBytes records, Offset leader_high_watermark,
                                  Offset leader_log_start, std::function<void(Status)> done) {
  auto append = [this, records, leader_high_watermark, leader_log_start, done] {
    append_from_leader(records,
                       [this, leader_high_watermark, leader_log_start, done](Result<Offset> r) {
                         set_leader_high_watermark(leader_high_watermark);
                         if (!r) return done(r.error());
                         set_leader_log_start(leader_log_start);
                         if (log_->config().durability != engine::Durability::kFsync)
                           return done(ok_status());
                         // On fsync topics the leader's watermark waits for this copy to be
                         // synced, and learns it only from the next fetch: that one goes once
                         // the sync (group-committed with the append's) is done, or it would
                         // long-poll for new data with the news held back.
                         log_->flush([done](Status st) { done(st); });
                       });
  };
  // A log emptied to start at the leader's log start gets the batch that
  // holds it: the log starts again at that batch's base, and its start
  // moves up to the leader's once the batch is in.
  if (log_->log_start_offset() == log_->log_end_offset() &&
      records.size() >= engine::kBatchHeaderSize) {
    Offset base = engine::read_batch_header(records.data()).base_offset;
    if (base < log_->log_end_offset()) {
      return restart_at(base, [append, done](Status st) {
        if (!st) return done(st);
        append();
      });
    }
  }
  append();
}

void Partition::set_assignment(const Assignment& a) {
  if (a.partition_epoch != partition_epoch_) proposed_isr_.reset();  // a new state answers it
  partition_epoch_ = a.partition_epoch;
  // Only the first assignment after opening or a role change starts from
  // start_hw_; later ones keep what the replica exposes now.
  Offset exposed = high_watermark();
  auto start = std::exchange(start_hw_, std::nullopt);
  if (role_ != Role::kLeader || a.replicas.size() <= 1) {
    in_sync_.reset();
    return;
  }
  const auto& config = log_->config();
  InSyncReplicas::Options o;
  o.min_insync = static_cast<int32_t>(config.min_insync_replicas);
  o.durable = config.durability == engine::Durability::kFsync;
  o.lag_time_max_ms = a.lag_time_max_ms;
  if (!in_sync_) {
    // The watermark never goes back: it starts at what the replica exposed.
    in_sync_ = std::make_unique<InSyncReplicas>(a.self, *log_->options().clock, o);
    in_sync_->start_at(std::min(start.value_or(exposed), log_->log_end_offset()));
    in_sync_->on_leader_log(log_->log_end_offset(), log_->durable_offset());
  }
  in_sync_->set_options(o);
  auto epochs = log_->leader_epochs();
  auto mine = epochs.find(leader_epoch_.value());
  in_sync_->reset(a.replicas, a.isr, mine != epochs.end() ? mine->second : log_->log_end_offset());
  notify();
}

void Partition::on_follower_fetch(int32_t replica, Offset fetch_offset, Offset durable) {
  if (role_ != Role::kLeader || !in_sync_) return;
  in_sync_->on_fetch(replica, fetch_offset, durable);
  notify();
  const auto& isr = in_sync_->isr();
  if (isr_proposer_ && std::find(isr.begin(), isr.end(), replica) == isr.end()) {
    // The fetch may have made `replica` caught up: ask for it back now.
    auto next = in_sync_->proposal();
    if (next && std::find(next->begin(), next->end(), replica) != next->end()) {
      if (auto proposal = isr_proposal()) isr_proposer_(std::move(*proposal));
    }
  }
}

void Partition::tick() {
  if (role_ == Role::kLeader && (in_sync_ || !ack_waiters_.empty())) notify();
}

std::optional<IsrProposal> Partition::isr_proposal() {
  if (role_ != Role::kLeader || !in_sync_) return std::nullopt;
  auto next = in_sync_->proposal();
  if (!next) return std::nullopt;
  int64_t now = log_->options().clock->steady_ms();
  if (proposed_isr_ == next && now - proposed_at_ms_ < kProposalRetryMs) return std::nullopt;
  proposed_isr_ = next;
  proposed_at_ms_ = now;
  return IsrProposal{topic_, id_, leader_epoch_, partition_epoch_, std::move(*next)};
}

void Partition::settle_acks() {
  // A role change fails the waiters first (become → wake_all): here the
  // replica leads.
  if (ack_waiters_.empty()) return;
  Offset hw = high_watermark();
  int64_t now = log_->options().clock->steady_ms();
  bool enough = !in_sync_ || in_sync_->enough_in_sync();
  std::vector<std::pair<std::function<void(Result<AppendResult>)>, Result<AppendResult>>> ready;
  std::erase_if(ack_waiters_, [&](AckWaiter& w) {
    if (hw > w.result.last_offset) {
      ready.emplace_back(std::move(w.done), w.result);
    } else if (!enough) {
      ready.emplace_back(std::move(w.done),
                         Error(Errc::kNotEnoughReplicasAfterAppend,
                               fmt::format("{}-{}: the in-sync replicas fell below "
                                           "min.insync.replicas={} before they held the batches",
                                           topic_, id_, log_->config().min_insync_replicas)));
    } else if (now >= w.deadline_ms) {
      ready.emplace_back(
          std::move(w.done),
          Error(Errc::kTimedOut, fmt::format("{}-{}: the in-sync replicas did not "
                                             "acknowledge within the request timeout",
                                             topic_, id_)));
    } else {
      return false;
    }
    return true;
  });
  arm_ack_timer();
  // Callbacks may append again: run them once the list is consistent.
  for (auto& [done, result] : ready)
    done(std::move(result));
}

void Partition::arm_ack_timer() {
  if (ack_waiters_.empty()) return;
  int64_t earliest = ack_waiters_.front().deadline_ms;
  for (const auto& w : ack_waiters_)
    earliest = std::min(earliest, w.deadline_ms);
  if (ack_timer_at_ms_ != -1 && ack_timer_at_ms_ <= earliest) return;  // fires first anyway
  if (!ack_timer_) ack_timer_ = std::make_unique<boost::asio::steady_timer>(*log_->options().io);
  ack_timer_at_ms_ = earliest;
  int64_t wait = std::max<int64_t>(0, earliest - log_->options().clock->steady_ms());
  ack_timer_->expires_after(std::chrono::milliseconds(wait));
  ack_timer_->async_wait(
      [this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
        if (ec || alive.expired()) return;
        ack_timer_at_ms_ = -1;
        if (role_ == Role::kLeader) settle_acks();
      });
}

void Partition::fail_acks(const Error& error) {
  auto waiters = std::move(ack_waiters_);
  ack_waiters_.clear();
  for (auto& w : waiters)
    w.done(error);
}

void Partition::set_leader_high_watermark(Offset hw) {
  if (role_ != Role::kFollower || hw <= leader_high_watermark_) return;
  leader_high_watermark_ = hw;
  notify();
}

void Partition::set_leader_log_start(Offset start) {
  if (role_ != Role::kFollower || start <= log_->log_start_offset()) return;
  Offset to = std::min(start, log_->log_end_offset());
  if (auto st = log_->advance_start_offset(to); !st) {
    spdlog::error("partition {}-{}: following the leader's log start {}: {}", topic_, id_, to,
                  st.error().to_string());
  }
}

Status Partition::require_leader() const {
  if (role_ == Role::kLeader) return ok_status();
  return Error(Errc::kNotLeader, fmt::format("this broker does not lead {}-{}", topic_, id_));
}

void Partition::append(std::vector<SharedBytes> batches, const AppendOptions& options,
                       std::function<void(Result<AppendResult>)> done) {
  if (auto st = require_leader(); !st) return done(st.error());
  if (batches.empty()) return done(Error(Errc::kInvalidRecord, "empty record set"));
  if (options.acks_all) {
    if (auto st = check_min_isr(); !st) return done(st.error());
  }
  if (options.from_client) {
    // Topic compression (compression.type other than producer): the batches
    // are re-encoded here, so the checks below and the log see what is
    // stored.
    if (auto st = apply_topic_compression(batches); !st) return done(st.error());
    if (auto st = check_idempotent_request(batches); !st) return done(st.error());
    if (defer_for_transaction(batches, options, done)) return;
  }
  write(std::move(batches), options, std::move(done));
}

Status Partition::check_min_isr() const {
  // Kafka's check before an acks=all append: nothing is written while the
  // ISR is too small to acknowledge it.
  int64_t min = log_->config().min_insync_replicas;
  if (in_sync_ ? in_sync_->enough_in_sync() : min <= 1) return ok_status();
  return Error(Errc::kNotEnoughReplicas,
               fmt::format("{}-{} has {} in-sync replica(s), fewer than min.insync.replicas={}",
                           topic_, id_, in_sync_ ? in_sync_->isr().size() : 1, min));
}

Status Partition::check_idempotent_request(const std::vector<SharedBytes>& batches) const {
  // An idempotent producer's batch is checked against the one before it as
  // it is appended: one batch per partition per request (as Kafka requires
  // from Produce v3 on), or a refusal could come after batches of the same
  // request were written.
  if (batches.size() <= 1) return ok_status();
  for (const auto& b : batches) {
    if (b.size() < engine::kBatchHeaderSize) continue;  // the log refuses it
    if (engine::idempotent(engine::read_batch_header(b.data()))) {
      return Error(Errc::kInvalidRecord,
                   fmt::format("{}-{}: an idempotent producer's request holds {} batches for one "
                               "partition; one is allowed",
                               topic_, id_, batches.size()));
    }
  }
  return ok_status();
}

bool Partition::defer_for_transaction(std::vector<SharedBytes>& batches,
                                      const AppendOptions& options,
                                      std::function<void(Result<AppendResult>)>& done) {
  for (const auto& b : batches) {
    if (b.size() < engine::kBatchHeaderSize) continue;  // the log refuses it
    auto h = engine::read_batch_header(b.data());
    if (!engine::transactional_data(h)) continue;
    // A transactional write opens a transaction here that only its
    // coordinator's marker ends: it must be one the coordinator has this
    // partition in (KIP-890), or a transaction could hang read_committed
    // readers. Once open here, the producer's batches need no check.
    const auto* producer = log_->producers().states().find(h.producer_id);
    bool open =
        producer != nullptr && producer->txn_first_offset && producer->epoch == h.producer_epoch;
    if (open) continue;
    Offset last = producer != nullptr ? producer->last_offset : Offset(-1);
    if (options.txn_verified_at) {
      if (*options.txn_verified_at == last) continue;
      done(Error(Errc::kInvalidTxnState,
                 fmt::format("{}-{}: producer {}'s transaction ended while its write was being "
                             "verified",
                             topic_, id_, h.producer_id)));
      return true;
    }
    if (!options.verify_txn) {
      done(Error(Errc::kInvalidTxnState,
                 fmt::format("{}-{}: a transactional write to a partition the producer's "
                             "transaction does not hold",
                             topic_, id_)));
      return true;
    }
    int64_t pid = h.producer_id;
    if (auto queue = verifying_.find(pid); queue != verifying_.end()) {
      // An earlier write of the producer is being verified: this one goes
      // after it, in the order they came (pipelined requests must not
      // overtake each other on the way to the log).
      queue->second->push_back([this, batches = std::move(batches), options,
                                done = std::move(done)](bool alive) mutable {
        if (!alive) return done(not_hosted());
        append(std::move(batches), options, std::move(done));
      });
      return true;
    }
    auto queue = std::make_shared<std::vector<std::function<void(bool)>>>();
    verifying_[pid] = queue;
    AppendOptions verified = options;
    verified.verify_txn = nullptr;
    verified.txn_verified_at = last;
    options.verify_txn(
        pid, h.producer_epoch,
        [this, pid, queue, batches = std::move(batches), verified = std::move(verified),
         done = std::move(done), alive = std::weak_ptr<bool>(alive_)](Status st) mutable {
          auto waiting = std::move(*queue);
          if (alive.expired()) {
            done(not_hosted());
            for (auto& w : waiting)
              w(false);
            return;
          }
          verifying_.erase(pid);
          if (!st) {
            done(st.error());
          } else {
            append(std::move(batches), verified, std::move(done));
          }
          for (auto& w : waiting)
            w(true);
        });
    return true;
  }
  return false;
}

void Partition::write(std::vector<SharedBytes> batches, const AppendOptions& options,
                      std::function<void(Result<AppendResult>)> done) {
  engine::AppendOptions opts;
  opts.leader_epoch = leader_epoch_;
  opts.from_client = options.from_client;
  opts.allow_control = !options.from_client;  // the broker's transaction markers
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
    std::optional<AppendResult> first;
    std::optional<Error> error;
    std::function<void(Result<AppendResult>)> done;
  };
  auto state = std::make_shared<State>(
      State{batches.size(), 0, std::nullopt, std::nullopt, std::move(done)});
  auto finish = [this, state, acks_all = options.acks_all, timeout_ms = options.timeout_ms,
                 appended_in = leader_epoch_] {
    if (state->error) return state->done(*state->error);
    if (!acks_all) return state->done(*state->first);
    acknowledge(*state->first, appended_in, timeout_ms, std::move(state->done));
  };
  for (size_t i = 0; i < batches.size(); ++i) {
    auto st =
        log_->append(batches[i], opts, [this, state, finish, i](Result<engine::AppendResult> r) {
          if (!r) {
            if (!state->error) state->error = r.error();
          } else {
            state->records += (r->last_offset - r->base_offset) + 1;
            if (i == 0) {
              state->first = AppendResult{r->base_offset, r->last_offset, r->log_append_time,
                                          log_->log_start_offset()};
            } else if (state->first) {
              state->first->last_offset = r->last_offset;
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

void Partition::acknowledge(AppendResult appended, LeaderEpoch appended_in, int64_t timeout_ms,
                            std::function<void(Result<AppendResult>)> done) {
  if (role_ != Role::kLeader || leader_epoch_ != appended_in) {
    // Demoted while the batches were being written: the new leader's log
    // decides whether they stay, and this replica no longer knows the ISR
    // (it must not take itself for a single replica).
    return done(
        Error(Errc::kNotLeader, fmt::format("{}-{}: the leadership (epoch {}) ended before the "
                                            "in-sync replicas acknowledged the batches",
                                            topic_, id_, appended_in.value())));
  }
  if (in_sync_) {
    // Several replicas: wait until the ISR holds the batches.
    ack_waiters_.push_back(
        AckWaiter{appended, log_->options().clock->steady_ms() + timeout_ms, std::move(done)});
    return settle_acks();
  }
  // This broker alone: the watermark is its own durable offset.
  if (log_->config().durability != engine::Durability::kFsync) return done(appended);
  log_->flush([appended, done = std::move(done)](Status st) {
    if (!st) return done(st.error());
    done(appended);
  });
}

Result<Offset> Partition::delete_records(Offset offset) {
  STRATA_TRY(require_leader());
  if (offset < Offset(0) || offset > high_watermark()) {
    return Error(Errc::kOffsetOutOfRange, fmt::format("{} is outside [0, {}] (the high watermark) "
                                                      "of {}-{}",
                                                      offset, high_watermark(), topic_, id_));
  }
  if (offset > log_->log_start_offset()) {
    if (auto st = log_->advance_start_offset(offset); !st) {
      spdlog::error("DeleteRecords on {}-{}: {}", topic_, id_, st.error().to_string());
      return std::move(st).error();
    }
    spdlog::info("DeleteRecords: {}-{} now starts at {}", topic_, id_, offset);
  }
  return log_->log_start_offset();
}

void Partition::after_append(int64_t records) {
  notify();  // followers waiting for the log end
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

void Partition::read(Offset offset, size_t max_bytes, Isolation isolation,
                     std::function<void(Result<ReadResult>)> done) {
  read_below(offset, max_bytes, visible_end(isolation), isolation, std::move(done));
}

namespace {

// The offset after the last batch of `slices` (whole batches), or `from`
// when there is none.
Offset end_of_batches(const std::vector<SharedBytes>& slices, Offset from) {
  Offset end = from;
  for (const auto& s : slices) {
    size_t pos = 0;
    while (s.size() - pos >= engine::kBatchHeaderSize) {
      auto h = engine::read_batch_header(s.data() + pos);
      end = h.next_offset();
      pos += h.total_size();
    }
  }
  return end;
}

}  // namespace

void Partition::read_below(Offset offset, size_t max_bytes, Offset limit, Isolation isolation,
                           std::function<void(Result<ReadResult>)> done) {
  Offset hw = high_watermark();
  Offset lso = last_stable_offset();
  log_->read(
      offset, max_bytes, limit,
      [this, hw, lso, offset, isolation, done = std::move(done)](Result<engine::ReadResult> r) {
        if (!r) return done(r.error());
        ReadResult out;
        out.slices = std::move(r->slices);
        out.bytes = r->bytes;
        out.high_watermark = hw;
        out.last_stable_offset = lso;
        out.log_start_offset = log_->log_start_offset();
        if (isolation == Isolation::kReadCommitted && out.bytes > 0) {
          out.aborted =
              log_->producers().aborted_transactions(offset, end_of_batches(out.slices, offset));
        }
        done(std::move(out));
      });
}

void Partition::read_for_follower(Offset offset, size_t max_bytes,
                                  std::function<void(Result<ReadResult>)> done) {
  if (auto st = require_leader(); !st) return done(st.error());
  read_below(offset, max_bytes, Offset::max(), Isolation::kReadUncommitted, std::move(done));
}

void Partition::wait_for_end(Offset seen, std::weak_ptr<void> alive, std::function<void()> fire) {
  if (log_->log_end_offset() > seen) return fire();
  waiters_.push_back(Waiter{seen, std::move(alive), std::move(fire), /*log_end=*/true});
}

void Partition::wait(Offset seen, std::weak_ptr<void> alive, std::function<void()> fire) {
  if (high_watermark() > seen) return fire();
  if (waiters_.size() >= 64) {
    std::erase_if(waiters_, [](const Waiter& w) { return w.alive.expired(); });
  }
  waiters_.push_back(Waiter{seen, std::move(alive), std::move(fire)});
}

void Partition::notify() {
  if (in_sync_) in_sync_->on_leader_log(log_->log_end_offset(), log_->durable_offset());
  settle_acks();
  if (waiters_.empty()) return;
  Offset hw = high_watermark();
  Offset end = log_->log_end_offset();
  std::vector<std::function<void()>> ready;
  std::erase_if(waiters_, [&](Waiter& w) {
    if (w.alive.expired()) return true;
    if ((w.log_end ? end : hw) <= w.seen) return false;
    ready.push_back(std::move(w.fire));
    return true;
  });
  for (auto& f : ready)
    f();
}

void Partition::wake_all() {
  fail_acks(Error(
      Errc::kNotLeader,
      fmt::format("{}-{} changed role or is closing: the batches may not be kept", topic_, id_)));
  auto waiters = std::move(waiters_);
  waiters_.clear();
  for (auto& w : waiters) {
    if (!w.alive.expired()) w.fire();
  }
}

}  // namespace strata::replication
