#include "replication/rpc_frame.h"

#include <fmt/format.h>

#include "base/big_endian.h"

namespace strata::replication {

SharedBytes encode_frame(const google::protobuf::MessageLite& message) {
  size_t size = message.ByteSizeLong();
  auto out = SharedBytes::allocate(kFrameHeaderBytes + size);
  be::store<uint32_t>(out.data(), static_cast<uint32_t>(size));
  message.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(out.data()) +
                                          kFrameHeaderBytes);
  return out;
}

Result<uint32_t> frame_length(std::span<const std::byte, kFrameHeaderBytes> header, uint32_t max) {
  uint32_t n = be::load<uint32_t>(header.data());
  if (n > max) {
    return Error(Errc::kCorruption,
                 fmt::format("an RPC frame of {} bytes, above the {} allowed", n, max));
  }
  return n;
}

}  // namespace strata::replication
