#include <algorithm>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "registry/schema_format.h"

namespace strata::registry {
namespace {

SchemaText text(std::string schema,
                std::vector<std::pair<std::string, std::string>> references = {}) {
  return SchemaText{.schema = std::move(schema), .references = std::move(references)};
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines)
    out += l + "\n";
  return out;
}

// ---- Schema resolution --------------------------------------------------

struct ResolutionCase {
  const char* name;
  const char* reader;
  const char* writer;
  bool compatible;
  // For an incompatible pair: a fragment one of the messages contains.
  const char* why = "";
};

// PrintTo keeps gtest from dumping the struct's bytes in failure output.
void PrintTo(const ResolutionCase& c, std::ostream* os) {
  *os << c.name;
}

constexpr const char* kUserV1 =
    R"({"type":"record","name":"User","namespace":"com.x","fields":[
         {"name":"id","type":"long"},{"name":"name","type":"string"}]})";

const ResolutionCase kResolutionCases[] = {
    // Primitives and promotions.
    {"SamePrimitive", R"("int")", R"("int")", true},
    {"IntCannotReadLong", R"("int")", R"("long")", false,
     "/: reader type 'int' cannot read writer type 'long'"},
    {"LongReadsInt", R"("long")", R"("int")", true},
    {"FloatReadsInt", R"("float")", R"("int")", true},
    {"DoubleReadsInt", R"("double")", R"("int")", true},
    {"FloatReadsLong", R"("float")", R"("long")", true},
    {"DoubleReadsFloat", R"("double")", R"("float")", true},
    {"FloatCannotReadDouble", R"("float")", R"("double")", false,
     "cannot read writer type 'double'"},
    {"StringReadsBytes", R"("string")", R"("bytes")", true},
    {"BytesReadsString", R"("bytes")", R"("string")", true},
    {"StringCannotReadInt", R"("string")", R"("int")", false, "cannot read writer type 'int'"},
    {"LogicalTypeIgnored", R"({"type":"long","logicalType":"timestamp-millis"})", R"("long")",
     true},

    // Records.
    {"SameRecord", kUserV1, kUserV1, true},
    {"ReaderAddsFieldWithDefault",
     R"({"type":"record","name":"User","namespace":"com.x","fields":[
         {"name":"id","type":"long"},{"name":"name","type":"string"},
         {"name":"age","type":"int","default":0}]})",
     kUserV1, true},
    {"ReaderAddsFieldWithoutDefault",
     R"({"type":"record","name":"User","namespace":"com.x","fields":[
         {"name":"id","type":"long"},{"name":"name","type":"string"},
         {"name":"age","type":"int"}]})",
     kUserV1, false,
     "/fields/2: reader field 'age' is missing from writer record 'com.x.User' and has no "
     "default"},
    {"WriterFieldDroppedByReader",
     R"({"type":"record","name":"User","namespace":"com.x","fields":[{"name":"id","type":"long"}]})",
     kUserV1, true},
    {"FieldTypePromoted", R"({"type":"record","name":"R","fields":[{"name":"a","type":"double"}]})",
     R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})", true},
    {"FieldTypeNarrowed",
     R"({"type":"record","name":"R","fields":[{"name":"z","type":"string"},{"name":"a","type":"int"}]})",
     R"({"type":"record","name":"R","fields":[{"name":"a","type":"long"}]})", false,
     "/fields/1/type: reader type 'int' cannot read writer type 'long'"},
    {"FieldRenamedWithAlias",
     R"({"type":"record","name":"R","fields":[{"name":"b","aliases":["a"],"type":"int"}]})",
     R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})", true},
    {"FieldRenamedWithoutAlias",
     R"({"type":"record","name":"R","fields":[{"name":"b","type":"int"}]})",
     R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})", false,
     "reader field 'b' is missing"},
    {"FieldsReordered",
     R"({"type":"record","name":"R","fields":[{"name":"b","type":"int"},{"name":"a","type":"int"}]})",
     R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]})",
     true},
    {"RecordNameDiffers", R"({"type":"record","name":"A","fields":[]})",
     R"({"type":"record","name":"B","fields":[]})", false,
     "/name: reader record 'A' cannot read writer record 'B'"},
    {"RecordNameAliased", R"({"type":"record","name":"A","aliases":["B"],"fields":[]})",
     R"({"type":"record","name":"B","fields":[]})", true},
    {"RecordNamespaceDiffers", R"({"type":"record","name":"a.R","fields":[]})",
     R"({"type":"record","name":"b.R","fields":[]})", true},
    {"RecordCannotReadEnum", R"({"type":"record","name":"R","fields":[]})",
     R"({"type":"enum","name":"R","symbols":["A"]})", false,
     "reader record 'R' cannot read writer enum 'R'"},

    // Enums.
    {"ReaderEnumAddsSymbol", R"({"type":"enum","name":"E","symbols":["A","B","C"]})",
     R"({"type":"enum","name":"E","symbols":["A","B"]})", true},
    {"WriterEnumAddsSymbol", R"({"type":"enum","name":"E","symbols":["A","B"]})",
     R"({"type":"enum","name":"E","symbols":["A","B","C","D"]})", false,
     "/symbols: reader enum 'E' has no default and lacks writer symbols 'C', 'D'"},
    {"WriterEnumAddsSymbolReaderDefault",
     R"({"type":"enum","name":"E","symbols":["A","B"],"default":"A"})",
     R"({"type":"enum","name":"E","symbols":["A","B","C"]})", true},
    {"EnumNameDiffers", R"({"type":"enum","name":"E","symbols":["A"]})",
     R"({"type":"enum","name":"F","symbols":["A"]})", false, "/name: reader enum 'E'"},

    // Fixed.
    {"SameFixed", R"({"type":"fixed","name":"F","size":16})",
     R"({"type":"fixed","name":"F","size":16})", true},
    {"FixedSizeDiffers", R"({"type":"fixed","name":"F","size":16})",
     R"({"type":"fixed","name":"F","size":8})", false,
     "/size: reader fixed 'F' has size 16, writer fixed 'F' has size 8"},
    {"FixedNameDiffers", R"({"type":"fixed","name":"F","size":4})",
     R"({"type":"fixed","name":"G","size":4})", false, "/name"},

    // Arrays and maps.
    {"ArrayItemsPromoted", R"({"type":"array","items":"long"})",
     R"({"type":"array","items":"int"})", true},
    {"ArrayItemsNarrowed", R"({"type":"array","items":"int"})",
     R"({"type":"array","items":"long"})", false,
     "/items: reader type 'int' cannot read writer type 'long'"},
    {"MapValuesPromoted", R"({"type":"map","values":"double"})",
     R"({"type":"map","values":"float"})", true},
    {"MapValuesNarrowed", R"({"type":"map","values":"bytes"})", R"({"type":"map","values":"int"})",
     false, "/values: reader type 'bytes' cannot read writer type 'int'"},
    {"ArrayCannotReadMap", R"({"type":"array","items":"int"})", R"({"type":"map","values":"int"})",
     false, "reader type 'array' cannot read writer type 'map'"},

    // Unions.
    {"ReaderUnionWider", R"(["null","int","string"])", R"(["null","int"])", true},
    {"WriterUnionWider", R"(["null","int"])", R"(["null","int","string"])", false,
     "no branch of the reader union can read writer type 'string'"},
    {"ReaderUnionReadsPlain", R"(["null","string"])", R"("string")", true},
    {"ReaderUnionPromotesPlain", R"(["null","long"])", R"("int")", true},
    {"ReaderUnionCannotReadPlain", R"(["null","int"])", R"("string")", false,
     "/: no branch of the reader union can read writer type 'string'"},
    {"PlainReadsSingleBranchUnion", R"("string")", R"(["string"])", true},
    {"PlainCannotReadWiderUnion", R"("string")", R"(["null","string"])", false,
     "reader type 'string' cannot read writer type 'null'"},
    {"UnionBranchRecordEvolved",
     R"(["null",{"type":"record","name":"R","fields":[
         {"name":"a","type":"int"},{"name":"b","type":"int","default":1}]}])",
     R"(["null",{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}])", true},
    {"UnionBranchRecordBroken",
     R"(["null",{"type":"record","name":"R","fields":[{"name":"b","type":"int"}]}])",
     R"(["null",{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}])", false,
     "no branch of the reader union can read writer record 'R'"},

    // Recursive types.
    {"RecursiveSame",
     R"({"type":"record","name":"Node","fields":[
         {"name":"value","type":"long"},{"name":"next","type":["null","Node"]}]})",
     R"({"type":"record","name":"Node","fields":[
         {"name":"value","type":"long"},{"name":"next","type":["null","Node"]}]})",
     true},
    {"RecursiveEvolved",
     R"({"type":"record","name":"Node","fields":[{"name":"value","type":"double"},
         {"name":"next","type":["null","Node"]},{"name":"tag","type":"string","default":""}]})",
     R"({"type":"record","name":"Node","fields":[
         {"name":"value","type":"int"},{"name":"next","type":["null","Node"]}]})",
     true},
    {"RecursiveNarrowed",
     R"({"type":"record","name":"Node","fields":[
         {"name":"value","type":"int"},{"name":"next","type":["null","Node"]}]})",
     R"({"type":"record","name":"Node","fields":[
         {"name":"value","type":"long"},{"name":"next","type":["null","Node"]}]})",
     false, "/fields/0/type: reader type 'int' cannot read writer type 'long'"},
    // Decimals match only at the same precision and scale; against plain
    // bytes or fixed the logical type is set aside.
    {"DecimalSameScale", R"({"type":"bytes","logicalType":"decimal","precision":9,"scale":2})",
     R"({"type":"bytes","logicalType":"decimal","precision":9,"scale":2})", true},
    {"DecimalScaleChanged", R"({"type":"bytes","logicalType":"decimal","precision":9,"scale":3})",
     R"({"type":"bytes","logicalType":"decimal","precision":9,"scale":2})", false,
     "reader decimal(9, 3) cannot read writer decimal(9, 2)"},
    {"DecimalPrecisionChanged", R"({"type":"bytes","logicalType":"decimal","precision":12})",
     R"({"type":"bytes","logicalType":"decimal","precision":9,"scale":0})", false,
     "reader decimal(12, 0) cannot read writer decimal(9, 0)"},
    {"FixedDecimalScaleChanged",
     R"({"type":"fixed","name":"Money","size":8,"logicalType":"decimal","precision":10,"scale":4})",
     R"({"type":"fixed","name":"Money","size":8,"logicalType":"decimal","precision":10,"scale":2})",
     false, "reader decimal(10, 4) cannot read writer decimal(10, 2)"},
    {"BytesReadsDecimal", R"("bytes")",
     R"({"type":"bytes","logicalType":"decimal","precision":9,"scale":2})", true},
    {"DecimalReadsBytes", R"({"type":"bytes","logicalType":"decimal","precision":9,"scale":2})",
     R"("bytes")", true},
};

