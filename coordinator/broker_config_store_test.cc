#include "coordinator/broker_config_store.h"

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "coordinator/embedded_store.h"

namespace strata::coordinator {
namespace {

TEST(BrokerConfigStore, ScopesAreKeptApartAndSurviveAReopen) {
  strata::testing::TempDir dir;
  {
    auto meta = EmbeddedStore::open(dir / "meta.json").value();
    auto store = BrokerConfigStore::open(*meta).value();
    EXPECT_TRUE(store->snapshot()->cluster_default.empty());
    auto before = store->snapshot();
    ASSERT_TRUE(store->set(BrokerScope::cluster_default(), {{"log.retention.ms", "1000"}}).ok());
    ASSERT_TRUE(store->set(BrokerScope::broker(3), {{"message.max.bytes", "2048"}}).ok());
    // A snapshot once taken does not change.
    EXPECT_TRUE(before->cluster_default.empty());
    auto now = store->snapshot();
    EXPECT_EQ(now->of(BrokerScope::cluster_default()), (ConfigMap{{"log.retention.ms", "1000"}}));
    EXPECT_EQ(now->of(BrokerScope::broker(3)), (ConfigMap{{"message.max.bytes", "2048"}}));
    EXPECT_TRUE(now->of(BrokerScope::broker(4)).empty());
    // One record per scope in the metadata store.
    EXPECT_TRUE(meta->get("/strata/config/brokers/<default>").value().has_value());
    EXPECT_TRUE(meta->get("/strata/config/brokers/3").value().has_value());
  }
  auto meta = EmbeddedStore::open(dir / "meta.json").value();
  auto store = BrokerConfigStore::open(*meta).value();
  auto now = store->snapshot();
  EXPECT_EQ(now->cluster_default, (ConfigMap{{"log.retention.ms", "1000"}}));
  EXPECT_EQ(now->of(BrokerScope::broker(3)), (ConfigMap{{"message.max.bytes", "2048"}}));
  // Emptying a scope removes its record.
  ASSERT_TRUE(store->set(BrokerScope::broker(3), {}).ok());
  EXPECT_FALSE(meta->get("/strata/config/brokers/3").value().has_value());
  EXPECT_TRUE(store->snapshot()->per_broker.empty());
  ASSERT_TRUE(store->set(BrokerScope::broker(3), {}).ok());  // nothing to remove: fine
}

TEST(BrokerConfigStore, ACorruptRecordIsAnError) {
  strata::testing::TempDir dir;
  auto meta = EmbeddedStore::open(dir / "meta.json").value();
  ASSERT_TRUE(meta->put("/strata/config/brokers/x", "{}", MetadataStore::kAny).ok());
  auto store = BrokerConfigStore::open(*meta);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code(), Errc::kCorruption);
}

}  // namespace
}  // namespace strata::coordinator
