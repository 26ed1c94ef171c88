// strata cluster: brokers, controller, cluster id, and the API versions the
// bootstrap broker serves.
#include <fmt/format.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/big_endian.h"
#include "tools/commands.h"
#include "tools/output.h"

namespace strata::tools {
namespace {

// The API key ranges the broker advertises (an ApiVersions v0 exchange on a
// plain socket; librdkafka keeps them to itself).
Result<std::vector<std::array<int16_t, 3>>> api_versions(const Globals& g) {
  std::string hostport = g.bootstrap.substr(0, g.bootstrap.find(','));
  auto colon = hostport.rfind(':');
  if (colon == std::string::npos)
    return Error(Errc::kInvalidArgument, "bootstrap must be host:port");
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(hostport.substr(0, colon).c_str(), hostport.substr(colon + 1).c_str(), &hints,
                  &res) != 0 ||
      !res) {
    return Error(Errc::kIoError, fmt::format("cannot resolve {}", hostport));
  }
  int fd = socket(res->ai_family, SOCK_STREAM, 0);
  timeval tv{static_cast<time_t>(g.timeout_s), 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  int rc = connect(fd, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  auto fail = [&](std::string why) -> Result<std::vector<std::array<int16_t, 3>>> {
    close(fd);
    return Error(Errc::kIoError, fmt::format("ApiVersions from {}: {}", hostport, why));
  };
  if (rc != 0) return fail("cannot connect");
  const char client[] = "strata-cli";
  std::vector<std::byte> req(4 + 2 + 2 + 4 + 2 + sizeof(client) - 1);
  be::store<int32_t>(req.data(), static_cast<int32_t>(req.size() - 4));
  be::store<int16_t>(req.data() + 4, 18);
  be::store<int16_t>(req.data() + 6, 0);
  be::store<int32_t>(req.data() + 8, 1);
  be::store<int16_t>(req.data() + 12, static_cast<int16_t>(sizeof(client) - 1));
  std::memcpy(req.data() + 14, client, sizeof(client) - 1);
  if (write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size()))
    return fail("write failed");
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
  if (!read_all(size, 4)) return fail("no answer");
  int32_t n = be::load<int32_t>(size);
  if (n < 10 || n > (1 << 20)) return fail("bad answer");
  std::vector<std::byte> body(static_cast<size_t>(n));
  if (!read_all(body.data(), body.size())) return fail("short answer");
  close(fd);
  int32_t count = be::load<int32_t>(body.data() + 6);
  if (count < 0 || static_cast<size_t>(count) * 6 + 10 > body.size()) {
    return Error(Errc::kIoError, "bad ApiVersions answer");
  }
  std::vector<std::array<int16_t, 3>> out;
  for (int32_t i = 0; i < count; ++i) {
    const std::byte* p = body.data() + 10 + 6 * i;
    out.push_back({be::load<int16_t>(p), be::load<int16_t>(p + 2), be::load<int16_t>(p + 4)});
  }
  return out;
}

Status cluster(const Globals& g) {
  STRATA_ASSIGN_OR_RETURN(auto k, Kafka::create(g, Kafka::Kind::kProducer));
  STRATA_ASSIGN_OR_RETURN(auto md, k->metadata());
  STRATA_ASSIGN_OR_RETURN(auto apis, api_versions(g));
  if (g.json) {
    nlohmann::json brokers = nlohmann::json::array();
    for (const auto& b : md.brokers)
      brokers.push_back({{"id", b.id}, {"host", b.host}, {"port", b.port}});
    nlohmann::json versions = nlohmann::json::array();
    for (const auto& a : apis)
      versions.push_back({{"api_key", a[0]}, {"min", a[1]}, {"max", a[2]}});
    print_json({{"cluster_id", md.cluster_id},
                {"controller", md.controller},
                {"brokers", brokers},
                {"api_versions", versions},
                {"librdkafka", rd_kafka_version_str()}});
    return ok_status();
  }
  std::printf("cluster %s, controller %d\n\n", md.cluster_id.c_str(), md.controller);
  Table t({"BROKER", "HOST", "PORT"});
  for (const auto& b : md.brokers)
    t.add({std::to_string(b.id), b.host, std::to_string(b.port)});
  t.print();
  std::printf("\n");
  Table v({"API KEY", "MIN", "MAX"});
  for (const auto& a : apis)
    v.add({std::to_string(a[0]), std::to_string(a[1]), std::to_string(a[2])});
  v.print();
  return ok_status();
}

}  // namespace

void add_cluster_command(CLI::App& app, Globals& g, Action& action) {
  auto* c = app.add_subcommand("cluster", "Brokers, controller, cluster id and API versions");
  c->callback([&] { action = [&g] { return cluster(g); }; });
}

}  // namespace strata::tools