class AvroResolutionTable : public testing::TestWithParam<ResolutionCase> {};

TEST_P(AvroResolutionTable, FollowsTheSpecification) {
  const ResolutionCase& c = GetParam();
  auto why = make_avro_format()->read_incompatibilities(text(c.reader), text(c.writer));
  ASSERT_TRUE(why.ok()) << why.error().to_string();
  if (c.compatible) {
    EXPECT_TRUE(why->empty()) << joined(*why);
  } else {
    ASSERT_FALSE(why->empty());
    EXPECT_NE(joined(*why).find(c.why), std::string::npos) << joined(*why);
  }
}

INSTANTIATE_TEST_SUITE_P(Rules, AvroResolutionTable, testing::ValuesIn(kResolutionCases),
                         [](const testing::TestParamInfo<ResolutionCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(AvroResolution, ReportsEveryProblemOnce) {
  auto why = make_avro_format()->read_incompatibilities(
      text(R"({"type":"record","name":"R","fields":[
          {"name":"a","type":"int"},{"name":"b","type":"string"},{"name":"c","type":"int"}]})"),
      text(R"({"type":"record","name":"R","fields":[{"name":"a","type":"long"},
          {"name":"b","type":"string"}]})"));
  ASSERT_TRUE(why.ok());
  EXPECT_EQ(*why, (std::vector<std::string>{
                      "/fields/0/type: reader type 'int' cannot read writer type 'long'",
                      "/fields/2: reader field 'c' is missing from writer record 'R' and has no "
                      "default",
                  }));
}

