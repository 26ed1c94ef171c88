#include "io/ring.h"

#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "base/testing/temp_dir.h"
#include "io/testing/loop.h"

namespace strata::io {
namespace {

class RingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fd_ = ::open((dir_.path() / "f").c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override { ::close(fd_); }

  strata::testing::TempDir dir_;
  strata::testing::Loop loop_;
  int fd_ = -1;
};

TEST_F(RingTest, WriteThenReadBackOnTheLoopThread) {
  std::string a = "hello ", b = "ring";
  std::vector<iovec> iov = {{a.data(), a.size()}, {b.data(), b.size()}};
  int write_res = -1;
  std::thread::id completion_thread;
  loop_.ring().writev(fd_, iov, 0, [&](int res) {
    write_res = res;
    completion_thread = std::this_thread::get_id();
  });
  loop_.run_until([&] { return write_res >= 0; });
  EXPECT_EQ(write_res, 10);
  EXPECT_EQ(completion_thread, std::this_thread::get_id());

  std::vector<std::byte> buf(64);
  int read_res = -1;
  loop_.ring().read(fd_, buf, 0, [&](int res) { read_res = res; });
  loop_.run_until([&] { return read_res >= 0; });
  ASSERT_EQ(read_res, 10);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf.data()), 10), "hello ring");
}

TEST_F(RingTest, OperationsPreparedInOneHandlerShareOneSubmission) {
  std::string data(100, 'x');
  std::vector<iovec> iov = {{data.data(), data.size()}};
  int completed = 0;
  uint64_t before = loop_.ring().submissions();
  for (int i = 0; i < 16; ++i) {
    loop_.ring().writev(fd_, iov, static_cast<uint64_t>(i) * 100, [&](int res) {
      EXPECT_EQ(res, 100);
      ++completed;
    });
  }
  loop_.ring().fdatasync(fd_, [&](int res) {
    EXPECT_EQ(res, 0);
    ++completed;
  });
  loop_.run_until([&] { return completed == 17; });
  EXPECT_EQ(loop_.ring().submissions() - before, 1u);
  EXPECT_EQ(::lseek(fd_, 0, SEEK_END), 1600);
}

TEST_F(RingTest, MoreOperationsThanTheRingHoldsAllComplete) {
  strata::testing::TempDir dir;
  boost::asio::io_context io;
  auto ring = Ring::create(io, 8).value();
  std::string data(10, 'y');
  std::vector<iovec> iov = {{data.data(), data.size()}};
  int completed = 0;
  constexpr int kOps = 1000;
  for (int i = 0; i < kOps; ++i) {
    ring->writev(fd_, iov, static_cast<uint64_t>(i) * 10, [&](int res) {
      EXPECT_EQ(res, 10);
      ++completed;
    });
  }
  EXPECT_EQ(ring->in_flight(), static_cast<size_t>(kOps));
  while (completed < kOps)
    io.run_one();
  EXPECT_EQ(ring->in_flight(), 0u);
  EXPECT_EQ(::lseek(fd_, 0, SEEK_END), kOps * 10);
}

TEST_F(RingTest, ErrorsArriveAsNegativeErrno) {
  int res = 0;
  std::vector<std::byte> buf(8);
  loop_.ring().read(-1, buf, 0, [&](int r) { res = r; });
  loop_.run_until([&] { return res != 0; });
  EXPECT_EQ(res, -EBADF);
}

TEST_F(RingTest, DestroyingWithOperationsInFlightWaitsForThem) {
  boost::asio::io_context io;
  auto ring = Ring::create(io).value();
  std::string data(4096, 'z');
  std::vector<iovec> iov = {{data.data(), data.size()}};
  bool called = false;
  ring->writev(fd_, iov, 0, [&](int) { called = true; });
  ring.reset();  // submits what was prepared and waits for it
  EXPECT_FALSE(called);
  EXPECT_EQ(::lseek(fd_, 0, SEEK_END), 4096);
}

}  // namespace
}  // namespace strata::io
