#include "coordinator/watch_tracker.h"

#include <gtest/gtest.h>

namespace strata::coordinator {
namespace {

using Type = WatchEvent::Type;

Entry entry(std::string key, std::string value, int64_t mod) {
  return Entry{std::move(key), std::move(value), 1, mod, mod, kNoLease};
}
WatchEvent put(std::string key, std::string value, int64_t rev) {
  return WatchEvent{Type::kPut, entry(std::move(key), std::move(value), rev), rev};
}
WatchEvent gone(std::string key, int64_t rev) {
  Entry e;
  e.key = std::move(key);
  e.mod_revision = rev;
  return WatchEvent{Type::kErase, e, rev};
}

TEST(WatchTracker, DeliversEachRevisionOnceAndMovesOn) {
  WatchTracker t(5);
  EXPECT_EQ(t.deliver({put("/a", "1", 4), put("/a", "2", 5), put("/b", "1", 6)}),
            (std::vector<WatchEvent>{put("/a", "2", 5), put("/b", "1", 6)}));
  EXPECT_EQ(t.next_revision(), 7);
  // A resumed stream repeating revision 6 is not told twice.
  EXPECT_EQ(t.deliver({put("/b", "1", 6), gone("/a", 7)}),
            (std::vector<WatchEvent>{gone("/a", 7)}));
  t.advance_to(10);
  EXPECT_EQ(t.next_revision(), 10);
  t.advance_to(3);
  EXPECT_EQ(t.next_revision(), 10);
}

TEST(WatchTracker, AResyncTellsOnlyTheDifferences) {
  WatchTracker t(4);
  t.seed({entry("/old", "1", 2), entry("/same", "1", 3)});
  t.deliver({put("/a", "1", 4)});
  // Revisions 5..9 were compacted away: /a changed twice, /n appeared, /old
  // went, /same did not change.
  auto diff =
      t.resync(Listing{{entry("/a", "3", 8), entry("/n", "1", 6), entry("/same", "1", 3)}, 9});
  EXPECT_EQ(diff, (std::vector<WatchEvent>{put("/n", "1", 6), put("/a", "3", 8), gone("/old", 9)}));
  EXPECT_EQ(t.next_revision(), 10);
  // What it knows now is the listing.
  EXPECT_TRUE(
      t.resync(Listing{{entry("/a", "3", 8), entry("/n", "1", 6), entry("/same", "1", 3)}, 12})
          .empty());
  EXPECT_EQ(t.next_revision(), 13);
}

}  // namespace
}  // namespace strata::coordinator