TEST(AvroResolution, MutuallyRecursiveTypesTerminate) {
  const char* schema = R"({"type":"record","name":"A","fields":[
      {"name":"b","type":{"type":"record","name":"B","fields":[
          {"name":"a","type":["null","A"]},{"name":"n","type":"int"}]}}]})";
  auto why = make_avro_format()->read_incompatibilities(text(schema), text(schema));
  ASSERT_TRUE(why.ok());
  EXPECT_TRUE(why->empty()) << joined(*why);
}

TEST(AvroResolution, UsesReferences) {
  std::vector<std::pair<std::string, std::string>> refs = {
      {"com.x.Address",
       R"({"type":"record","name":"Address","namespace":"com.x","fields":[
           {"name":"city","type":"string"}]})"}};
  const char* reader =
      R"({"type":"record","name":"com.x.User","fields":[{"name":"home","type":"Address"}]})";
  const char* writer =
      R"({"type":"record","name":"com.x.User","fields":[{"name":"home","type":"com.x.Address"}]})";
  auto why = make_avro_format()->read_incompatibilities(text(reader, refs), text(writer, refs));
  ASSERT_TRUE(why.ok()) << why.error().to_string();
  EXPECT_TRUE(why->empty()) << joined(*why);
}

// T0 has an int; each Ti has two fields of T(i-1), so a mismatch in T0
// shows at 2^i places under Ti.
std::string doubling_chain(int levels, const char* leaf_type) {
  std::string fields = fmt::format(
      R"({{"name":"f0","type":{{"type":"record","name":"T0","fields":[{{"name":"x","type":"{}"}}]}}}})",
      leaf_type);
  for (int i = 1; i < levels; ++i) {
    fields += fmt::format(R"(,{{"name":"f{0}","type":{{"type":"record","name":"T{0}","fields":[)"
                          R"({{"name":"a","type":"T{1}"}},{{"name":"b","type":"T{1}"}}]}}}})",
                          i, i - 1);
  }
  return fmt::format(R"({{"type":"record","name":"Top","fields":[{}]}})", fields);
}

