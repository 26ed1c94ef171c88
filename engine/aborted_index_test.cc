// AbortedIndex on its own: which aborted transactions a read of a range
// must list, and what truncation, retention and compaction take out.
#include "engine/aborted_index.h"

#include <gtest/gtest.h>

namespace strata::engine {
namespace {

AbortedTxn txn(int64_t pid, int64_t first, int64_t marker) {
  return AbortedTxn{pid, Offset(first), Offset(marker)};
}

TEST(AbortedIndexTest, AReadListsTheTransactionsThatOverlapIt) {
  AbortedIndex index;
  index.add(txn(1, 0, 4));    // records 0..3, marker 4
  index.add(txn(2, 10, 12));  // records 10..11, marker 12
  index.add(txn(3, 20, 30));  // records 20..29, marker 30
  // A read of [0, 5) sees the first; its marker at 4 is inside the read.
  EXPECT_EQ(index.overlapping(Offset(0), Offset(5)), std::vector{txn(1, 0, 4)});
  // From 5 on the first's marker is behind: a consumer already dropped it.
  EXPECT_EQ(index.overlapping(Offset(5), Offset(11)), std::vector{txn(2, 10, 12)});
  // A read ending before a transaction began does not list it, though its
  // marker lies beyond the read.
  EXPECT_EQ(index.overlapping(Offset(5), Offset(10)), std::vector<AbortedTxn>{});
  // A read inside a long transaction lists it.
  EXPECT_EQ(index.overlapping(Offset(25), Offset(26)), std::vector{txn(3, 20, 30)});
  EXPECT_EQ(index.overlapping(Offset(0), Offset::max()),
            (std::vector{txn(1, 0, 4), txn(2, 10, 12), txn(3, 20, 30)}));
}

TEST(AbortedIndexTest, MarkersFarBeyondTheReadAreNotScannedButLongTransactionsAreFound) {
  AbortedIndex index;
  // A transaction spanning 1000 offsets, then short ones after it.
  index.add(txn(1, 0, 1000));
  for (int i = 0; i < 50; ++i)
    index.add(txn(2, 1001 + 2 * i, 1002 + 2 * i));
  // The long one began before 500: a read of [400, 500) must list it.
  EXPECT_EQ(index.overlapping(Offset(400), Offset(500)), std::vector{txn(1, 0, 1000)});
  // A read from just before its marker lists it and the short ones it
  // reaches, not those beyond.
  EXPECT_EQ(index.overlapping(Offset(999), Offset(1004)),
            (std::vector{txn(1, 0, 1000), txn(2, 1001, 1002), txn(2, 1003, 1004)}));
  // A read after its marker lists only the short ones inside it.
  EXPECT_EQ(index.overlapping(Offset(1001), Offset(1004)),
            (std::vector{txn(2, 1001, 1002), txn(2, 1003, 1004)}));
}

TEST(AbortedIndexTest, TruncationRetentionAndCompactionTakeTransactionsOut) {
  AbortedIndex index;
  index.add(txn(1, 0, 4));
  index.add(txn(2, 10, 12));
  index.add(txn(3, 20, 30));
  index.drop_from(Offset(12));  // a truncation at the second's marker
  EXPECT_EQ(index.all(), (std::vector{txn(1, 0, 4)}));
  index.add(txn(2, 10, 12));
  index.drop_below(Offset(5));  // the log start moved past the first's marker
  EXPECT_EQ(index.all(), (std::vector{txn(2, 10, 12)}));
  index.erase(Offset(12));  // a cleaning removed its marker
  EXPECT_TRUE(index.empty());
  EXPECT_EQ(index.overlapping(Offset(0), Offset::max()), std::vector<AbortedTxn>{});
}

}  // namespace
}  // namespace strata::engine
