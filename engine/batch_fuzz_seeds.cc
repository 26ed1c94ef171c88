// Writes a seed corpus for record_batch_fuzz: valid batches in every codec,
// with and without keys, values and headers.
//
//   batch_fuzz_seeds <dir>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/batch_builder.h"

int main(int argc, char** argv) {
  using namespace strata::engine;
  if (argc != 2) {
    std::fprintf(stderr, "usage: batch_fuzz_seeds <dir>\n");
    return 2;
  }
  std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  int n = 0;
  for (auto codec : {Compression::kNone, Compression::kGzip, Compression::kSnappy,
                     Compression::kLz4, Compression::kZstd}) {
    for (int records : {1, 3, 17}) {
      BatchBuilder b({.compression = codec});
      for (int i = 0; i < records; ++i) {
        RecordSpec r;
        if (i % 3 != 1) r.key = "key-" + std::to_string(i);
        if (i % 3 != 2) r.value = std::string(static_cast<size_t>(i * 7), 'v');
        r.timestamp = 1000 + i * (i % 2 ? -1 : 1);
        if (i % 2) r.headers = {{"h", "x"}, {"n", std::nullopt}};
        b.add(std::move(r));
      }
      auto bytes = b.build().value();
      std::ofstream out(dir / ("batch" + std::to_string(n++)), std::ios::binary);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
    }
  }
  return 0;
}
