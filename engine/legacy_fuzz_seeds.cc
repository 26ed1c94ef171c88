// Writes a seed corpus for legacy_records_fuzz: magic 0 and 1 message sets,
// plain and in wrappers of every legacy codec, with and without keys and
// values.
//
//   legacy_fuzz_seeds <dir>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/batch_builder.h"
#include "engine/legacy_records.h"

int main(int argc, char** argv) {
  using namespace strata;
  using namespace strata::engine;
  if (argc != 2) {
    std::fprintf(stderr, "usage: legacy_fuzz_seeds <dir>\n");
    return 2;
  }
  std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  int n = 0;
  for (auto codec :
       {Compression::kNone, Compression::kGzip, Compression::kSnappy, Compression::kLz4}) {
    for (int records : {1, 3, 17}) {
      BatchBuilder b({.compression = codec, .base_offset = Offset(40)});
      for (int i = 0; i < records; ++i) {
        RecordSpec r;
        if (i % 3 != 1) r.key = "key-" + std::to_string(i);
        if (i % 3 != 2) r.value = std::string(static_cast<size_t>(i * 7), 'v');
        r.timestamp = i % 4 == 3 ? -1 : 1000 + i;
        b.add(std::move(r));
      }
      auto batch = b.build().value();
      for (int8_t magic : {kMagicV0, kMagicV1}) {
        auto set = down_convert(batch, magic, Offset(0), 1 << 20).value();
        std::ofstream out(dir / ("set" + std::to_string(n++)), std::ios::binary);
        out.write(reinterpret_cast<const char*>(set.data()), static_cast<long>(set.size()));
      }
    }
  }
  return 0;
}
