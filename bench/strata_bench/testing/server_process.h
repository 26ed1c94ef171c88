// ServerProcess: runs a server binary (redis-server, nats-server,
// strata-broker) for a driver test, on a free loopback port, and stops it
// when the object goes away. For tests only.
#pragma once

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/check.h"

namespace strata::bench::testing {

// A loopback TCP port nobody listens on right now.
inline int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  STRATA_CHECK(fd >= 0, "socket: {}", errno);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  STRATA_CHECK(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0, "bind: {}", errno);
  socklen_t len = sizeof(a);
  STRATA_CHECK(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0, "getsockname");
  ::close(fd);
  return ntohs(a.sin_port);
}

// True once something accepts TCP connections on 127.0.0.1:port.
inline bool port_open(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  STRATA_CHECK(fd >= 0, "socket: {}", errno);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  ::close(fd);
  return ok;
}

class ServerProcess {
 public:
  // Starts argv[0] (searched in PATH) with its output appended to `log_path`
  // and waits until `port` accepts connections. Aborts the test binary if
  // the server exits or is not listening within `timeout`.
  ServerProcess(std::vector<std::string> argv, int port, const std::string& log_path,
                std::chrono::seconds timeout = std::chrono::seconds(30)) {
    pid_ = ::fork();
    STRATA_CHECK(pid_ >= 0, "fork: {}", errno);
    if (pid_ == 0) {
      FILE* log = std::fopen(log_path.c_str(), "a");
      if (log != nullptr) {
        ::dup2(fileno(log), 1);
        ::dup2(fileno(log), 2);
      }
      std::vector<char*> args;
      for (auto& a : argv)
        args.push_back(a.data());
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      _exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!port_open(port)) {
      int status = 0;
      STRATA_CHECK(::waitpid(pid_, &status, WNOHANG) == 0, "{} exited; see {}", argv[0], log_path);
      STRATA_CHECK(std::chrono::steady_clock::now() < deadline,
                   "{} not listening on port {}; see {}", argv[0], port, log_path);
      ::usleep(10'000);  // polling for the port, not standing in for a sync
    }
  }
  ~ServerProcess() {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

}  // namespace strata::bench::testing
