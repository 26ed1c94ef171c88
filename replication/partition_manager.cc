#include "replication/partition_manager.h"

#include <algorithm>

#include <boost/asio/post.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace strata::replication {

PartitionManager::PartitionManager(engine::LogManager& logs, io::FileSystem& fs,
                                   boost::asio::io_context& io)
    : logs_(logs),
      fs_(fs),
      io_(io),
      retention_timer_(io),
      replica_timer_(io),
      flush_timer_(io),
      cleaner_timer_(io) {}

PartitionManager::~PartitionManager() {
  *alive_ = false;
}

Partition* PartitionManager::find(PartitionUid uid) {
  auto it = partitions_.find(uid);
  return it == partitions_.end() ? nullptr : it->second.get();
}

void PartitionManager::reconcile(const std::vector<ReplicaSpec>& wanted, const Hooks& hooks,
                                 std::function<void()> done) {
  std::unordered_map<PartitionUid, const ReplicaSpec*> by_uid;
  for (const auto& spec : wanted)
    by_uid.emplace(spec.uid, &spec);
  // Role none: no longer a replica here.
  std::vector<std::unique_ptr<Partition>> doomed;
  for (auto it = partitions_.begin(); it != partitions_.end();) {
    if (by_uid.count(it->first) == 0) {
      cleaning_retry_at_.erase(it->first);
      doomed.push_back(std::move(it->second));
      it = partitions_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& spec : wanted) {
    if (auto* existing = find(spec.uid)) {
      existing->set_config(spec.config);
      existing->become(spec.role, spec.leader_epoch);
      existing->set_assignment(spec.assignment);
      if (hooks.changed) hooks.changed(*existing);
      // A shorter flush.ms may now be due earlier than the timer.
      if (auto at = existing->flush_deadline()) schedule_flush(*at);
      continue;
    }
    auto dir = logs_.partition_dir(spec.topic, spec.partition);
    auto log = logs_.open_log(spec.uid, dir, spec.config, fs_, io_);
    if (!log) {
      spdlog::error("cannot open partition {}-{}: {}", spec.topic, spec.partition,
                    log.error().to_string());
      continue;
    }
    auto& placed = *partitions_
                        .emplace(spec.uid, std::make_unique<Partition>(
                                               spec.topic, spec.partition, std::move(log).value(),
                                               spec.role, spec.leader_epoch))
                        .first->second;
    placed.set_flush_listener([this](FlushPolicy::Clock::time_point at) { schedule_flush(at); });
    placed.set_isr_proposer([this](IsrProposal proposal) {
      if (isr_listener_) isr_listener_({std::move(proposal)});
    });
    placed.set_assignment(spec.assignment);
    if (hooks.opened) hooks.opened(placed);
  }
  if (doomed.empty()) return done();
  auto remaining = std::make_shared<size_t>(doomed.size());
  for (auto& p : doomed) {
    p->wake_all();
    if (hooks.closing) hooks.closing(*p);
    auto* raw = p.release();
    raw->close([this, raw, remaining, done](Status st) {
      std::unique_ptr<Partition> owned(raw);
      auto uid = owned->uid();
      auto dir = logs_.partition_dir(owned->topic(), owned->id());
      if (!st) spdlog::warn("closing {} failed: {}", dir.string(), st.error().to_string());
      owned.reset();
      if (auto rm = logs_.remove_log(uid, dir); !rm) {
        spdlog::error("cannot delete {}: {}", dir.string(), rm.error().to_string());
      }
      if (--*remaining == 0) done();
    });
  }
}

void PartitionManager::start_retention(std::chrono::milliseconds interval) {
  retention_interval_ = interval;
  check_retention();
  check_replicas();
}

void PartitionManager::check_replicas() {
  // Followers' standing changes with time alone (one that stopped fetching
  // stops counting): the leaders look again every second.
  std::vector<IsrProposal> proposals;
  for (auto& [uid, p] : partitions_) {
    p->tick();
    if (auto proposal = p->isr_proposal()) proposals.push_back(std::move(*proposal));
  }
  if (!proposals.empty() && isr_listener_) isr_listener_(std::move(proposals));
  replica_timer_.expires_after(std::chrono::seconds(1));
  replica_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) check_replicas();
  });
}

void PartitionManager::check_retention() {
  for (auto& [uid, p] : partitions_) {
    auto r = p->log().enforce_retention();
    if (!r) {
      spdlog::error("partition {}-{}: retention failed: {}", p->topic(), p->id(),
                    r.error().to_string());
    }
    p->log().producers().expire();
  }
  retention_timer_.expires_after(retention_interval_);
  retention_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) check_retention();
  });
}

void PartitionManager::start_cleaner(CleanerOptions options) {
  cleaner_ = std::move(options);
  check_cleaning();
}

