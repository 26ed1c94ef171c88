#include "coordinator/txn/txn_records.h"

#include <gtest/gtest.h>

#include "base/big_endian.h"

namespace strata::coordinator {
namespace {

TEST(TxnRecordsTest, KeysAndValuesRoundTripInKafkasV0Layout) {
  auto key = encode_txn_key("orders-app");
  // version 0, then the id with an int16 length.
  ASSERT_EQ(key.size(), 2u + 2u + 10u);
  EXPECT_EQ(be::load<int16_t>(key.data()), 0);
  EXPECT_EQ(be::load<int16_t>(key.data() + 2), 10);
  EXPECT_EQ(decode_txn_key(key).value(), "orders-app");

  TxnMetadata m;
  m.producer_id = 4001;
  m.producer_epoch = 7;
  m.timeout_ms = 60000;
  m.state = TxnState::kOngoing;
  m.partitions = {{"in", 0}, {"out", 2}, {"out", 5}, {"__consumer_offsets", 13}};
  m.last_update_ms = 1700000000123;
  m.start_ms = 1700000000000;
  auto value = encode_txn_value(m);
  // version, id, epoch, timeout, state, 3 topics: 2+8+2+4+1+4 then topics,
  // then two timestamps.
  size_t topics = (2 + 18 + 4 + 4) + (2 + 2 + 4 + 4) + (2 + 3 + 4 + 8);
  EXPECT_EQ(value.size(), 21u + topics + 16u);
  EXPECT_EQ(static_cast<int8_t>(value[16]), 1);  // Ongoing
  EXPECT_EQ(decode_txn_value(value).value(), m);

  TxnMetadata empty;
  empty.producer_id = 9;
  empty.producer_epoch = 0;
  EXPECT_EQ(decode_txn_value(encode_txn_value(empty)).value(), empty);
}

TEST(TxnRecordsTest, MalformedRecordsAreCorruptionNotGuesses) {
  TxnMetadata m;
  m.producer_id = 1;
  m.producer_epoch = 0;
  m.partitions = {{"t", 0}};
  auto value = encode_txn_value(m);
  for (size_t cut = 0; cut < value.size(); ++cut) {
    auto r = decode_txn_value(std::span(value).first(cut));
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_EQ(r.error().code(), Errc::kCorruption);
  }
  auto longer = value;
  longer.push_back(std::byte{0});
  EXPECT_FALSE(decode_txn_value(longer).ok());
  auto v1 = value;
  v1[1] = std::byte{1};  // a version Strata does not write
  EXPECT_FALSE(decode_txn_value(v1).ok());
  auto state = value;
  state[16] = std::byte{9};
  EXPECT_FALSE(decode_txn_value(state).ok());
  auto key = encode_txn_key("x");
  key[1] = std::byte{1};
  EXPECT_FALSE(decode_txn_key(key).ok());
}

TEST(TxnRecordsTest, AnIdMapsToThePartitionKafkaWouldUse) {
  // abs(Java "".hashCode()) % 50 = 0; "a".hashCode() = 97 → 47.
  EXPECT_EQ(txn_partition_for(""), 0);
  EXPECT_EQ(txn_partition_for("a"), 47);
  // Java's hash of this one is Integer.MIN_VALUE, whose Kafka abs is 0.
  EXPECT_EQ(txn_partition_for("polygenelubricants"), 0);
  for (auto id : {"orders", "payments-1", "zz"}) {
    int32_t p = txn_partition_for(id);
    EXPECT_GE(p, 0);
    EXPECT_LT(p, kTransactionStatePartitions);
  }
  EXPECT_EQ(state_name(TxnState::kPrepareEpochFence), "PrepareEpochFence");
}

}  // namespace
}  // namespace strata::coordinator
