#include "tools/wire.h"

#include <fmt/format.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/big_endian.h"
#include "server/kafka/error_code.h"
#include "server/kafka/messages/find_coordinator.h"

namespace strata::tools {

std::string first_bootstrap(const Globals& g) {
  return g.bootstrap.substr(0, g.bootstrap.find(','));
}

Error broker_error(int16_t code, const std::string& what) {
  auto e = static_cast<kafka::ErrorCode>(code);
  return Error(Errc::kIoError, fmt::format("{}: {}", what, kafka::error_name(e)));
}

bool coordinator_moving(int16_t code) {
  using kafka::ErrorCode;
  return code == kafka::code(ErrorCode::kNotCoordinator) ||
         code == kafka::code(ErrorCode::kCoordinatorNotAvailable) ||
         code == kafka::code(ErrorCode::kCoordinatorLoadInProgress);
}

Result<std::string> coordinator_of(const Globals& g, const std::string& key, int8_t key_type) {
  kafka::FindCoordinatorRequest req;
  req.key = key;
  req.key_type = key_type;
  STRATA_ASSIGN_OR_RETURN(auto resp,
                          (wire_call<kafka::FindCoordinatorRequest, kafka::FindCoordinatorResponse>(
                              g, first_bootstrap(g), req, 2)));
  std::string what =
      fmt::format("the coordinator of {} '{}'", key_type == 1 ? "transactional id" : "group", key);
  if (coordinator_moving(resp.error_code)) {
    return Error(Errc::kUnavailable, broker_error(resp.error_code, what).message());
  }
  if (resp.error_code != 0) return broker_error(resp.error_code, what);
  return fmt::format("{}:{}", resp.host, resp.port);
}

std::string broker_address(const Kafka::Broker& b) {
  return fmt::format("{}:{}", b.host, b.port);
}

Result<SharedBytes> wire_exchange(const Globals& g, const std::string& hostport,
                                  const std::vector<SharedBytes>& frame) {
  auto colon = hostport.rfind(':');
  if (colon == std::string::npos) {
    return Error(Errc::kInvalidArgument, fmt::format("'{}' is not host:port", hostport));
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(hostport.substr(0, colon).c_str(), hostport.substr(colon + 1).c_str(), &hints,
                  &res) != 0 ||
      res == nullptr) {
    return Error(Errc::kIoError, fmt::format("cannot resolve {}", hostport));
  }
  int fd = socket(res->ai_family, SOCK_STREAM, 0);
  if (fd < 0) {
    freeaddrinfo(res);
    return Error(Errc::kIoError, "socket failed");
  }
  auto secs = static_cast<time_t>(g.timeout_s);
  timeval tv{secs, static_cast<suseconds_t>((g.timeout_s - static_cast<double>(secs)) * 1e6)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  int rc = connect(fd, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  auto fail = [&](std::string_view why) -> Result<SharedBytes> {
    close(fd);
    return Error(Errc::kIoError, fmt::format("{}: {}", hostport, why));
  };
  if (rc != 0) return fail("cannot connect");
  for (const auto& part : frame) {
    size_t sent = 0;
    while (sent < part.size()) {
      ssize_t n = write(fd, part.data() + sent, part.size() - sent);
      if (n <= 0) return fail("the request could not be sent");
      sent += static_cast<size_t>(n);
    }
  }
  auto read_all = [&](std::byte* p, size_t n) {
    size_t got = 0;
    while (got < n) {
      ssize_t r = read(fd, p + got, n - got);
      if (r <= 0) return false;
      got += static_cast<size_t>(r);
    }
    return true;
  };
  std::byte size[4];
  if (!read_all(size, 4)) return fail("no answer within the timeout");
  int32_t n = be::load<int32_t>(size);
  if (n < 4 || n > (64 << 20)) return fail(fmt::format("an answer of {} bytes", n));
  auto body = SharedBytes::allocate(static_cast<size_t>(n));
  if (!read_all(body.data(), body.size())) return fail("a short answer");
  close(fd);
  return body;
}

}  // namespace strata::tools
