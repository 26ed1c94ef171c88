#include "io/background_executor.h"

#include <pthread.h>

namespace strata::io {

BackgroundExecutor::BackgroundExecutor(size_t threads, std::string name) {
  for (size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this] { run(); });
    std::string thread_name = (name + "-" + std::to_string(i)).substr(0, 15);
    pthread_setname_np(threads_.back().native_handle(), thread_name.c_str());
  }
}

BackgroundExecutor::~BackgroundExecutor() {
  stop();
}

void BackgroundExecutor::stop() {
  stopping_flag_.store(true);
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    jobs_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void BackgroundExecutor::post(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void BackgroundExecutor::run() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace strata::io
