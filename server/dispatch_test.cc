#include "server/dispatch.h"

#include <gtest/gtest.h>

namespace strata::server {
namespace {

// ApiVersions advertises kafka::supported_apis(); dispatch must run every one
// of them (a request for one without a route would close the connection).
TEST(Dispatch, EveryAdvertisedApiHasAHandler) {
  for (const auto& api : kafka::supported_apis())
    EXPECT_TRUE(has_route(api.key)) << api.name;
  EXPECT_FALSE(has_route(-1));
  EXPECT_FALSE(has_route(10000));
}

}  // namespace
}  // namespace strata::server
