#include "io/background_executor.h"

#include <atomic>
#include <future>

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

}  // namespace
}  // namespace strata::io
