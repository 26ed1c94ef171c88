// run_on_owners and LongPoll over a ShardSeam of real shard threads: work
// runs on each partition's owning shard, results come back in request order
// on the requesting shard, and a long poll ends at its deadline or when a
// partition moves, once.
#include "replication/fan_out.h"

#include <future>
#include <mutex>
#include <set>

#include <gtest/gtest.h>

namespace strata::replication {
namespace {

// Two shards; partition uid u lives on shard u % 2 and is hosted there only
// when u is below 100 (the fake has no real replicas: find returns nullptr
// and records who asked, on which thread).
class FakeSeam : public ShardSeam {
 public:
  FakeSeam() {
    for (unsigned i = 0; i < 2; ++i) {
      shards_.push_back(io::Shard::create(i).value());
      shards_.back()->start();
    }
  }
  ~FakeSeam() {
    for (auto& s : shards_)
      s->stop();
  }

  unsigned shard_count() const override { return static_cast<unsigned>(shards_.size()); }
  unsigned shard_for(PartitionUid uid) const override {
    return static_cast<unsigned>(uid.value() % shards_.size());
  }
  io::Shard& shard(unsigned i) override { return *shards_[i]; }
  Partition* find(unsigned i, PartitionUid uid) override {
    std::lock_guard lock(mu_);
    if (!shards_[i]->on_thread()) wrong_thread_ = true;
    finds_.emplace_back(i, uid);
    return nullptr;
  }
  bool stopping() const override { return false; }

  std::mutex mu_;
  bool wrong_thread_ = false;
  std::vector<std::pair<unsigned, PartitionUid>> finds_;

 private:
  std::vector<std::unique_ptr<io::Shard>> shards_;
};

TEST(FanOut, EachPartitionsWorkRunsOnItsOwnerAndResultsReturnInOrderOnTheOrigin) {
  FakeSeam seam;
  std::vector<PartitionUid> uids = {PartitionUid(5), PartitionUid(2), PartitionUid(7),
                                    PartitionUid(4), PartitionUid(9)};
  std::promise<std::pair<std::vector<std::string>, bool>> got;
  seam.shard(1).post([&] {
    run_on_owners<std::string>(
        seam, /*origin=*/1, uids,
        [&seam, &uids](Partition* p, size_t i, std::function<void(std::string)> done) {
          EXPECT_EQ(p, nullptr);
          unsigned owner = seam.shard_for(uids[i]);
          EXPECT_TRUE(seam.shard(owner).on_thread()) << "uid " << uids[i];
          done(std::to_string(uids[i].value()) + "@" + std::to_string(owner));
        },
        [&](std::vector<std::string> results) {
          got.set_value({std::move(results), seam.shard(1).on_thread()});
        });
  });
  auto [results, on_origin] = got.get_future().get();
  EXPECT_TRUE(on_origin);
  EXPECT_EQ(results, (std::vector<std::string>{"5@1", "2@0", "7@1", "4@0", "9@1"}));
  std::lock_guard lock(seam.mu_);
  EXPECT_FALSE(seam.wrong_thread_);
  EXPECT_EQ(seam.finds_.size(), uids.size());
}

TEST(FanOut, AnEmptyRequestIsAnsweredAtOnce) {
  FakeSeam seam;
  bool answered = false;
  run_on_owners<int>(
      seam, 0, {}, [](Partition*, size_t, std::function<void(int)>) { ADD_FAILURE(); },
      [&](std::vector<int> r) {
        EXPECT_TRUE(r.empty());
        answered = true;
      });
  EXPECT_TRUE(answered);
}

TEST(FanOut, ALongPollWithNothingToWaitOnEndsAtItsDeadlineOnce) {
  FakeSeam seam;
  std::promise<bool> woke;
  auto count = std::make_shared<std::atomic<int>>(0);
  auto owner = std::make_shared<int>(0);
  std::unique_ptr<LongPoll> poll;
  seam.shard(0).post([&] {
    poll = std::make_unique<LongPoll>(seam.shard(0).io());
    // Unhosted partitions (find gives nullptr): only the deadline can wake it.
    poll->arm(seam, 0, {PartitionUid(100), PartitionUid(101)}, {Offset(0), Offset(0)},
              /*log_end=*/false, std::chrono::steady_clock::now() + std::chrono::milliseconds(20),
              owner, [&, count] {
                if (count->fetch_add(1) == 0) woke.set_value(seam.shard(0).on_thread());
              });
  });
  EXPECT_TRUE(woke.get_future().get());
  // Whatever was still queued on the shards has run before this answers.
  for (unsigned i = 0; i < 2; ++i) {
    std::promise<void> drained;
    seam.shard(i).post([&] { drained.set_value(); });
    drained.get_future().get();
  }
  EXPECT_EQ(count->load(), 1);
  std::promise<void> destroyed;
  seam.shard(0).post([&] {
    poll.reset();
    destroyed.set_value();
  });
  destroyed.get_future().get();
}

}  // namespace
}  // namespace strata::replication
