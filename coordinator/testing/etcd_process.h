// EtcdProcess: a real etcd (Debian's etcd-server, /usr/bin/etcd) for tests:
// one member on free loopback ports (127.0.0.1 only) with its data in a
// directory the test owns, and its log beside it (<data dir>.log).
//
//   strata::testing::TempDir dir;
//   auto etcd = EtcdProcess::start(dir / "etcd").value();
//   auto store = EtcdStore::open({.endpoints = {etcd->endpoint()}}).value();
//   etcd->kill();                       // SIGKILL
//   ASSERT_TRUE(etcd->restart().ok());  // same data, same ports
//
// start() and restart() return once etcd answers a Range on its client port
// (polled, bounded by 60 s), or with an error that quotes the end of its log.
// Its Raft timings are shortened (heartbeat 50 ms, election 500 ms) so that
// its shortest lease is 1 s.
//
// Thread-safety: none; one test thread drives it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include <sys/types.h>

#include "base/result.h"

namespace strata::coordinator::testing {

class EtcdProcess {
 public:
  static Result<std::unique_ptr<EtcdProcess>> start(std::filesystem::path data_dir);
  ~EtcdProcess();  // kills it
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  // "127.0.0.1:<client port>"
  std::string endpoint() const;
  uint16_t client_port() const { return client_port_; }

  // SIGKILL, and waits for the process to be gone.
  void kill();
  // Starts it again on the same data directory and peer port, serving
  // clients on `client_port` (0: the port it had). REQUIRES: killed.
  Status restart(uint16_t client_port = 0);

  // A loopback TCP port nothing listens on right now.
  static uint16_t free_port();

 private:
  EtcdProcess(std::filesystem::path data_dir, uint16_t client_port, uint16_t peer_port)
      : data_dir_(std::move(data_dir)), client_port_(client_port), peer_port_(peer_port) {}
  Status launch();
  Status wait_ready();
  std::string log_tail() const;

  const std::filesystem::path data_dir_;
  uint16_t client_port_;
  const uint16_t peer_port_;
  pid_t pid_ = -1;
};

// A loopback port bound, never listened on, for as long as the object
// lives: connections to it are refused, and no other test can take it.
class DeadPort {
 public:
  DeadPort();
  ~DeadPort();
  DeadPort(const DeadPort&) = delete;
  DeadPort& operator=(const DeadPort&) = delete;
  // "127.0.0.1:<port>"
  std::string endpoint() const;

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

}  // namespace strata::coordinator::testing
