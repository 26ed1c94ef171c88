#include "coordinator/embedded_store.h"

#include <fstream>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"

namespace strata::coordinator {
namespace {

TEST(EmbeddedStore, PutGetListEraseWithVersions) {
  strata::testing::TempDir dir;
  auto store = EmbeddedStore::open(dir / "meta.json").value();
  EXPECT_FALSE(store->get("/a").value().has_value());
  EXPECT_EQ(store->put("/a/1", "x", MetadataStore::kAbsent).value(), 1);
  EXPECT_EQ(store->put("/a/2", "y", MetadataStore::kAny).value(), 1);
  EXPECT_EQ(store->put("/b", "z", MetadataStore::kAny).value(), 1);
  EXPECT_EQ(store->put("/a/1", "x2", 1).value(), 2);
  // Compare-and-set failures.
  EXPECT_EQ(store->put("/a/1", "no", MetadataStore::kAbsent).error().code(), Errc::kAlreadyExists);
  EXPECT_EQ(store->put("/a/1", "no", 1).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(store->put("/c", "no", 3).error().code(), Errc::kNotFound);
  auto listed = store->list("/a/").value();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].value, "x2");
  EXPECT_EQ(listed[0].version, 2);
  ASSERT_TRUE(store->erase("/a/2", MetadataStore::kAny).ok());
  EXPECT_EQ(store->erase("/a/2", MetadataStore::kAny).code(), Errc::kNotFound);
}

TEST(EmbeddedStore, SurvivesReopenAndRefusesACorruptFile) {
  strata::testing::TempDir dir;
  {
    auto store = EmbeddedStore::open(dir / "meta.json").value();
    ASSERT_TRUE(store->put("/k", "v", MetadataStore::kAny).ok());
    ASSERT_TRUE(store->put("/k", "w", MetadataStore::kAny).ok());
  }
  {
    auto store = EmbeddedStore::open(dir / "meta.json").value();
    auto e = store->get("/k").value();
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->value, "w");
    EXPECT_EQ(e->version, 2);
  }
  std::ofstream(dir / "meta.json") << "{ not json";
  auto bad = EmbeddedStore::open(dir / "meta.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), Errc::kCorruption);
}

}  // namespace
}  // namespace strata::coordinator
