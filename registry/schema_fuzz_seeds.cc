// Writes a seed corpus for schema_fuzz: schema pairs of each format.
//
//   schema_fuzz_seeds <dir>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

void seed(const std::filesystem::path& dir, const std::string& name, char format,
          const std::string& reader, const std::string& writer) {
  std::ofstream out(dir / name, std::ios::binary);
  out << format << reader << '\xff' << writer;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: schema_fuzz_seeds <dir>\n");
    return 2;
  }
  std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  seed(dir, "avro_record", 0,
       R"({"type":"record","name":"U","namespace":"n","fields":[{"name":"id","type":"long"},)"
       R"({"name":"e","type":["null","string"],"default":null},)"
       R"({"name":"k","type":{"type":"enum","name":"K","symbols":["A","B"],"default":"A"}}]})",
       R"({"type":"record","name":"U","namespace":"n","fields":[{"name":"id","type":"int"},)"
       R"({"name":"xs","type":{"type":"array","items":"ref"}},)"
       R"({"name":"f","type":{"type":"fixed","name":"F","size":4}}]})");
  seed(dir, "avro_recursive", 0,
       R"({"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]})",
       R"({"type":"map","values":"bytes"})");
  seed(dir, "proto", 1,
       "syntax = \"proto3\"; package p; import \"ref\"; message M { int32 a = 1; "
       "oneof o { string s = 2; bytes b = 3; } map<string, int64> m = 4; repeated Q q = 5; }",
       "syntax = \"proto3\"; package p; message Q { sint64 x = 1; enum E { Z = 0; } E e = 2; }");
  seed(dir, "proto2", 1,
       "syntax = \"proto2\"; message A { required fixed32 x = 1; optional A next = 2; }",
       "message A { optional sfixed32 x = 1; }");
  seed(dir, "json", 2,
       R"({"type":"object","properties":{"a":{"type":"integer","minimum":0},)"
       R"("b":{"$ref":"#/definitions/B"}},"required":["a"],"definitions":)"
       R"({"B":{"type":"array","items":{"type":"string","maxLength":5}}}})",
       R"({"type":"object","additionalProperties":false,"properties":{"a":{"enum":[1,2]},)"
       R"("c":{"oneOf":[{"type":"null"},{"$ref":"ref"}]}}})");
  return 0;
}