void PartitionManager::check_cleaning() {
  if (!cleaning_ && cleaner_.executor) {
    // The dirtiest first; a log not due yet gives way to the next.
    std::vector<std::pair<double, Partition*>> candidates;
    auto now = std::chrono::steady_clock::now();
    for (auto& [uid, p] : partitions_) {
      auto& log = p->log();
      if (!log.config().cleanup_compact || log.compaction().cleaning()) continue;
      if (auto f = cleaning_retry_at_.find(uid); f != cleaning_retry_at_.end() && f->second > now) {
        continue;
      }
      auto c = log.compaction().cleanable(p->last_stable_offset());
      if (c.dirty_bytes > 0) candidates.emplace_back(c.dirty_ratio(), p.get());
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    for (auto& [ratio, p] : candidates) {
      auto plan = p->log().compaction().plan(p->last_stable_offset());
      if (!plan) continue;
      plan->io_max_bytes_per_second = cleaner_.io_max_bytes_per_second;
      run_cleaning(*p, std::move(*plan));
      break;
    }
  }
  cleaner_timer_.expires_after(cleaner_.backoff);
  cleaner_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) check_cleaning();
  });
}

void PartitionManager::run_cleaning(Partition& p, engine::CleaningPlan plan) {
  cleaning_ = true;
  engine::Log* log = &p.log();
  plan.cancel = &cleaner_.executor->stopping();
  auto shared_plan = std::make_shared<engine::CleaningPlan>(std::move(plan));
  // The job reads through the log's file system and index store, which
  // outlive the logs (the broker stops the cleaner threads first).
  auto name = fmt::format("{}-{}", p.topic(), p.id());
  cleaner_.executor->post([this, alive = alive_, log, token = log->alive_token(), shared_plan,
                           fs = log->options().fs, index = log->options().index, io = &io_, name] {
    auto result = std::make_shared<Result<engine::CleaningResult>>(
        engine::clean_segments(*shared_plan, *fs, *index));
    boost::asio::post(*io, [this, alive, log, token, shared_plan, result, name] {
      if (!*alive) return;
      auto live = token.lock();
      if (!live || !*live) {
        cleaning_ = false;
        return;  // the log closed meanwhile; recovery removes the files
      }
      // The swap's disk waits run on the swap thread (never dropped, even
      // by a stopping broker: the log's close waits for its swap).
      auto run = [executor = cleaner_.swap_executor, io = &io_, alive](
                     const engine::LogCompaction::SwapStep& step,
                     const engine::LogCompaction::SwapThen& then) {
        executor->post(
            [step, then, io, alive] {
              Status st = step();
              boost::asio::post(*io, [then, st, alive] {
                if (*alive) then(st);
              });
            },
            /*must_run=*/true);
      };
      log->compaction().install(
          *shared_plan, std::move(*result), run,
          [this, log, token, uid = shared_plan->uid, name](Result<bool> done) {
            cleaning_ = false;
            auto live = token.lock();
            if (!live || !*live) return;
            if (done) {
              cleaning_retry_at_.erase(uid);
              spdlog::info("cleaner: {}: {}", name, log->compaction().last_cleaning());
              return;
            }
            // The log counts its failed attempts in a row; the wait doubles with them.
            auto wait = cleaner_.backoff * (1 << std::min(log->compaction().failures(), 6));
            cleaning_retry_at_[uid] = std::chrono::steady_clock::now() + wait;
            spdlog::error("cleaner: {}: {}; trying again in {} ms", name,
                          log->compaction().last_cleaning(),
                          std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
          });
    });
  });
}

void PartitionManager::schedule_flush(FlushPolicy::Clock::time_point at) {
  if (flush_timer_at_ && *flush_timer_at_ <= at) return;
  flush_timer_at_ = at;
  flush_timer_.expires_at(at);
  flush_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled, or re-armed for an earlier deadline
    flush_timer_at_.reset();
    run_due_flushes();
  });
}

void PartitionManager::run_due_flushes() {
  auto now = FlushPolicy::Clock::now();
  std::optional<FlushPolicy::Clock::time_point> next;
  for (auto& [uid, p] : partitions_) {
    p->flush_if_due(now);
    if (auto at = p->flush_deadline(); at && (!next || *at < *next)) next = at;
  }
  if (next) schedule_flush(*next);
}

void PartitionManager::wake_all() {
  for (auto& [uid, p] : partitions_)
    p->wake_all();
}

void PartitionManager::close_all(std::function<void(Status)> done) {
  retention_timer_.cancel();
  replica_timer_.cancel();
  cleaner_timer_.cancel();
  flush_timer_.cancel();
  flush_timer_at_.reset();
  if (partitions_.empty()) return done(ok_status());
  struct State {
    size_t remaining;
    Status status;
  };
  auto state = std::make_shared<State>(State{partitions_.size(), ok_status()});
  for (auto& [uid, p] : partitions_) {
    p->close([state, done](Status st) {
      if (!st && state->status.ok()) state->status = st;
      if (--state->remaining == 0) done(state->status);
    });
  }
}

}  // namespace strata::replication
