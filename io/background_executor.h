// BackgroundExecutor: a few threads for blocking work that must stay off
// the shards' loops — the log cleaner's reads and writes of whole segments.
// Jobs run in the order posted, each on one of the threads; a job reports
// back by posting to its shard's io_context.
//
//   BackgroundExecutor cleaners(1, "cleaner");
//   cleaners.post([&] { auto r = clean(...); asio::post(shard_io, [r] { install(r); }); });
//
// Thread-safety: post() from any thread. stop() (or the destructor) drops
// the jobs not started, raises stopping() and waits for the running ones.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace strata::io {

class BackgroundExecutor {
 public:
  // `nice`: the threads' scheduling niceness (0 as the process; 10: they
  // yield the CPU to the process's other threads when both want it).
  BackgroundExecutor(size_t threads, std::string name, int nice = 0);
  ~BackgroundExecutor();
  BackgroundExecutor(const BackgroundExecutor&) = delete;
  BackgroundExecutor& operator=(const BackgroundExecutor&) = delete;

  // A job posted `must_run` is never dropped: posted once stop() began, it
  // runs at once on the caller's thread; queued when stop() comes, stop()
  // runs it after the threads ended.
  void post(std::function<void()> job, bool must_run = false);
  size_t threads() const { return threads_.size(); }
  // Drops the jobs not started, raises stopping() and waits for the
  // running ones; later posts are dropped. From one thread at a time; a
  // second call (the destructor's) finds nothing left to do.
  void stop();
  // Set once stop() started: long jobs poll it to end early.
  const std::atomic<bool>& stopping() const { return stopping_flag_; }

 private:
  void run(int nice);

  std::mutex mu_;
  std::condition_variable cv_;
  struct Job {
    std::function<void()> fn;
    bool must_run = false;
  };
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::atomic<bool> stopping_flag_{false};
  std::vector<std::thread> threads_;
};

}  // namespace strata::io
