#include "io/fault_file_system.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "io/disk_file_system.h"
#include "io/testing/loop.h"

namespace strata::io {
namespace {

std::span<const std::byte> bytes_of(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

class FaultFileSystemTest : public ::testing::Test {
 protected:
  void write(File& f, uint64_t pos, std::string data) {
    std::vector<iovec> iov = {{data.data(), data.size()}};
    bool done = false;
    f.write_at(pos, iov, [&](Result<size_t> r) {
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      EXPECT_EQ(*r, data.size());
      done = true;
    });
    loop_.run_until([&] { return done; });
  }
  Status sync(File& f) {
    std::optional<Status> result;
    f.sync([&](Status st) { result = std::move(st); });
    loop_.run_until([&] { return result.has_value(); });
    return *result;
  }
  uint64_t disk_size(const std::string& name) {
    return std::filesystem::file_size(dir_.path() / name);
  }

  strata::testing::TempDir dir_;
  strata::testing::Loop loop_;
  DiskFileSystem disk_{&loop_.ring()};
  FaultFileSystem fs_{disk_, loop_.io()};
};

TEST_F(FaultFileSystemTest, DropUnsyncedKeepsOnlySyncedBytes) {
  {
    auto dir = fs_.open_dir(dir_.path()).value();
    auto f = fs_.open(dir_.path() / "a", OpenMode::kCreateNew).value();
    write(*f, 0, "durable-");
    ASSERT_TRUE(sync(*f).ok());
    ASSERT_TRUE(sync(*dir).ok());
    write(*f, 8, "volatile");
    EXPECT_EQ(fs_.synced_size(dir_.path() / "a"), 8u);
  }
  EXPECT_EQ(disk_size("a"), 16u);
  ASSERT_TRUE(fs_.drop_unsynced().ok());
  EXPECT_EQ(disk_size("a"), 8u);
}

TEST_F(FaultFileSystemTest, FileWhoseCreationWasNeverSyncedDisappears) {
  {
    auto f = fs_.open(dir_.path() / "new", OpenMode::kCreateNew).value();
    write(*f, 0, "data");
    ASSERT_TRUE(f->sync_now().ok());  // the data is synced, the directory is not
  }
  ASSERT_TRUE(fs_.drop_unsynced().ok());
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "new"));
}

TEST_F(FaultFileSystemTest, PreexistingFilesCountAsDurable) {
  {
    auto f = disk_.open(dir_.path() / "old", OpenMode::kCreateNew).value();
    ASSERT_TRUE(f->pwrite(0, bytes_of("before")).ok());
  }
  {
    auto f = fs_.open(dir_.path() / "old", OpenMode::kOpenExisting).value();
    write(*f, 6, "after");
  }
  ASSERT_TRUE(fs_.drop_unsynced().ok());
  EXPECT_EQ(disk_size("old"), 6u);
}

TEST_F(FaultFileSystemTest, FailNthFailsExactlyThatCall) {
  auto f = fs_.open(dir_.path() / "x", OpenMode::kCreateNew).value();
  fs_.fail_nth(2);
  EXPECT_TRUE(f->pwrite(0, bytes_of("1")).ok());
  auto st = f->pwrite(1, bytes_of("2"));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), Errc::kIoError);
  EXPECT_TRUE(f->pwrite(1, bytes_of("3")).ok());
  EXPECT_EQ(fs_.injected_failures(), 1u);
  EXPECT_EQ(disk_size("x"), 2u);
}

TEST_F(FaultFileSystemTest, FailFromFailsEveryLaterCallIncludingAsync) {
  auto f = fs_.open(dir_.path() / "y", OpenMode::kCreateNew).value();
  fs_.fail_from(1);
  EXPECT_FALSE(f->pwrite(0, bytes_of("1")).ok());
  std::optional<Status> st;
  f->sync([&](Status s) { st = std::move(s); });
  EXPECT_FALSE(st.has_value());  // completions never run inside the call
  loop_.run_until([&] { return st.has_value(); });
  EXPECT_FALSE(st->ok());
  fs_.clear_faults();
  EXPECT_TRUE(sync(*f).ok());
}

}  // namespace
}  // namespace strata::io