TEST(AvroResolution, CapsProblemsThatMultiplyThroughSharedTypes) {
  auto why = make_avro_format()->read_incompatibilities(text(doubling_chain(30, "int")),
                                                        text(doubling_chain(30, "long")));
  ASSERT_TRUE(why.ok());
  EXPECT_EQ(why->size(), 100u);
  EXPECT_EQ(why->back(), "/: further problems are not listed");
}

// References R0..R(n-1), each a record holding the one before it.
std::vector<std::pair<std::string, std::string>> reference_chain(int n) {
  std::vector<std::pair<std::string, std::string>> refs = {
      {"R0", R"({"type":"record","name":"R0","fields":[{"name":"x","type":"int"}]})"}};
  for (int i = 1; i < n; ++i) {
    refs.emplace_back(fmt::format("R{}", i),
                      fmt::format(R"({{"type":"record","name":"R{}","fields":[)"
                                  R"({{"name":"p","type":"R{}"}}]}})",
                                  i, i - 1));
  }
  return refs;
}

TEST(AvroResolution, BoundsRecursionThroughChainedTypes) {
  auto refs = reference_chain(1500);
  SchemaText s =
      text(R"({"type":"record","name":"Top","fields":[{"name":"r","type":"R1499"}]})", refs);
  auto why = make_avro_format()->read_incompatibilities(s, s);
  ASSERT_TRUE(why.ok()) << why.error().to_string();
  ASSERT_EQ(why->size(), 1u);
  EXPECT_NE(why->front().find("schemas nest deeper than"), std::string::npos) << why->front();
}

TEST(AvroResolution, ComparesTheDeepestNestingItParses) {
  // Unions of arrays against themselves: the comparison's deepest case.
  std::string deep = R"("int")";
  for (int i = 0; i < 99; ++i)
    deep = fmt::format(R"(["null",{{"type":"array","items":{}}}])", deep);
  ASSERT_TRUE(make_avro_format()->canonical(text(deep)).ok());
  auto why = make_avro_format()->read_incompatibilities(text(deep), text(deep));
  ASSERT_TRUE(why.ok());
  EXPECT_TRUE(why->empty()) << joined(*why);
}

