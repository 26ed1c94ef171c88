#include "replication/rpc_frame.h"

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "base/big_endian.h"
#include "replication/replication.pb.h"

namespace strata::replication {
namespace {

// The parts of a frame joined, as the receiver reads them.
std::vector<std::byte> joined(const std::vector<SharedBytes>& parts) {
  std::vector<std::byte> out;
  for (const auto& p : parts)
    out.insert(out.end(), p.data(), p.data() + p.size());
  return out;
}

SharedBytes bytes_of(std::string_view s) {
  return SharedBytes::copy_of(s);
}

std::string text_of(const SharedBytes& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

rpc::Response a_fetch_response() {
  rpc::Response resp;
  resp.set_correlation_id(7);
  auto* p = resp.mutable_fetch()->add_partitions();
  p->set_topic("t");
  p->set_attached_bytes(5);
  p = resp.mutable_fetch()->add_partitions();
  p->set_topic("t");
  p->set_partition(1);
  p->set_attached_bytes(3);
  return resp;
}

TEST(RpcFrameTest, AnAttachmentTravelsAfterTheMessageUncopiedAndComesBackAsAView) {
  auto first = bytes_of("hello");
  auto second = bytes_of("abc");
  auto frame = joined(encode_frame(a_fetch_response(), {first, SharedBytes(), second}));
  auto header = frame_header(std::span<const std::byte, kFrameHeaderBytes>(frame.data(), 4),
                             kMaxResponseFrame);
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  EXPECT_TRUE(header->attached);
  ASSERT_EQ(header->body_bytes, frame.size() - kFrameHeaderBytes);
  auto body = SharedBytes::copy_of(std::span<const std::byte>(frame).subspan(kFrameHeaderBytes));
  auto split = decode_attached<rpc::Response>(body);
  ASSERT_TRUE(split.ok()) << split.error().to_string();
  EXPECT_EQ(split->first.correlation_id(), 7u);
  EXPECT_EQ(split->first.fetch().partitions(1).attached_bytes(), 3);
  EXPECT_EQ(text_of(split->second), "helloabc");
  EXPECT_EQ(split->second.data() + split->second.size(), body.data() + body.size());  // a view
}

TEST(RpcFrameTest, AFrameWithoutAnAttachmentIsReadAsBefore) {
  auto frame = encode_frame(a_fetch_response());
  auto header = frame_header(std::span<const std::byte, kFrameHeaderBytes>(frame.data(), 4),
                             kMaxResponseFrame);
  ASSERT_TRUE(header.ok());
  EXPECT_FALSE(header->attached);
  EXPECT_EQ(header->body_bytes, frame.size() - kFrameHeaderBytes);
  auto n = frame_length(std::span<const std::byte, kFrameHeaderBytes>(frame.data(), 4),
                        kMaxRequestFrame);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, frame.size() - kFrameHeaderBytes);
}

TEST(RpcFrameTest, BadAttachedFramesAreRefused) {
  // A request frame may not carry an attachment.
  auto frame = joined(encode_frame(a_fetch_response(), {bytes_of("x")}));
  EXPECT_FALSE(
      frame_length(std::span<const std::byte, kFrameHeaderBytes>(frame.data(), 4), kMaxRequestFrame)
          .ok());
  // Over the limit, whatever the top bit.
  std::byte big[4];
  be::store<uint32_t>(big, (uint32_t{1} << 31) | (kMaxResponseFrame + 1));
  EXPECT_FALSE(
      frame_header(std::span<const std::byte, kFrameHeaderBytes>(big), kMaxResponseFrame).ok());
  // A body too short for its message length, or whose message length runs
  // past its end.
  EXPECT_FALSE(decode_attached<rpc::Response>(bytes_of("ab")).ok());
  std::byte lying[6];
  be::store<uint32_t>(lying, 3);
  std::memset(lying + 4, 0, 2);
  EXPECT_FALSE(decode_attached<rpc::Response>(SharedBytes::copy_of(lying)).ok());
  // A message that does not parse.
  std::byte garbage[6];
  be::store<uint32_t>(garbage, 2);
  garbage[4] = std::byte{0xff};
  garbage[5] = std::byte{0xff};
  EXPECT_FALSE(decode_attached<rpc::Response>(SharedBytes::copy_of(garbage)).ok());
}

}  // namespace
}  // namespace strata::replication
