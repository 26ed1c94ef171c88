#include "coordinator/producer_ids.h"

#include <set>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "coordinator/embedded_store.h"

namespace strata::coordinator {
namespace {

TEST(ProducerIdsTest, TwoBrokersNeverHandOutTheSameIdAndARestartNeverReusesOne) {
  strata::testing::TempDir dir;
  auto path = dir.path() / "meta.json";
  std::set<int64_t> seen;
  {
    auto store = EmbeddedStore::open(path).value();
    ProducerIds a(*store);
    ProducerIds b(*store);
    // Interleaved, and past a block's end on both.
    for (int64_t i = 0; i < ProducerIds::kBlockSize + 10; ++i) {
      for (auto* ids : {&a, &b}) {
        auto id = ids->next();
        ASSERT_TRUE(id.ok()) << id.error().to_string();
        EXPECT_GE(*id, 0);
        EXPECT_TRUE(seen.insert(*id).second) << "id " << *id << " handed out twice";
      }
    }
  }
  // The store reopened (every broker restarted): new ids only.
  auto store = EmbeddedStore::open(path).value();
  ProducerIds again(*store);
  auto id = again.next();
  ASSERT_TRUE(id.ok());
  EXPECT_GT(*id, *seen.rbegin());
}

TEST(ProducerIdsTest, AStoredValueThatIsNotAnIdIsAnErrorNotAReset) {
  strata::testing::TempDir dir;
  auto store = EmbeddedStore::open(dir.path() / "meta.json").value();
  ASSERT_TRUE(store->put(std::string(kProducerIdsKey), "banana", MetadataStore::kAny).ok());
  ProducerIds ids(*store);
  auto id = ids.next();
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.error().code(), Errc::kCorruption);
  EXPECT_EQ(store->get(std::string(kProducerIdsKey)).value()->value, "banana");
}

}  // namespace
}  // namespace strata::coordinator
