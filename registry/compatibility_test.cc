// The compatibility levels over each format: for a subject's history and a
// candidate schema, the verdict at every level — which versions a level
// checks (the latest, or all) and in which direction (the new schema
// reading old data, old schemas reading new data, or both).
#include "registry/compatibility.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace strata::registry {
namespace {

constexpr CompatibilityLevel kLevels[] = {
    CompatibilityLevel::kNone,
    CompatibilityLevel::kBackward,
    CompatibilityLevel::kBackwardTransitive,
    CompatibilityLevel::kForward,
    CompatibilityLevel::kForwardTransitive,
    CompatibilityLevel::kFull,
    CompatibilityLevel::kFullTransitive,
};

struct Row {
  const char* name;
  SchemaType type;
  std::vector<std::string> history;  // oldest first
  std::string candidate;
  // Y or N per level, in kLevels' order: NONE, BACKWARD, BACKWARD_TRANSITIVE,
  // FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE.
  const char* verdicts;
};

std::string avro(const std::string& fields) {
  return R"({"type":"record","name":"R","fields":[)" + fields + "]}";
}
std::string proto(const std::string& body) {
  return "syntax = \"proto3\"; package p; message M { " + body + " }";
}

const Row kRows[] = {
    {"AvroFieldsWithDefaultsAddedAreFullyCompatible",
     SchemaType::kAvro,
     {avro(R"({"name":"id","type":"long"})"),
      avro(R"({"name":"id","type":"long"},{"name":"e","type":"string","default":""})")},
     avro(R"({"name":"id","type":"long"},{"name":"e","type":"string","default":""},)"
          R"({"name":"p","type":"int","default":0})"),
     "YYYYYYY"},
    {"AvroFieldAddedWithoutDefaultIsForwardOnly",
     SchemaType::kAvro,
     {avro(R"({"name":"id","type":"long"})")},
     avro(R"({"name":"id","type":"long"},{"name":"age","type":"int"})"),
     "YNNYYNN"},
    {"AvroFieldRemovedThatOldReadersNeedIsBackwardOnly",
     SchemaType::kAvro,
     {avro(R"({"name":"id","type":"long"})")},
     avro(""),
     "YYYNNNN"},
    {"AvroForwardTransitiveSeesTheFirstVersion",
     SchemaType::kAvro,
     {avro(R"({"name":"id","type":"long"})"), avro(R"({"name":"id","type":"long","default":0})")},
     avro(""),
     "YYYYNYN"},
    {"AvroBackwardTransitiveSeesTheFirstVersion",
     SchemaType::kAvro,
     {avro(R"({"name":"n","type":"long"})"), avro(R"({"name":"n","type":"int"})")},
     avro(R"({"name":"n","type":"int"})"),
     "YYNYYYN"},
    {"ProtobufFieldAddedIsFullyCompatible",
     SchemaType::kProtobuf,
     {proto("string a = 1;")},
     proto("string a = 1; int32 b = 2;"),
     "YYYYYYY"},
    {"ProtobufFieldTypeChangedIsIncompatibleBothWays",
     SchemaType::kProtobuf,
     {proto("int32 a = 1;")},
     proto("string a = 1;"),
     "YNNNNNN"},
    {"ProtobufVarintWideningIsFullyCompatible",
     SchemaType::kProtobuf,
     {proto("int32 a = 1;")},
     proto("int64 a = 1;"),
     "YYYYYYY"},
    {"JsonTypeWidenedIsBackwardOnly",
     SchemaType::kJson,
     {R"({"type":"object","properties":{"a":{"type":"string"}}})"},
     R"({"type":"object","properties":{"a":{"type":["string","null"]}}})",
     "YYYNNNN"},
    {"JsonPropertyAddedToAClosedModelIsBackwardOnly",
     SchemaType::kJson,
     {R"({"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false})"},
     R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},)"
     R"("additionalProperties":false})",
     "YYYNNNN"},
};

class LevelTable : public ::testing::TestWithParam<Row> {};

TEST_P(LevelTable, GivesTheVerdictOfEachLevel) {
  const Row& row = GetParam();
  auto format = make_format(row.type);
  std::vector<SchemaText> history;
  for (const auto& h : row.history)
    history.push_back({h, {}});
  for (size_t i = 0; i < std::size(kLevels); ++i) {
    auto why = incompatibilities(*format, kLevels[i], {row.candidate, {}}, history);
    ASSERT_TRUE(why.ok()) << why.error().to_string();
    bool compatible = why->empty();
    EXPECT_EQ(compatible, row.verdicts[i] == 'Y')
        << compatibility_name(kLevels[i]) << ": "
        << (why->empty() ? std::string("compatible") : why->front());
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, LevelTable, ::testing::ValuesIn(kRows),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CompatibilityNames, RoundTrip) {
  for (auto level : kLevels)
    EXPECT_EQ(parse_compatibility(compatibility_name(level)), level);
  EXPECT_FALSE(parse_compatibility("backward").has_value());  // callers upper-case
  EXPECT_FALSE(parse_compatibility("SIDEWAYS").has_value());
}

}  // namespace
}  // namespace strata::registry
