#include "engine/control_record.h"

#include <gtest/gtest.h>

#include "base/big_endian.h"
#include "engine/batch_builder.h"
#include "engine/record_batch.h"

namespace strata::engine {
namespace {

TEST(ControlRecordTest, AMarkerBatchReadsBackAsTheMarkerItWasBuiltFrom) {
  for (bool commit : {true, false}) {
    TxnMarker m{.producer_id = 42, .producer_epoch = 3, .coordinator_epoch = 7, .commit = commit};
    auto bytes = build_marker_batch(m, 1000);
    auto h = validate_batch(bytes, BatchLimits{.allow_control = true});
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    EXPECT_TRUE(h->control());
    EXPECT_TRUE(h->transactional());
    EXPECT_EQ(h->producer_id, 42);
    EXPECT_EQ(h->producer_epoch, 3);
    EXPECT_EQ(h->base_sequence, -1);
    EXPECT_EQ(h->records_count, 1);
    auto back = read_marker(bytes);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    ASSERT_TRUE(back->has_value());
    EXPECT_EQ(**back, m);
    // Clients may not write one.
    EXPECT_EQ(validate_batch(bytes, BatchLimits{}).error().code(), Errc::kControlBatchRejected);
  }
}

TEST(ControlRecordTest, OtherControlTypesAreNotMarkersAndDataBatchesAreRefused) {
  auto control = [](int16_t type) {
    BatchBuilder b({.producer_id = 1, .producer_epoch = 0, .transactional = true, .control = true});
    std::string key(4, '\0');
    be::store<int16_t>(reinterpret_cast<std::byte*>(key.data() + 2), type);
    b.add({.key = key, .value = std::string(6, '\0'), .timestamp = 1});
    return b.build().value();
  };
  auto leader_change = read_marker(control(2));
  ASSERT_TRUE(leader_change.ok());
  EXPECT_FALSE(leader_change->has_value());

  BatchBuilder data({.producer_id = 1, .producer_epoch = 0});
  data.add({.key = "k", .value = "v", .timestamp = 1});
  EXPECT_EQ(read_marker(data.build().value()).error().code(), Errc::kInvalidRecord);

  BatchBuilder short_key({.producer_id = 1, .producer_epoch = 0, .control = true});
  short_key.add({.key = "ab", .value = std::string(6, '\0'), .timestamp = 1});
  EXPECT_EQ(read_marker(short_key.build().value()).error().code(), Errc::kInvalidRecord);
  auto tiny = std::vector<std::byte>(10);
  EXPECT_EQ(read_marker(tiny).error().code(), Errc::kInvalidRecord);
}

}  // namespace
}  // namespace strata::engine
