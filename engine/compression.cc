#include "engine/compression.h"

#include <array>
#include <cstring>

#include <fmt/format.h>
#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include "base/big_endian.h"

namespace strata::engine {
namespace {

constexpr std::array<uint8_t, 8> kXerialMagic = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kXerialHeader = 16;  // magic, version i32, compatible version i32
constexpr size_t kXerialBlock = 32 * 1024;

Error bad(std::string_view codec, std::string_view what) {
  return Error(Errc::kInvalidRecord, fmt::format("{} data: {}", codec, what));
}

Error too_big(std::string_view codec, size_t max_output) {
  return Error(Errc::kInvalidRecord,
               fmt::format("{} data expands beyond {} bytes", codec, max_output));
}

Result<std::vector<std::byte>> gunzip(std::span<const std::byte> in, size_t max_output) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return bad("gzip", "inflateInit2 failed");
  std::vector<std::byte> out;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (out.size() >= max_output) {
      inflateEnd(&zs);
      return too_big("gzip", max_output);
    }
    size_t old = out.size();
    size_t grow = std::min(max_output - old, std::max<size_t>(4096, in.size() * 2));
    out.resize(old + grow);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + old);
    zs.avail_out = static_cast<uInt>(grow);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(old + grow - zs.avail_out);
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && !(rc == Z_BUF_ERROR && zs.avail_out == 0)) {
      inflateEnd(&zs);
      return bad("gzip", zs.msg != nullptr ? zs.msg : "inflate failed");
    }
    if (zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      return bad("gzip", "stream ends early");
    }
  }
  inflateEnd(&zs);
  return out;
}

Result<std::vector<std::byte>> gzip(std::span<const std::byte> in, int level) {
  z_stream zs{};
  if (level == kDefaultCompressionLevel) level = Z_DEFAULT_COMPRESSION;
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Error(Errc::kInternal, "deflateInit2 failed");
  }
  std::vector<std::byte> out(deflateBound(&zs, static_cast<uLong>(in.size())) + 32);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Error(Errc::kInternal, "deflate failed");
  out.resize(zs.total_out);
  return out;
}

Status unsnappy_raw(std::span<const std::byte> in, size_t max_output, std::vector<std::byte>& out) {
  size_t n = 0;
  const char* src = reinterpret_cast<const char*>(in.data());
  if (!snappy::GetUncompressedLength(src, in.size(), &n)) return bad("snappy", "bad header");
  if (out.size() + n > max_output) return too_big("snappy", max_output);
  size_t old = out.size();
  out.resize(old + n);
  if (!snappy::RawUncompress(src, in.size(), reinterpret_cast<char*>(out.data() + old))) {
    return bad("snappy", "corrupt block");
  }
  return ok_status();
}

Result<std::vector<std::byte>> unsnappy(std::span<const std::byte> in, size_t max_output) {
  std::vector<std::byte> out;
  if (in.size() >= kXerialHeader && std::memcmp(in.data(), kXerialMagic.data(), 8) == 0) {
    size_t pos = kXerialHeader;
    while (pos < in.size()) {
      if (in.size() - pos < 4) return bad("snappy", "truncated xerial block length");
      auto len = be::load<int32_t>(in.data() + pos);
      pos += 4;
      if (len < 0 || static_cast<size_t>(len) > in.size() - pos) {
        return bad("snappy", "xerial block overruns the data");
      }
      STRATA_TRY(unsnappy_raw(in.subspan(pos, static_cast<size_t>(len)), max_output, out));
      pos += static_cast<size_t>(len);
    }
    return out;
  }
  STRATA_TRY(unsnappy_raw(in, max_output, out));
  return out;
}

Result<std::vector<std::byte>> snappy_xerial(std::span<const std::byte> in) {
  std::vector<std::byte> out(kXerialHeader);
  std::memcpy(out.data(), kXerialMagic.data(), 8);
  be::store<int32_t>(out.data() + 8, 1);
  be::store<int32_t>(out.data() + 12, 1);
  for (size_t pos = 0; pos < in.size(); pos += kXerialBlock) {
    size_t n = std::min(kXerialBlock, in.size() - pos);
    std::string block;
    snappy::Compress(reinterpret_cast<const char*>(in.data() + pos), n, &block);
    size_t old = out.size();
    out.resize(old + 4 + block.size());
    be::store<int32_t>(out.data() + old, static_cast<int32_t>(block.size()));
    std::memcpy(out.data() + old + 4, block.data(), block.size());
  }
  return out;
}

