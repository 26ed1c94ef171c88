#include "tools/time_spec.h"

#include <gtest/gtest.h>

namespace strata::tools {
namespace {

TEST(TimeSpec, ParsesRfc3339WithZonesAndFractions) {
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00Z").value(), 0);
  EXPECT_EQ(parse_rfc3339("2026-11-29T08:00:00Z").value(), 1795939200000);
  EXPECT_EQ(parse_rfc3339("2026-11-29T09:00:00+01:00").value(), 1795939200000);
  EXPECT_EQ(parse_rfc3339("2026-11-29T08:00:00.25Z").value(), 1795939200250);
  EXPECT_EQ(parse_rfc3339("2026-11-29 07:30:00.123-00:30").value(), 1795939200123);
}

TEST(TimeSpec, RejectsBadTimesNamingThem) {
  for (const char* bad : {"2026-11-29", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
                          "2026-11-29T08:00:00", "2026-11-29T08:00:00Zjunk", "yesterday", ""}) {
    auto r = parse_time(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code(), Errc::kInvalidArgument);
    EXPECT_NE(r.error().message().find("bad time"), std::string::npos) << r.error().message();
  }
}

TEST(TimeSpec, PositionsAreOffsetsOrTimes) {
  auto o = parse_position("1234").value();
  EXPECT_EQ(o.kind, Position::Kind::kOffset);
  EXPECT_EQ(o.value, 1234);
  auto t = parse_position("@1764403200000").value();
  EXPECT_EQ(t.kind, Position::Kind::kTime);
  EXPECT_EQ(t.value, 1764403200000);
  auto r = parse_position("2026-11-29T08:00:00Z").value();
  EXPECT_EQ(r.kind, Position::Kind::kTime);
  EXPECT_FALSE(parse_position("-5").ok());
  EXPECT_FALSE(parse_position("@soon").ok());
}

TEST(TimeSpec, FormatsUtcWithMilliseconds) {
  EXPECT_EQ(format_time(1795939200250), "2026-11-29T08:00:00.250Z");
  EXPECT_EQ(format_time(0), "1970-01-01T00:00:00.000Z");
}

}  // namespace
}  // namespace strata::tools
