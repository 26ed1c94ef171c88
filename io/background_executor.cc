#include "io/background_executor.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

namespace strata::io {

BackgroundExecutor::BackgroundExecutor(size_t threads, std::string name, int nice) {
  for (size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this, nice] { run(nice); });
    std::string thread_name = (name + "-" + std::to_string(i)).substr(0, 15);
    pthread_setname_np(threads_.back().native_handle(), thread_name.c_str());
  }
}

BackgroundExecutor::~BackgroundExecutor() {
  stop();
}

void BackgroundExecutor::stop() {
  stopping_flag_.store(true);
  std::vector<std::function<void()>> must_run;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (auto& job : jobs_) {
      if (job.must_run) must_run.push_back(std::move(job.fn));
    }
    jobs_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  for (auto& fn : must_run)
    fn();
}

void BackgroundExecutor::post(std::function<void()> job, bool must_run) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      jobs_.push_back(Job{std::move(job), must_run});
      cv_.notify_one();
      return;
    }
  }
  if (must_run) job();
}

void BackgroundExecutor::run(int nice) {
  // Linux's niceness is per thread: this one's alone.
  if (nice != 0) (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), nice);
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front().fn);
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace strata::io