TEST(AvroResolution, RejectsUnparsableSchemas) {
  auto format = make_avro_format();
  auto bad_reader = format->read_incompatibilities(text(R"("nope")"), text(R"("int")"));
  ASSERT_FALSE(bad_reader.ok());
  EXPECT_EQ(bad_reader.error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(bad_reader.error().message(), "Invalid reader schema: unknown type 'nope'");
  auto bad_writer = format->read_incompatibilities(text(R"("int")"), text("{"));
  ASSERT_FALSE(bad_writer.ok());
  EXPECT_NE(bad_writer.error().message().find("Invalid writer schema: malformed JSON"),
            std::string::npos);
}

// ---- Canonical text -----------------------------------------------------

std::string canonical_or_die(const SchemaText& s) {
  auto c = make_avro_format()->canonical(s);
  EXPECT_TRUE(c.ok()) << c.error().to_string();
  return c.ok() ? *c : "";
}

TEST(AvroCanonical, IgnoresWhitespaceAndKeyOrder) {
  std::string a = canonical_or_die(text(
      R"({"type":"record","name":"User","namespace":"com.x","fields":[{"name":"id","type":"long"}]})"));
  std::string b = canonical_or_die(text(R"(
      {
        "fields": [ { "type": "long", "name": "id" } ],
        "namespace": "com.x",
        "name": "User",
        "type": "record"
      })"));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, R"({"type":"record","name":"com.x.User","fields":[{"name":"id","type":"long"}]})");
}

TEST(AvroCanonical, ShortAndFullNamesGiveTheSameText) {
  std::string short_names = canonical_or_die(text(R"({"type":"record","name":"User",
      "namespace":"com.x","fields":[
        {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},
        {"name":"other","type":"Kind"}]})"));
  std::string full_names = canonical_or_die(text(R"({"type":"record","name":"com.x.User",
      "fields":[
        {"name":"kind","type":{"type":"enum","name":"com.x.Kind","symbols":["A","B"]}},
        {"name":"other","type":"com.x.Kind"}]})"));
  EXPECT_EQ(short_names, full_names);
  EXPECT_EQ(full_names,
            R"({"type":"record","name":"com.x.User","fields":[)"
            R"({"name":"kind","type":{"type":"enum","name":"com.x.Kind","symbols":["A","B"]}},)"
            R"({"name":"other","type":"com.x.Kind"}]})");
}

TEST(AvroCanonical, BarePrimitives) {
  EXPECT_EQ(canonical_or_die(text(R"("string")")), R"("string")");
  EXPECT_EQ(canonical_or_die(text(R"( {"type" : "string"} )")), R"("string")");
  EXPECT_EQ(canonical_or_die(text(R"(["null","int"])")), R"(["null","int"])");
}

TEST(AvroCanonical, KeepsAttributesInAFixedOrder) {
  std::string c = canonical_or_die(text(R"({"scale":2,"precision":9,"logicalType":"decimal",
      "type":"bytes"})"));
  EXPECT_EQ(c, R"({"type":"bytes","logicalType":"decimal","precision":9,"scale":2})");
  std::string field = canonical_or_die(text(R"({"type":"record","name":"R","doc":"d","fields":[
      {"order":"descending","default":{"b":1,"a":2},"doc":"f","aliases":["old"],"type":
        {"type":"map","values":"int"},"name":"m","x-custom":true}]})"));
  EXPECT_EQ(field, R"({"type":"record","name":"R","doc":"d","fields":[{"name":"m","type":)"
                   R"({"type":"map","values":"int"},"doc":"f","default":{"a":2,"b":1},)"
                   R"("order":"descending","aliases":["old"],"x-custom":true}]})");
}

TEST(AvroCanonical, IsItsOwnCanonicalForm) {
  for (const char* schema : {
           kUserV1,
           R"({"type":"record","name":"x.R","fields":[{"name":"a","type":
               {"type":"fixed","name":"F","namespace":"","size":4}},{"name":"b","type":"F"}]})",
           R"({"type":"enum","name":"E","namespace":"n","aliases":["Old"],"symbols":["A"],
               "default":"A"})",
       }) {
    std::string once = canonical_or_die(text(schema));
    EXPECT_EQ(canonical_or_die(text(once)), once) << schema;
  }
}

