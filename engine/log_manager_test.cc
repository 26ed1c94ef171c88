#include "engine/log_manager.h"

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "engine/batch_builder.h"
#include "io/disk_file_system.h"
#include "io/testing/loop.h"

namespace strata::engine {
namespace {

class LogManagerTest : public ::testing::Test {
 protected:
  std::unique_ptr<LogManager> open_manager() {
    return LogManager::open({.data_dir = dir_.path() / "data", .clock = &clock_, .fs = &fs_})
        .value();
  }

  std::unique_ptr<Log> open_log(LogManager& m) {
    return m
        .open_log(PartitionUid(1), m.partition_dir("orders", PartitionId(3)), TopicConfig{}, fs_,
                  loop_.io())
        .value();
  }

  void append_one(Log& log) {
    BatchBuilder b;
    b.add({.key = "k", .value = "v", .timestamp = 1});
    bool done = false;
    ASSERT_TRUE(log.append(SharedBytes::copy_of(b.build().value()), {},
                           [&](auto r) {
                             EXPECT_TRUE(r.ok());
                             done = true;
                           })
                    .ok());
    loop_.run_until([&] { return done; });
  }

  void close(Log& log) {
    std::optional<Status> st;
    log.close([&](Status s) { st = s; });
    loop_.run_until([&] { return st.has_value(); });
    ASSERT_TRUE(st->ok());
  }

  strata::testing::TempDir dir_;
  strata::testing::Loop loop_;
  io::DiskFileSystem fs_{&loop_.ring()};
  ManualClock clock_;
};

TEST_F(LogManagerTest, CleanShutdownMarkerSkipsRecoveryOnce) {
  {
    auto m = open_manager();
    EXPECT_FALSE(m->clean_start());
    auto log = open_log(*m);
    EXPECT_EQ(log->log_end_offset(), Offset(0));
    EXPECT_TRUE(
        std::filesystem::exists(dir_.path() / "data" / "orders-3" / "00000000000000000000.log"));
    append_one(*log);
    append_one(*log);
    close(*log);
    ASSERT_TRUE(m->mark_clean_shutdown().ok());
  }
  EXPECT_TRUE(std::filesystem::exists(dir_.path() / "data" / kCleanShutdownFile));
  {
    auto m = open_manager();
    EXPECT_TRUE(m->clean_start());
    // Consumed at open: a crash from here on is not mistaken for a clean stop.
    EXPECT_FALSE(std::filesystem::exists(dir_.path() / "data" / kCleanShutdownFile));
    auto log = open_log(*m);
    EXPECT_FALSE(log->recovery().scanned);
    EXPECT_EQ(log->log_end_offset(), Offset(2));
    append_one(*log);
    // No clean close: the process "dies".
  }
  {
    auto m = open_manager();
    EXPECT_FALSE(m->clean_start());
    auto log = open_log(*m);
    EXPECT_TRUE(log->recovery().scanned);
    EXPECT_EQ(log->log_end_offset(), Offset(3));
  }
}

TEST_F(LogManagerTest, ADataDirectoryHasOneOwner) {
  auto first = open_manager();
  auto second = LogManager::open({.data_dir = dir_.path() / "data", .clock = &clock_, .fs = &fs_});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code(), Errc::kAlreadyExists);
  EXPECT_NE(second.error().message().find("in use"), std::string::npos);
}

TEST_F(LogManagerTest, RemoveLogDeletesFilesAndIndex) {
  auto m = open_manager();
  auto log = open_log(*m);
  append_one(*log);
  close(*log);
  log.reset();
  auto dir = m->partition_dir("orders", PartitionId(3));
  ASSERT_TRUE(m->remove_log(PartitionUid(1), dir).ok());
  // The name is free at once: the directory left it before the removal.
  EXPECT_FALSE(std::filesystem::exists(dir));
  m->wait_for_removals();
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(m->data_dir()),
                          std::filesystem::directory_iterator()),
            2)  // the index and the lock file
      << "the renamed directory is still there";
  EXPECT_TRUE(m->index().offset_entries(PartitionUid(1)).value().empty());
  // The same name can be created again, empty.
  auto again = open_log(*m);
  EXPECT_EQ(again->log_end_offset(), Offset(0));
}

TEST_F(LogManagerTest, ARemovalCutShortIsFinishedByTheNextOpen) {
  auto dir = dir_.path() / "data" / "orders-3";
  auto retired = dir_.path() / "data" / "orders-3.0000000000000001-delete";
  {
    auto m = open_manager();
    auto log = open_log(*m);
    append_one(*log);
    close(*log);
    log.reset();
    // What remove_log does first, and then a crash.
    std::filesystem::rename(dir, retired);
    ASSERT_FALSE(m->index().offset_entries(PartitionUid(1)).value().empty());
  }
  auto m = open_manager();
  m->wait_for_removals();
  EXPECT_FALSE(std::filesystem::exists(retired));
  EXPECT_TRUE(m->index().offset_entries(PartitionUid(1)).value().empty());
}

TEST(LogManagerNames, OnlyRemovalNamesAreRemovalsAndTheyCarryTheirUids) {
  EXPECT_EQ(LogManager::removal_uid("orders-3.0000000100000003-delete"), PartitionUid(0x100000003));
  EXPECT_EQ(LogManager::removal_uid("a.b-c-0.00000000000000ff-delete"), PartitionUid(0xff));
  EXPECT_FALSE(LogManager::removal_uid("orders-3"));
  EXPECT_FALSE(LogManager::removal_uid("orders-delete"));
  EXPECT_FALSE(LogManager::removal_uid("orders-3.00000001000000zz-delete"));
  EXPECT_FALSE(LogManager::removal_uid("orders-3-0000000100000003-delete"));
  EXPECT_FALSE(LogManager::removal_uid("index"));
}

}  // namespace
}  // namespace strata::engine
