#include "coordinator/etcd_endpoints.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace strata::coordinator {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

Error bad(std::string_view entry, std::string_view why) {
  return Error(Errc::kInvalidArgument, fmt::format("etcd endpoint '{}' {}", entry, why));
}

Status check_endpoint(std::string_view ep) {
  if (ep.find("://") != std::string_view::npos) {
    return bad(ep, "has a scheme; give host:port");
  }
  auto colon = ep.rfind(':');
  if (colon == std::string_view::npos) return bad(ep, "is not host:port");
  std::string_view host = ep.substr(0, colon);
  std::string_view port = ep.substr(colon + 1);
  if (host.empty()) return bad(ep, "has no host");
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return bad(ep, "has a malformed IPv6 address");
  } else if (host.find(':') != std::string_view::npos) {
    return bad(ep, "has an IPv6 address without brackets ([::1]:2379)");
  }
  for (char c : host) {
    if (c == ' ' || c == '/' || c == '@') return bad(ep, "has a malformed host");
  }
  int value = 0;
  auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || ptr != port.data() + port.size() || value < 1 ||
      value > 65535) {
    return bad(ep, "needs a port between 1 and 65535");
  }
  return ok_status();
}

}  // namespace

Result<std::vector<std::string>> parse_etcd_endpoints(std::string_view list) {
  std::vector<std::string> out;
  if (trim(list).empty()) return Error(Errc::kInvalidArgument, "no etcd endpoint given");
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view ep = trim(list.substr(start, comma - start));
    if (ep.empty()) {
      return Error(Errc::kInvalidArgument, fmt::format("empty etcd endpoint in '{}'", list));
    }
    STRATA_TRY(check_endpoint(ep));
    if (std::find(out.begin(), out.end(), ep) != out.end()) {
      return bad(ep, "is listed twice");
    }
    out.emplace_back(ep);
    start = comma + 1;
  }
  return out;
}

}  // namespace strata::coordinator
