#include "bench/strata_bench/accounting.h"

#include <random>
#include <set>

#include <gtest/gtest.h>

namespace strata::bench {
namespace {

TEST(SequenceSetTest, MatchesAStdSet) {
  SequenceSet s;
  std::set<uint64_t> want;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) {
    uint64_t v = rng() % 50000;
    EXPECT_EQ(s.insert(v), want.insert(v).second);
  }
  for (uint64_t limit : {0ull, 1ull, 63ull, 64ull, 65ull, 4097ull, 50000ull, 80000ull}) {
    uint64_t present = 0;
    for (uint64_t v : want)
      present += v < limit ? 1 : 0;
    EXPECT_EQ(s.missing_below(limit), limit - present) << limit;
  }
  EXPECT_TRUE(s.contains(*want.begin()));
  EXPECT_FALSE(s.contains(1'000'000));
}

TEST(GroupAccountingTest, CountsUniqueDuplicateForeignAndMissing) {
  GroupAccounting g(2);
  std::vector<Stamp> batch;
  for (uint64_t i = 0; i < 100; ++i)
    batch.push_back({0, 0, i});  // producer 0: all of 0..99
  for (uint64_t i = 0; i < 100; i += 2)
    batch.push_back({0, 1, i});  // producer 1: evens only
  batch.push_back({0, 0, 5});    // a redelivery
  batch.push_back({0, 7, 1});    // producer 7 is not in this run
  g.record(batch);
  EXPECT_EQ(g.unique(), 150u);
  EXPECT_EQ(g.duplicates(), 1u);
  EXPECT_EQ(g.foreign(), 1u);
  EXPECT_EQ(g.missing({100, 100}), 50u);
  EXPECT_EQ(g.missing({101, 100}), 51u);  // producer 0 sent one it never saw
}

TEST(GroupAccountingTest, AnAbsurdSequenceIsForeignNotAHugeAllocation) {
  GroupAccounting g(1);
  std::vector<Stamp> batch = {{0, 0, uint64_t{1} << 60}};
  g.record(batch);
  EXPECT_EQ(g.foreign(), 1u);
  EXPECT_EQ(g.unique(), 0u);
}

}  // namespace
}  // namespace strata::bench
