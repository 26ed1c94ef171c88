#include "replication/rpc_frame.h"

#include <fmt/format.h>

#include "base/big_endian.h"
#include "base/check.h"

namespace strata::replication {

SharedBytes encode_frame(const google::protobuf::MessageLite& message) {
  size_t size = message.ByteSizeLong();
  auto out = SharedBytes::allocate(kFrameHeaderBytes + size);
  be::store<uint32_t>(out.data(), static_cast<uint32_t>(size));
  message.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(out.data()) +
                                          kFrameHeaderBytes);
  return out;
}

namespace {
constexpr uint32_t kAttachedBit = uint32_t{1} << 31;
}  // namespace

std::vector<SharedBytes> encode_frame(const google::protobuf::MessageLite& message,
                                      std::vector<SharedBytes> attachment) {
  size_t size = message.ByteSizeLong();
  size_t attached = 0;
  for (const auto& a : attachment)
    attached += a.size();
  size_t body = kFrameHeaderBytes + size + attached;
  STRATA_CHECK(body < kAttachedBit, "an RPC frame of {} bytes", body);
  auto head = SharedBytes::allocate(2 * kFrameHeaderBytes + size);
  be::store<uint32_t>(head.data(), static_cast<uint32_t>(body) | kAttachedBit);
  be::store<uint32_t>(head.data() + kFrameHeaderBytes, static_cast<uint32_t>(size));
  message.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(head.data()) +
                                          2 * kFrameHeaderBytes);
  std::vector<SharedBytes> parts;
  parts.reserve(attachment.size() + 1);
  parts.push_back(std::move(head));
  for (auto& a : attachment) {
    if (!a.empty()) parts.push_back(std::move(a));
  }
  return parts;
}

Result<FrameHeader> frame_header(std::span<const std::byte, kFrameHeaderBytes> header,
                                 uint32_t max) {
  uint32_t word = be::load<uint32_t>(header.data());
  FrameHeader h{word & ~kAttachedBit, (word & kAttachedBit) != 0};
  if (h.body_bytes > max) {
    return Error(Errc::kCorruption,
                 fmt::format("an RPC frame of {} bytes, above the {} allowed", h.body_bytes, max));
  }
  return h;
}

Result<uint32_t> frame_length(std::span<const std::byte, kFrameHeaderBytes> header, uint32_t max) {
  STRATA_ASSIGN_OR_RETURN(FrameHeader h, frame_header(header, max));
  if (h.attached) return Error(Errc::kCorruption, "an RPC request frame with an attachment");
  return h.body_bytes;
}

Result<size_t> attached_message_bytes(std::span<const std::byte> body) {
  if (body.size() < kFrameHeaderBytes) {
    return Error(Errc::kCorruption, "an RPC frame with an attachment too short for its header");
  }
  size_t n = be::load<uint32_t>(body.data());
  if (n > body.size() - kFrameHeaderBytes) {
    return Error(Errc::kCorruption,
                 fmt::format("an RPC frame's message of {} bytes in a body of {}", n, body.size()));
  }
  return n;
}

}  // namespace strata::replication
