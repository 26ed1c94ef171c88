// Frames of the broker-to-broker RPC (proto/replication/replication.proto):
// a 4-byte big-endian length, then one serialized Request or Response.
//
//   auto bytes = encode_frame(request);                 // length included
//   auto n = frame_length(header4, kMaxRequestFrame);   // kCorruption if too long
//   auto req = decode_message<rpc::Request>(body);      // kCorruption if it does not parse
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <google/protobuf/message_lite.h>

#include "base/result.h"
#include "base/shared_bytes.h"

namespace strata::replication {

inline constexpr uint32_t kMaxRequestFrame = 1 << 20;    // a follower's request
inline constexpr uint32_t kMaxResponseFrame = 64 << 20;  // a leader's answer, records included
inline constexpr size_t kFrameHeaderBytes = 4;

SharedBytes encode_frame(const google::protobuf::MessageLite& message);

// The body length a frame header announces, if within `max`.
Result<uint32_t> frame_length(std::span<const std::byte, kFrameHeaderBytes> header, uint32_t max);

template <typename Message>
Result<Message> decode_message(std::span<const std::byte> body) {
  Message m;
  if (!m.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return Error(Errc::kCorruption, "an RPC frame that does not parse as " + m.GetTypeName());
  }
  return m;
}

}  // namespace strata::replication
