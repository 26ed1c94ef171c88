// SegmentSet on its own: the lookups readers use, and which closed segments
// a new log start and retention delete — never the active one.
#include <gtest/gtest.h>

#include "engine/segment.h"

namespace strata::engine {
namespace {

// Segments based at `bases`, each `size` bytes, the i-th with records up to
// timestamp 1000 * (i + 1) (the running maximum retention reads).
SegmentSet segments(std::vector<int64_t> bases, uint64_t size = 100) {
  SegmentSet set;
  for (size_t i = 0; i < bases.size(); ++i) {
    auto seg = std::make_shared<Segment>();
    seg->base = Offset(bases[i]);
    seg->size = size;
    seg->meta.max_timestamp = 1000 * static_cast<int64_t>(i + 1);
    seg->max_timestamp_through = seg->meta.max_timestamp;
    set[seg->base] = seg;
  }
  return set;
}

std::vector<Offset> bases_of(const std::vector<std::shared_ptr<Segment>>& segs) {
  std::vector<Offset> out;
  for (const auto& s : segs)
    out.push_back(s->base);
  return out;
}

TEST(SegmentSetTest, AnOffsetIsInTheLastSegmentNotBasedAboveIt) {
  auto set = segments({0, 10, 25});
  EXPECT_EQ(set.containing(Offset(0))->base, Offset(0));
  EXPECT_EQ(set.containing(Offset(9))->base, Offset(0));
  EXPECT_EQ(set.containing(Offset(10))->base, Offset(10));
  EXPECT_EQ(set.containing(Offset(1000))->base, Offset(25));
  EXPECT_EQ(segments({5}).containing(Offset(4)), nullptr);
  EXPECT_EQ(set.after(Offset(0))->base, Offset(10));
  EXPECT_EQ(set.after(Offset(25)), nullptr);
  EXPECT_EQ(set.bases(), (std::vector{Offset(0), Offset(10), Offset(25)}));
  EXPECT_EQ(set.size_bytes(), 300u);
}

TEST(SegmentSetTest, ANewLogStartDeletesTheClosedSegmentsWhollyBelowIt) {
  auto set = segments({0, 10, 25});
  EXPECT_EQ(bases_of(set.wholly_below(Offset(9))), std::vector<Offset>{});
  // At a segment's base the one before it is wholly below.
  EXPECT_EQ(bases_of(set.wholly_below(Offset(10))), std::vector{Offset(0)});
  EXPECT_EQ(bases_of(set.wholly_below(Offset(24))), std::vector{Offset(0)});
  // Never the active segment, however far the start moves.
  EXPECT_EQ(bases_of(set.wholly_below(Offset(1000))), (std::vector{Offset(0), Offset(10)}));
  EXPECT_EQ(bases_of(segments({0}).wholly_below(Offset(1000))), std::vector<Offset>{});
  EXPECT_EQ(bases_of(SegmentSet().wholly_below(Offset(1000))), std::vector<Offset>{});
}

TEST(SegmentSetTest, RetentionByTimeTakesTheOldSegmentsOldestFirst) {
  auto set = segments({0, 10, 25, 40});  // newest records at 1000, 2000, 3000, 4000
  // At 5000 with retention.ms 2500: older than 2500 are the first two.
  EXPECT_EQ(bases_of(set.expired(5000, 2500, -1)), (std::vector{Offset(0), Offset(10)}));
  EXPECT_EQ(bases_of(set.expired(5000, 10000, -1)), std::vector<Offset>{});
  // Everything old: all but the active segment.
  EXPECT_EQ(bases_of(set.expired(100000, 1, -1)), (std::vector{Offset(0), Offset(10), Offset(25)}));
  // Off: nothing.
  EXPECT_EQ(bases_of(set.expired(100000, -1, -1)), std::vector<Offset>{});
}

TEST(SegmentSetTest, RetentionBySizeKeepsAtLeastTheLimit) {
  auto set = segments({0, 10, 25, 40}, 100);  // 400 bytes
  // At least 250 bytes kept: one segment goes (300 left); a second would leave 200.
  EXPECT_EQ(bases_of(set.expired(0, -1, 250)), (std::vector{Offset(0)}));
  EXPECT_EQ(bases_of(set.expired(0, -1, 200)), (std::vector{Offset(0), Offset(10)}));
  EXPECT_EQ(bases_of(set.expired(0, -1, 0)), (std::vector{Offset(0), Offset(10), Offset(25)}));
  EXPECT_EQ(bases_of(set.expired(0, -1, 400)), std::vector<Offset>{});
  // Either limit deletes: time takes the first, size the second.
  EXPECT_EQ(bases_of(set.expired(2500, 1000, 200)), (std::vector{Offset(0), Offset(10)}));
}

}  // namespace
}  // namespace strata::engine
