// The endpoints of an etcd cluster as configured (etcd.endpoints): a comma
// separated list of host:port, where host is a name, an IPv4 address or an
// IPv6 address in brackets, and port is 1..65535.
//
//   auto eps = parse_etcd_endpoints("127.0.0.1:2379, etcd-2:2379,[::1]:2379");
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace strata::coordinator {

// The endpoints in order, without the spaces around them. kInvalidArgument
// (naming the bad entry) for an empty list, an empty entry, a missing or bad
// port, a scheme (http://) or a duplicate.
Result<std::vector<std::string>> parse_etcd_endpoints(std::string_view list);

}  // namespace strata::coordinator
