// Frames of the broker-to-broker RPC (proto/replication/replication.proto):
// a 4-byte big-endian length, then one serialized Request or Response.
// A response may carry an attachment — bytes its fields describe (a fetch
// response's records) sent after the message without being copied into it:
// the length's top bit is set, and the body is a 4-byte big-endian message
// length, the message, then the attachment.
//
//   auto bytes = encode_frame(request);                 // length included
//   auto n = frame_length(header4, kMaxRequestFrame);   // kCorruption if too long
//   auto req = decode_message<rpc::Request>(body);      // kCorruption if it does not parse
//
//   auto parts = encode_frame(response, std::move(record_slices));  // written as one frame
//   auto h = frame_header(header4, kMaxResponseFrame);  // h->attached: split with
//   auto [resp, attachment] = decode_attached<rpc::Response>(body).value();
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <google/protobuf/message_lite.h>

#include "base/result.h"
#include "base/shared_bytes.h"

namespace strata::replication {

inline constexpr uint32_t kMaxRequestFrame = 1 << 20;    // a follower's request
inline constexpr uint32_t kMaxResponseFrame = 64 << 20;  // a leader's answer, records included
inline constexpr size_t kFrameHeaderBytes = 4;

SharedBytes encode_frame(const google::protobuf::MessageLite& message);
// A frame of `message` with `attachment` after it: the header and message
// in the first part, then the attachment's parts as they are.
std::vector<SharedBytes> encode_frame(const google::protobuf::MessageLite& message,
                                      std::vector<SharedBytes> attachment);

// The body length a frame header announces, if within `max` (a frame with
// an attachment is refused: only responses carry them).
Result<uint32_t> frame_length(std::span<const std::byte, kFrameHeaderBytes> header, uint32_t max);

struct FrameHeader {
  uint32_t body_bytes = 0;
  bool attached = false;  // the body is split: message length, message, attachment
};
// What a response frame's header announces, if its body is within `max`.
Result<FrameHeader> frame_header(std::span<const std::byte, kFrameHeaderBytes> header,
                                 uint32_t max);

// The message length an attached frame's body starts with, if the body holds it.
Result<size_t> attached_message_bytes(std::span<const std::byte> body);

template <typename Message>
Result<Message> decode_message(std::span<const std::byte> body) {
  Message m;
  if (!m.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return Error(Errc::kCorruption, "an RPC frame that does not parse as " + m.GetTypeName());
  }
  return m;
}

// An attached frame's body: its message, and a view of the attachment.
template <typename Message>
Result<std::pair<Message, SharedBytes>> decode_attached(const SharedBytes& body) {
  STRATA_ASSIGN_OR_RETURN(size_t n, attached_message_bytes(body.span()));
  STRATA_ASSIGN_OR_RETURN(Message m,
                          decode_message<Message>(body.span().subspan(kFrameHeaderBytes, n)));
  size_t after = kFrameHeaderBytes + n;
  return std::pair<Message, SharedBytes>(std::move(m), body.slice(after, body.size() - after));
}

}  // namespace strata::replication