TEST(AvroCanonical, RecursiveType) {
  std::string c = canonical_or_die(text(R"({"type":"record","name":"Node","namespace":"l",
      "fields":[{"name":"value","type":"int"},{"name":"next","type":["null","Node"],
      "default":null}]})"));
  EXPECT_EQ(c, R"({"type":"record","name":"l.Node","fields":[{"name":"value","type":"int"},)"
               R"({"name":"next","type":["null","l.Node"],"default":null}]})");
}

TEST(AvroCanonical, ReferencesDefineNamedTypes) {
  // The first reference uses a type of the second: references parse in
  // whatever order works.
  std::vector<std::pair<std::string, std::string>> refs = {
      {"com.x.Address", R"({"type":"record","name":"Address","namespace":"com.x","fields":[
          {"name":"country","type":"Country"}]})"},
      {"com.x.Country", R"({"type":"enum","name":"com.x.Country","symbols":["DE","FR"]})"},
  };
  std::string c = canonical_or_die(text(R"({"type":"record","name":"User","namespace":"com.x",
      "fields":[{"name":"home","type":"Address"}]})",
                                        refs));
  // The referenced type stays a reference.
  EXPECT_EQ(c, R"({"type":"record","name":"com.x.User","fields":[)"
               R"({"name":"home","type":"com.x.Address"}]})");

  auto missing =
      make_avro_format()->canonical(text(R"({"type":"record","name":"User","namespace":"com.x",
          "fields":[{"name":"home","type":"Address"}]})"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "Invalid schema: field 'home' of record 'com.x.User': unknown type 'Address'");
}

TEST(AvroCanonical, ReferencesInAnyOrder) {
  auto refs = reference_chain(300);
  std::reverse(refs.begin(), refs.end());
  EXPECT_EQ(canonical_or_die(text(R"("R299")", refs)), R"("R299")");

  // "Inner" is no reference's name but nested in one; it is still found.
  std::vector<std::pair<std::string, std::string>> nested = {
      {"b.User", R"({"type":"record","name":"b.User","fields":[{"name":"i","type":"a.Inner"}]})"},
      {"a.Outer", R"({"type":"record","name":"a.Outer","fields":[{"name":"i","type":
          {"type":"enum","name":"Inner","symbols":["X"]}}]})"},
  };
  EXPECT_EQ(canonical_or_die(text(R"(["b.User","a.Inner"])", nested)), R"(["b.User","a.Inner"])");
}

TEST(AvroCanonical, ReportsABrokenReference) {
  auto c = make_avro_format()->canonical(
      text(R"("int")", {{"com.x.Bad", R"({"type":"record","name":"com.x.Bad","fields":[
          {"name":"a","type":"Missing"}]})"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(),
            "Invalid schema: reference 'com.x.Bad': field 'a' of record 'com.x.Bad': unknown "
            "type 'Missing'");
}

TEST(AvroCanonical, RefusesDeepNesting) {
  std::string deep(2000, '[');
  auto c = make_avro_format()->canonical(text(deep + std::string(2000, ']')));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("nests deeper"), std::string::npos);
}

struct InvalidCase {
  const char* name;
  const char* schema;
  const char* message;  // a fragment of the error's message
};

void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << c.name;
}

