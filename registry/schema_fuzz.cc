// libFuzzer target: the schema formats on arbitrary bytes. The first byte
// picks the format; the rest, split at the first 0xFF byte, is a reader and
// a writer schema (a reference named "ref" gets the writer's text too).
// Neither parsing nor comparing may crash, hang or leak, whatever comes —
// the registry runs them on a broker's shard.
#include <cstddef>
#include <cstdint>
#include <string>

#include "registry/schema_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata::registry;
  if (size < 1) return 0;
  static const auto formats = [] {
    std::vector<std::unique_ptr<SchemaFormat>> f;
    f.push_back(make_format(SchemaType::kAvro));
    f.push_back(make_format(SchemaType::kProtobuf));
    f.push_back(make_format(SchemaType::kJson));
    return f;
  }();
  const SchemaFormat& format = *formats[data[0] % 3];
  std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  auto cut = rest.find('\xff');
  std::string reader = rest.substr(0, cut);
  std::string writer = cut == std::string::npos ? reader : rest.substr(cut + 1);
  SchemaText r{reader, {{"ref", writer}}};
  SchemaText w{writer, {}};
  (void)format.canonical(r);
  (void)format.canonical(w);
  (void)format.read_incompatibilities(r, w);
  return 0;
}
