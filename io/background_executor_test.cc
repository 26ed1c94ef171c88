#include "io/background_executor.h"

#include <atomic>
#include <future>
#include <thread>

#include <gtest/gtest.h>

namespace strata::io {
namespace {

TEST(BackgroundExecutorTest, RunsEveryJobOffTheCallersThread) {
  std::atomic<int> ran{0};
  std::promise<void> all;
  {
    BackgroundExecutor exec(2, "test");
    EXPECT_EQ(exec.threads(), 2u);
    const auto caller = std::this_thread::get_id();
    for (int i = 0; i < 100; ++i) {
      exec.post([&, caller] {
        EXPECT_NE(std::this_thread::get_id(), caller);
        if (++ran == 100) all.set_value();
      });
    }
    all.get_future().wait();
  }
  EXPECT_EQ(ran.load(), 100);
}

TEST(BackgroundExecutorTest, StopEndsARunningJobThatWatchesItAndDropsTheRest) {
  BackgroundExecutor exec(1, "test");
  std::promise<void> started;
  std::atomic<bool> saw_stop{false};
  std::atomic<bool> queued_ran{false};
  // A job that would run forever unless it watches stopping().
  exec.post([&] {
    started.set_value();
    while (!exec.stopping().load())
      std::this_thread::yield();
    saw_stop = true;
  });
  exec.post([&] { queued_ran = true; });  // queued behind it: dropped
  started.get_future().wait();
  EXPECT_FALSE(exec.stopping().load());
  exec.stop();
  EXPECT_TRUE(saw_stop.load());
  EXPECT_FALSE(queued_ran.load());
  exec.post([&] { queued_ran = true; });  // after stop: dropped
  exec.stop();                            // again: nothing left to do
  EXPECT_FALSE(queued_ran.load());
}

}  // namespace
}  // namespace strata::io
