#include "base/result.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace strata {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return Error(Errc::kInvalidArgument, "not positive");
  return v;
}

Result<int> doubled(int v) {
  STRATA_ASSIGN_OR_RETURN(int x, parse_positive(v));
  return 2 * x;
}

Status check(int v) {
  STRATA_TRY(parse_positive(v));
  return ok_status();
}

TEST(Result, CarriesValueOrError) {
  auto good = doubled(4);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 8);
  auto bad = doubled(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(bad.error().to_string(), "InvalidArgument: not positive");
  EXPECT_TRUE(check(1).ok());
  EXPECT_EQ(check(0).error().code(), Errc::kInvalidArgument);
}

TEST(Result, HoldsMoveOnlyValues) {
  Result<std::unique_ptr<std::string>> r(std::make_unique<std::string>("x"));
  ASSERT_TRUE(r.ok());
  auto p = std::move(r).value();
  EXPECT_EQ(*p, "x");
}

TEST(ResultDeathTest, ValueOfFailureAborts) {
  EXPECT_DEATH(
      {
        Result<int> r(Error(Errc::kNotFound, "gone"));
        (void)r.value();
      },
      "NotFound: gone");
}

}  // namespace
}  // namespace strata
