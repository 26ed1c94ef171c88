#include "io/shard.h"

#include <atomic>
#include <future>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "base/testing/temp_dir.h"

namespace strata::io {
namespace {

TEST(Shard, PostedWorkRunsOnTheShardThread) {
  auto shard = Shard::create(3).value();
  shard->start();
  std::promise<std::pair<Shard*, unsigned>> seen;
  shard->post([&] { seen.set_value({Shard::current(), Shard::current()->id()}); });
  auto [who, id] = seen.get_future().get();
  EXPECT_EQ(who, shard.get());
  EXPECT_EQ(id, 3u);
  EXPECT_EQ(Shard::current(), nullptr);
  shard->stop();
}

TEST(Shard, DiskCompletionsComeBackOnTheSameThread) {
  strata::testing::TempDir dir;
  int fd = ::open((dir.path() / "f").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  auto shard = Shard::create(0).value();
  shard->start();
  std::string data(1 << 16, 'q');
  std::vector<iovec> iov = {{data.data(), data.size()}};
  std::promise<bool> same_thread;
  shard->post([&] {
    auto submitter = std::this_thread::get_id();
    shard->ring().writev(fd, iov, 0, [&, submitter](int res) {
      EXPECT_EQ(res, 1 << 16);
      shard->ring().fdatasync(fd, [&, submitter](int r) {
        EXPECT_EQ(r, 0);
        same_thread.set_value(std::this_thread::get_id() == submitter && shard->on_thread());
      });
    });
  });
  EXPECT_TRUE(same_thread.get_future().get());
  shard->stop();
  ::close(fd);
}

TEST(Shard, ManyShardsRunIndependently) {
  std::vector<std::unique_ptr<Shard>> shards;
  for (unsigned i = 0; i < 4; ++i)
    shards.push_back(Shard::create(i).value());
  for (auto& s : shards)
    s->start();
  std::atomic<int> ran{0};
  std::vector<std::promise<void>> done(shards.size());
  for (size_t i = 0; i < shards.size(); ++i) {
    shards[i]->post([&, i] {
      EXPECT_EQ(Shard::current(), shards[i].get());
      ++ran;
      done[i].set_value();
    });
  }
  for (auto& d : done)
    d.get_future().get();
  EXPECT_EQ(ran.load(), 4);
  for (auto& s : shards)
    s->stop();
}

TEST(Shard, StopIsIdempotentAndJoins) {
  auto shard = Shard::create(0).value();
  shard->start();
  shard->stop();
  shard->stop();
  EXPECT_FALSE(shard->on_thread());
}

}  // namespace
}  // namespace strata::io