Result<std::vector<std::byte>> unlz4(std::span<const std::byte> in, size_t max_output) {
  LZ4F_dctx* dctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION))) {
    return Error(Errc::kInternal, "LZ4F_createDecompressionContext failed");
  }
  std::vector<std::byte> out;
  size_t pos = 0;
  size_t hint = 1;
  while (pos < in.size() && hint != 0) {
    if (out.size() >= max_output) {
      LZ4F_freeDecompressionContext(dctx);
      return too_big("lz4", max_output);
    }
    size_t old = out.size();
    size_t room = std::min(max_output - old, std::max<size_t>(65536, in.size() * 2));
    out.resize(old + room);
    size_t dst_size = room;
    size_t src_size = in.size() - pos;
    hint = LZ4F_decompress(dctx, out.data() + old, &dst_size, in.data() + pos, &src_size, nullptr);
    if (LZ4F_isError(hint)) {
      std::string msg = LZ4F_getErrorName(hint);
      LZ4F_freeDecompressionContext(dctx);
      return bad("lz4", msg);
    }
    pos += src_size;
    out.resize(old + dst_size);
    if (src_size == 0 && dst_size == 0) break;
  }
  LZ4F_freeDecompressionContext(dctx);
  if (hint != 0) return bad("lz4", "frame ends early");
  return out;
}

Result<std::vector<std::byte>> lz4(std::span<const std::byte> in, int level) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  if (level != kDefaultCompressionLevel) prefs.compressionLevel = level;
  std::vector<std::byte> out(LZ4F_compressFrameBound(in.size(), &prefs));
  size_t n = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs);
  if (LZ4F_isError(n)) return Error(Errc::kInternal, LZ4F_getErrorName(n));
  out.resize(n);
  return out;
}

Result<std::vector<std::byte>> unzstd(std::span<const std::byte> in, size_t max_output) {
  ZSTD_DStream* ds = ZSTD_createDStream();
  if (ds == nullptr) return Error(Errc::kInternal, "ZSTD_createDStream failed");
  std::vector<std::byte> out;
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  size_t rc = 1;
  while (input.pos < input.size || rc != 0) {
    if (out.size() >= max_output) {
      ZSTD_freeDStream(ds);
      return too_big("zstd", max_output);
    }
    size_t old = out.size();
    size_t room = std::min(max_output - old, std::max<size_t>(65536, in.size() * 2));
    out.resize(old + room);
    ZSTD_outBuffer output{out.data() + old, room, 0};
    rc = ZSTD_decompressStream(ds, &output, &input);
    out.resize(old + output.pos);
    if (ZSTD_isError(rc)) {
      std::string msg = ZSTD_getErrorName(rc);
      ZSTD_freeDStream(ds);
      return bad("zstd", msg);
    }
    if (input.pos == input.size && output.pos < room && rc != 0) {
      ZSTD_freeDStream(ds);
      return bad("zstd", "frame ends early");
    }
  }
  ZSTD_freeDStream(ds);
  return out;
}

Result<std::vector<std::byte>> zstd(std::span<const std::byte> in, int level) {
  if (level == kDefaultCompressionLevel) level = 3;
  std::vector<std::byte> out(ZSTD_compressBound(in.size()));
  size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level);
  if (ZSTD_isError(n)) return Error(Errc::kInternal, ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

}  // namespace

Result<std::vector<std::byte>> decompress(Compression codec, std::span<const std::byte> input,
                                          size_t max_output) {
  switch (codec) {
    case Compression::kNone: {
      if (input.size() > max_output) return too_big("uncompressed", max_output);
      return std::vector<std::byte>(input.begin(), input.end());
    }
    case Compression::kGzip: return gunzip(input, max_output);
    case Compression::kSnappy: return unsnappy(input, max_output);
    case Compression::kLz4: return unlz4(input, max_output);
    case Compression::kZstd: return unzstd(input, max_output);
  }
  return Error(Errc::kInvalidRecord, fmt::format("unknown codec {}", static_cast<int>(codec)));
}

Result<std::vector<std::byte>> compress(Compression codec, std::span<const std::byte> input,
                                        int level) {
  switch (codec) {
    case Compression::kNone: return std::vector<std::byte>(input.begin(), input.end());
    case Compression::kGzip: return gzip(input, level);
    case Compression::kSnappy: return snappy_xerial(input);
    case Compression::kLz4: return lz4(input, level);
    case Compression::kZstd: return zstd(input, level);
  }
  return Error(Errc::kInvalidArgument, fmt::format("unknown codec {}", static_cast<int>(codec)));
}

std::string_view compression_name(Compression codec) {
  switch (codec) {
    case Compression::kNone: return "none";
    case Compression::kGzip: return "gzip";
    case Compression::kSnappy: return "snappy";
    case Compression::kLz4: return "lz4";
    case Compression::kZstd: return "zstd";
  }
  return "unknown";
}

Result<std::span<const std::byte>> batch_records(std::span<const std::byte> batch,
                                                 const BatchHeader& h,
                                                 std::vector<std::byte>& scratch,
                                                 size_t max_output) {
  std::span<const std::byte> records = batch.subspan(kBatchHeaderSize);
  if (h.compression() == Compression::kNone) return records;
  STRATA_ASSIGN_OR_RETURN(scratch, decompress(h.compression(), records, max_output));
  return std::span<const std::byte>(scratch);
}

}  // namespace strata::engine
