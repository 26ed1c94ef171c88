// LogCompaction: one log's side of compaction — the key map it keeps on
// commit, what a cleaning may take (cleanable, plan), and the install of a
// cleaning's result: the swap of the cleaned files into the log, and the
// completion at open of one a crash interrupted. The cleaning itself (reading
// the planned segments, writing the cleaned ones) is log_cleaner.h's and runs
// off the shard.
//
//   auto& c = log->compaction();
//   if (auto plan = c.plan(stable)) {
//     auto result = clean(*plan, index);                 // off the shard
//     c.install(*plan, std::move(result), runner, done);  // back on it
//   }
//
// A part of Log: it lives inside its Log, runs on its shard, and reaches the
// log's segments, offsets and index through it (engine/README.md,
// "Compaction", has the order of the swap and what recovery completes).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/ids.h"
#include "base/result.h"
#include "engine/log_cleaner.h"
#include "engine/record_batch.h"
#include "index/index_store.h"
#include "io/file_system.h"

namespace strata::engine {

class Log;
struct Segment;

class LogCompaction {
 public:
  explicit LogCompaction(Log& log) : log_(log) {}
  LogCompaction(const LogCompaction&) = delete;
  LogCompaction& operator=(const LogCompaction&) = delete;

  // What a cleaning could take now: the closed segments wholly below
  // `stable` (the high watermark or the last stable offset, whichever is
  // lower; the durable offset caps it too) whose records are all older
  // than min.compaction.lag.ms, and how much of them is dirty (not yet
  // cleaned).
  struct Cleanable {
    Offset end;  // the cleanable segments end here (the log start: none)
    uint64_t clean_bytes = 0;
    uint64_t dirty_bytes = 0;
    // Whether the oldest dirty segment outlived max.compaction.lag.ms.
    bool overdue = false;
    double dirty_ratio() const {
      uint64_t total = clean_bytes + dirty_bytes;
      return total == 0 ? 0.0 : static_cast<double>(dirty_bytes) / static_cast<double>(total);
    }
  };
  Cleanable cleanable(Offset stable) const;

  // The next cleaning, when one is due (min.cleanable.dirty.ratio reached,
  // or max.compaction.lag.ms passed; any dirty bytes at all with `force`)
  // and none is in flight. The log counts it in flight until install ends.
  std::optional<CleaningPlan> plan(Offset stable, bool force = false);

  // Installs a cleaning's result (or records its failure) on the log's
  // shard: the cleaned files replace the planned segments — unless the log
  // changed under the plan (a truncation, retention, another cleaning), in
  // which case the result is dropped (false).
  //
  // The swap's steps that wait on the disk (renames and directory syncs,
  // the index's synced write) run through `run`, away from the shard; the
  // log keeps serving meanwhile (reads of the cleaned range find their
  // positions through the swap's entries), defers retention and log-start
  // deletions, and holds truncations (when_swapped) and its close until the
  // swap ends. `done` gets the outcome on the shard.
  using SwapStep = std::function<Status()>;
  using SwapThen = std::function<void(Status)>;
  // Runs `step` somewhere, then `then` with its status on the log's shard.
  using SwapRunner = std::function<void(const SwapStep& step, const SwapThen& then)>;
  void install(const CleaningPlan& plan, Result<CleaningResult> result, SwapRunner run,
               std::function<void(Result<bool>)> done);
  // install with every step run at once, on the calling thread.
  Result<bool> finish(const CleaningPlan& plan, Result<CleaningResult> result);

  // Runs `fn` now, or when the swap in flight ends.
  void when_swapped(std::function<void()> fn);
  // A cleaning is planned and not yet installed.
  bool cleaning() const { return cleaning_; }
  const index::CompactionState& state() const { return state_; }
  // The last cleaning's outcome, for `strata topic describe` ("" if none),
  // and how many attempts in a row have failed.
  const std::string& last_cleaning() const { return last_cleaning_; }
  int32_t failures() const { return failures_; }

 private:
  friend class Log;

  // A cleaning's swap in flight (install).
  struct Swap {
    CleaningPlan plan;
    CleaningResult result;
    SwapRunner run;
    std::function<void(Result<bool>)> done;
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::duration on_shard{};
    bool swapped_in = false;  // the log's segments hold the cleaned files
  };

  // For Log: on cleanup.policy=compact topics every committed record with a
  // key is entered in the index's key map.
  void track_keys(const BatchHeader& h, std::span<const std::byte> bytes,
                  index::IndexStore::Update& update);
  // Whether a swap is in flight: nothing may remove or cut segments.
  bool swapping() const { return swap_ != nullptr; }
  // Once a swap's cleaned files serve, the one holding `offset` (its index
  // entries say where its batches are until the index store has them).
  const CleanedSegment* swapped_in_for(Offset offset) const;
  // Completes a cleaning a crash interrupted after its `.swap` files were
  // written (recovery), and removes `.cleaned` files; returns the lowest
  // base whose index must be derived again (nullopt: none).
  Result<std::optional<Offset>> finish_interrupted(std::vector<std::string>& names);

  void swap_committed(const std::shared_ptr<Swap>& swap, Status st);
  void swap_installed(const std::shared_ptr<Swap>& swap, Status st,
                      const index::CompactionState& state);
  // A step after the commit failed: the log is fatal until reopened.
  void swap_failed(const std::shared_ptr<Swap>& swap, const Error& e);
  void end_swap(const std::shared_ptr<Swap>& swap, Result<bool> outcome);
  std::shared_ptr<Segment> cleaned_segment(const CleanedSegment& cs,
                                           std::unique_ptr<io::File> file) const;

  Log& log_;
  index::CompactionState state_;
  bool cleaning_ = false;
  std::shared_ptr<Swap> swap_;                     // non-null while a swap is in flight
  std::vector<std::function<void()>> after_swap_;  // when_swapped's waiters
  bool delete_after_swap_ = false;                 // segments below the log start wait for it
  std::string last_cleaning_;
  int32_t failures_ = 0;
};

}  // namespace strata::engine
