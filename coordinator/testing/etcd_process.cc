#include "coordinator/testing/etcd_process.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coordinator/etcd_store.h"

extern char** environ;

namespace strata::coordinator::testing {
namespace {

constexpr const char* kEtcd = "/usr/bin/etcd";

// A TCP socket bound to a free loopback port, not listening; sets `port`.
int bind_free_port(uint16_t& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  STRATA_CHECK(fd >= 0, "socket: {}", errno);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  STRATA_CHECK(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0, "bind: {}",
               errno);
  socklen_t len = sizeof(addr);
  STRATA_CHECK(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0, "getsockname: {}",
               errno);
  port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

uint16_t EtcdProcess::free_port() {
  uint16_t port = 0;
  ::close(bind_free_port(port));
  return port;
}

DeadPort::DeadPort() {
  fd_ = bind_free_port(port_);
}

DeadPort::~DeadPort() {
  ::close(fd_);
}

std::string DeadPort::endpoint() const {
  return fmt::format("127.0.0.1:{}", port_);
}

Result<std::unique_ptr<EtcdProcess>> EtcdProcess::start(std::filesystem::path data_dir) {
  if (::access(kEtcd, X_OK) != 0) {
    return Error(
        Errc::kNotFound,
        fmt::format("{} is missing: install etcd-server (scripts/setup.sh --tests)", kEtcd));
  }
  std::unique_ptr<EtcdProcess> p(new EtcdProcess(std::move(data_dir), free_port(), free_port()));
  STRATA_TRY(p->launch());
  return p;
}

EtcdProcess::~EtcdProcess() {
  kill();
}

std::string EtcdProcess::endpoint() const {
  return fmt::format("127.0.0.1:{}", client_port_);
}

Status EtcdProcess::launch() {
  const std::string client = fmt::format("http://127.0.0.1:{}", client_port_);
  const std::string peer = fmt::format("http://127.0.0.1:{}", peer_port_);
  std::vector<std::string> args = {
      kEtcd,
      "--name=strata-test",
      "--data-dir=" + data_dir_.string(),
      "--listen-client-urls=" + client,
      "--advertise-client-urls=" + client,
      "--listen-peer-urls=" + peer,
      "--initial-advertise-peer-urls=" + peer,
      "--initial-cluster=strata-test=" + peer,
      "--initial-cluster-state=new",
      "--heartbeat-interval=50",
      "--election-timeout=500",
      "--logger=zap",
      "--log-level=warn",
  };
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  const std::string log = data_dir_.string() + ".log";
  // fork rather than posix_spawn, to set a parent-death signal: an etcd
  // never outlives a test process that was killed (a ctest timeout). The
  // child calls only async-signal-safe functions before exec.
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return Error::io(errno, std::string("fork for ") + kEtcd);
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (in < 0 || out < 0 || ::dup2(in, STDIN_FILENO) < 0 || ::dup2(out, STDOUT_FILENO) < 0 ||
        ::dup2(out, STDERR_FILENO) < 0) {
      ::_exit(127);
    }
    ::execve(kEtcd, argv.data(), environ);
    ::_exit(127);
  }
  pid_ = pid;
  return wait_ready();
}

Status EtcdProcess::wait_ready() {
  auto store = EtcdStore::open({.endpoints = {endpoint()}, .call_timeout_ms = 1000, .watch = {}});
  STRATA_TRY(store);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::string last;
  while (std::chrono::steady_clock::now() < give_up) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Error(Errc::kInternal, fmt::format("etcd exited (status {}) before serving {}: {}",
                                                status, endpoint(), log_tail()));
    }
    auto r = (*store)->get("/strata-test-ready");
    if (r.ok()) return ok_status();
    last = r.error().to_string();
    // A poll interval, not a wait for an event: etcd says nothing when ready.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Error(Errc::kIoError, fmt::format("etcd on {} did not answer within 60 s ({}): {}",
                                           endpoint(), last, log_tail()));
}

std::string EtcdProcess::log_tail() const {
  std::ifstream in(data_dir_.string() + ".log");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

void EtcdProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

Status EtcdProcess::restart(uint16_t client_port) {
  STRATA_CHECK(pid_ <= 0, "restart of a running etcd");
  if (client_port != 0) client_port_ = client_port;
  return launch();
}

}  // namespace strata::coordinator::testing