const InvalidCase kInvalidCases[] = {
    {"MalformedJson", R"({"type": "record",)",
     "malformed JSON: [json.exception.parse_error.101] "
     "parse error at line 1, column 19"},
    {"UnknownType", R"({"type":"record","name":"R","fields":[{"name":"a","type":"Foo"}]})",
     "field 'a' of record 'R': unknown type 'Foo'"},
    {"UnknownTypeKeyword", R"({"type":"struct"})", "unknown type 'struct'"},
    {"NotAType", "42", "42 is not a type"},
    {"MissingType", R"({"name":"x"})", "no \"type\""},
    {"BadIntDefault",
     R"({"type":"record","name":"User","namespace":"com.x","fields":[
         {"name":"age","type":"int","default":"x"}]})",
     "Invalid schema: field 'age' of record 'com.x.User': default \"x\" is not an int"},
    {"IntDefaultOutOfRange",
     R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":4294967296}]})",
     "default 4294967296 is not an int"},
    {"UnionDefaultNotFirstBranch",
     R"({"type":"record","name":"R","fields":[{"name":"a","type":["null","string"],"default":"x"}]})",
     "default \"x\" is not null"},
    {"RecordDefaultMissingField",
     R"({"type":"record","name":"R","fields":[{"name":"a","default":{},"type":
         {"type":"record","name":"S","fields":[{"name":"b","type":"int"}]}}]})",
     "field 'a' of record 'R': default {} is not a record 'S'"},
    {"ArrayDefaultWrongItem",
     R"({"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"int"},
         "default":[1,"2"]}]})",
     "default [1,\"2\"] is not an array"},
    {"DuplicateField",
     R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]})",
     "record 'R': duplicate field 'a'"},
    {"BadRecordName", R"({"type":"record","name":"1User","fields":[]})", "invalid name '1User'"},
    {"BadNamespace", R"({"type":"record","name":"U","namespace":"com..x","fields":[]})",
     "invalid namespace 'com..x'"},
    {"BadFieldName", R"({"type":"record","name":"R","fields":[{"name":"a-b","type":"int"}]})",
     "invalid field name 'a-b'"},
    {"MissingFields", R"({"type":"record","name":"R"})", "record 'R': no \"fields\" array"},
    {"DuplicateSymbol", R"({"type":"enum","name":"E","symbols":["A","B","A"]})",
     "enum 'E': duplicate symbol 'A'"},
    {"BadSymbol", R"({"type":"enum","name":"E","symbols":["A","b c"]})", "invalid symbol \"b c\""},
    {"EnumDefaultNotSymbol", R"({"type":"enum","name":"E","symbols":["A"],"default":"Z"})",
     "enum 'E': default 'Z' is not one of its symbols"},
    {"UnionDuplicatePrimitive", R"(["null","string","null"])",
     "union has more than one branch of type 'null'"},
    {"UnionDuplicateArray", R"([{"type":"array","items":"int"},{"type":"array","items":"long"}])",
     "union has more than one branch of type 'array'"},
    {"UnionDuplicateNamed", R"([{"type":"fixed","name":"F","size":1},"F"])",
     "union has more than one branch of type 'F'"},
    {"NestedUnion", R"(["null",["int","string"]])", "a union may not directly contain a union"},
    {"NegativeFixedSize", R"({"type":"fixed","name":"F","size":-1})",
     "fixed 'F': size -1 is not an integer"},
    {"FractionalFixedSize", R"({"type":"fixed","name":"F","size":1.5})", "size 1.5 is not"},
    {"TypeDefinedTwice",
     R"({"type":"record","name":"R","fields":[
         {"name":"a","type":{"type":"enum","name":"E","symbols":["X"]}},
         {"name":"b","type":{"type":"enum","name":"E","symbols":["Y"]}}]})",
     "field 'b' of record 'R': 'E' is defined twice"},
    {"PrimitiveRedefined", R"({"type":"fixed","name":"int","size":4})",
     "'int' is a primitive type and cannot be redefined"},
    {"BadOrder",
     R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"up"}]})",
     "order 'up' is not ascending"},
    {"ArrayWithoutItems", R"({"type":"array"})", "array has no \"items\""},
};

class AvroInvalidTable : public testing::TestWithParam<InvalidCase> {};

TEST_P(AvroInvalidTable, IsRejectedWithItsReason) {
  const InvalidCase& c = GetParam();
  auto result = make_avro_format()->canonical(text(c.schema));
  ASSERT_FALSE(result.ok()) << *result;
  EXPECT_EQ(result.error().code(), Errc::kInvalidArgument);
  EXPECT_NE(result.error().message().find(c.message), std::string::npos)
      << result.error().message();
  EXPECT_EQ(result.error().message().rfind("Invalid schema: ", 0), 0u);
}

INSTANTIATE_TEST_SUITE_P(Schemas, AvroInvalidTable, testing::ValuesIn(kInvalidCases),
                         [](const testing::TestParamInfo<InvalidCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(AvroFormat, IsAvro) {
  EXPECT_EQ(make_avro_format()->type(), SchemaType::kAvro);
}

}  // namespace
}  // namespace strata::registry
