#include "coordinator/etcd_endpoints.h"

#include <gtest/gtest.h>

namespace strata::coordinator {
namespace {

TEST(EtcdEndpoints, ParsesAHostPortList) {
  auto eps = parse_etcd_endpoints(" 127.0.0.1:2379, etcd-2.example:22379 ,[::1]:2379").value();
  EXPECT_EQ(eps,
            (std::vector<std::string>{"127.0.0.1:2379", "etcd-2.example:22379", "[::1]:2379"}));
  EXPECT_EQ(parse_etcd_endpoints("localhost:1").value().size(), 1u);
}

TEST(EtcdEndpoints, RefusesWhatIsNotHostPortNamingIt) {
  for (const char* bad :
       {"", " ", "127.0.0.1", "127.0.0.1:", ":2379", "h:0", "h:65536", "h:x", "h:2379,",
        "h:2379,,g:1", "http://h:2379", "::1:2379", "[::1:2379", "h:1,h:1", "a b:1"}) {
    auto r = parse_etcd_endpoints(bad);
    ASSERT_FALSE(r.ok()) << "'" << bad << "' was accepted";
    EXPECT_EQ(r.error().code(), Errc::kInvalidArgument);
  }
  EXPECT_NE(parse_etcd_endpoints("a:1,b:99999").error().message().find("b:99999"),
            std::string::npos);
}

}  // namespace
}  // namespace strata::coordinator
