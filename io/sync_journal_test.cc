#include "io/sync_journal.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "io/disk_file_system.h"
#include "io/testing/loop.h"

namespace strata::io {
namespace {

class SyncJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    journal_ = SyncJournal::open(journal_path()).value();
    fs_ = std::make_unique<SyncJournalFileSystem>(disk_, *journal_);
  }
  std::filesystem::path journal_path() { return dir_.path() / "journal"; }
  std::vector<std::string> lines() {
    std::ifstream in(journal_path());
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
      out.push_back(line);
    return out;
  }
  void write(File& f, uint64_t pos, std::string data) {
    std::vector<iovec> iov = {{data.data(), data.size()}};
    bool done = false;
    f.write_at(pos, iov, [&](Result<size_t> r) {
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      done = true;
    });
    loop_.run_until([&] { return done; });
  }

  strata::testing::TempDir dir_;
  strata::testing::Loop loop_;
  DiskFileSystem disk_{&loop_.ring()};
  std::unique_ptr<SyncJournal> journal_;
  std::unique_ptr<SyncJournalFileSystem> fs_;
};

TEST_F(SyncJournalTest, ASyncIsJournaledWithTheSizeItCoversBeforeItsCompletionRuns) {
  auto seg = dir_.path() / "seg";
  auto dir = fs_->open_dir(dir_.path()).value();
  auto f = fs_->open(seg, OpenMode::kCreateNew).value();
  write(*f, 0, "0123456789");
  std::vector<std::string> seen_at_completion;
  bool done = false;
  f->sync([&](Status st) {
    ASSERT_TRUE(st.ok());
    seen_at_completion = lines();
    done = true;
  });
  loop_.run_until([&] { return done; });
  // Written after the sync was issued: not covered by it.
  write(*f, 10, "abc");
  done = false;
  dir->sync([&](Status st) {
    ASSERT_TRUE(st.ok());
    done = true;
  });
  loop_.run_until([&] { return done; });
  ASSERT_TRUE(f->truncate(4).ok());

  std::vector<std::string> want = {"create " + seg.string(), "sync " + seg.string() + " 10"};
  EXPECT_EQ(seen_at_completion, want);
  want.push_back("dirsync " + dir_.path().string());
  want.push_back("truncate " + seg.string() + " 4");
  EXPECT_EQ(lines(), want);
}

TEST_F(SyncJournalTest, ExistingFilesRenamesAndRemovalsAreJournaled) {
  auto a = dir_.path() / "a";
  auto b = dir_.path() / "b";
  { std::ofstream(a) << "existing"; }
  {
    auto f = fs_->open(a, OpenMode::kOpenOrCreate).value();
    ASSERT_TRUE(f->sync_now().ok());
  }
  ASSERT_TRUE(fs_->rename(a, b).ok());
  ASSERT_TRUE(fs_->remove(b).ok());
  // A failed call journals nothing.
  EXPECT_FALSE(fs_->remove(b).ok());
  EXPECT_FALSE(fs_->open(a, OpenMode::kOpenExisting).ok());
  std::vector<std::string> want = {"open " + a.string() + " 8", "sync " + a.string() + " 8",
                                   "rename " + a.string() + " " + b.string(),
                                   "remove " + b.string()};
  EXPECT_EQ(lines(), want);
}

TEST_F(SyncJournalTest, ReopeningAppendsToTheJournal) {
  auto f = fs_->open(dir_.path() / "x", OpenMode::kCreateNew).value();
  fs_.reset();
  journal_ = SyncJournal::open(journal_path()).value();
  journal_->record("line");
  EXPECT_EQ(lines().size(), 2u);
  EXPECT_EQ(lines().back(), "line");
}

}  // namespace
}  // namespace strata::io
