#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "registry/schema_format.h"

namespace strata::registry {
namespace {

class JsonSchemaTest : public ::testing::Test {
 protected:
  Result<std::string> canonical(std::string schema,
                                std::vector<std::pair<std::string, std::string>> refs = {}) {
    return format_->canonical({.schema = std::move(schema), .references = std::move(refs)});
  }

  // The incompatibilities, or the error as the only element.
  std::vector<std::string> problems(std::string reader, std::string writer) {
    return problems(SchemaText{std::move(reader), {}}, SchemaText{std::move(writer), {}});
  }
  std::vector<std::string> problems(const SchemaText& reader, const SchemaText& writer) {
    auto r = format_->read_incompatibilities(reader, writer);
    if (!r) return {"error: " + r.error().to_string()};
    return *r;
  }

  // The message of a schema canonical() must refuse.
  std::string refusal(std::string schema,
                      std::vector<std::pair<std::string, std::string>> refs = {}) {
    auto r = canonical(std::move(schema), std::move(refs));
    if (r) return "accepted: " + *r;
    EXPECT_EQ(r.error().code(), Errc::kInvalidArgument);
    return r.error().message();
  }

  std::unique_ptr<SchemaFormat> format_ = make_json_schema_format();
};

// ---- canonical() ----------------------------------------------------------------

TEST_F(JsonSchemaTest, TypeIsJson) {
  EXPECT_EQ(format_->type(), SchemaType::kJson);
}

TEST_F(JsonSchemaTest, CanonicalIgnoresKeyOrderAndWhitespace) {
  auto a = canonical(R"({"type": "object", "properties": {"b": {"type": "string"}, "a": {}}})");
  auto b = canonical(
      "{\n  \"properties\":{\"a\":{},\n \"b\":{\"type\":\"string\"}},\"type\":\"object\"}");
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(*a, R"({"properties":{"a":{},"b":{"type":"string"}},"type":"object"})");
  auto again = canonical(*a);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *a);
}

TEST_F(JsonSchemaTest, CanonicalAcceptsBooleanSchemas) {
  EXPECT_EQ(*canonical(" true "), "true");
  EXPECT_EQ(*canonical("false"), "false");
}

// A schema using the keywords of every draft, valid and readable by itself.
constexpr const char* kEveryKeyword = R"({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "definitions": {"pos": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}},
  "$defs": {"name": {"$anchor": "name", "type": "string", "pattern": "^[a-z]+$"}},
  "type": ["object", "null"],
  "properties": {
    "id": {"$ref": "#/definitions/pos"},
    "name": {"$ref": "#name"},
    "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "minItems": 0},
    "pair": {"prefixItems": [{"type": "string"}, {"type": "number"}], "items": false},
    "old": {"items": [{"type": "string"}], "additionalItems": {"type": "integer"}},
    "ratio": {"type": "number", "exclusiveMaximum": 1, "multipleOf": 0.25},
    "kind": {"enum": ["a", "b", null]},
    "v": {"const": 1.0},
    "a~b/c": {"$ref": "#/properties/a~0b~1c2"},
    "a~b/c2": true
  },
  "patternProperties": {"^x-": {}},
  "additionalProperties": false,
  "required": ["id"],
  "dependencies": {"name": ["id"], "tags": {"required": ["kind"]}},
  "allOf": [{"minProperties": 1}], "anyOf": [true], "oneOf": [{}], "not": {"type": "null"},
  "if": {"required": ["v"]}, "then": {"maxProperties": 9}, "else": false
})";

TEST_F(JsonSchemaTest, CanonicalAcceptsTheKeywordsOfEveryDraft) {
  auto c = canonical(kEveryKeyword);
  EXPECT_TRUE(c.ok()) << c.error().to_string();
}

TEST_F(JsonSchemaTest, CanonicalResolvesPercentEncodedPointers) {
  auto c = canonical(R"({"$defs": {"a b": {"type": "string"}},
                         "properties": {"x": {"$ref": "#/$defs/a%20b"}}})");
  EXPECT_TRUE(c.ok()) << c.error().to_string();
}

TEST_F(JsonSchemaTest, CanonicalRefusesMalformedJson) {
  std::string m = refusal(R"({"type": "string",})");
  EXPECT_NE(m.find("Invalid schema"), std::string::npos) << m;
  EXPECT_NE(m.find("malformed JSON"), std::string::npos) << m;
  EXPECT_NE(m.find("line 1, column 19"), std::string::npos) << m;
  EXPECT_NE(refusal("").find("malformed JSON"), std::string::npos);
}

struct Refusal {
  const char* name;
  const char* schema;
  const char* fragment;  // expected in the message
};

class JsonSchemaRefusalTest : public JsonSchemaTest,
                              public ::testing::WithParamInterface<Refusal> {};

TEST_P(JsonSchemaRefusalTest, NamesTheProblemAndWhere) {
  std::string m = refusal(GetParam().schema);
  EXPECT_NE(m.find(GetParam().fragment), std::string::npos) << m;
}

const Refusal kRefusals[] = {
    {"NotASchema", "[1, 2]", "Invalid schema: #: expected a schema (an object or a boolean)"},
    {"NumberIsNoSchema", "42", "#: expected a schema"},
    {"BadTypeName", R"({"properties": {"a": {"type": "strin"}}})",
     "Invalid schema: #/properties/a/type: unknown type \"strin\""},
    {"BadTypeInList", R"({"type": ["string", "text"]})", "#/type/1: unknown type \"text\""},
    {"TypeTwice", R"({"type": ["string", "string"]})", "#/type/1: type \"string\" listed twice"},
    {"EmptyTypeList", R"({"type": []})", "#/type: expected a type name or a non-empty array"},
    {"TypeNotString", R"({"type": 3})", "#/type: expected a type name"},
    {"RequiredNotArray", R"({"required": "a"})", "#/required: expected an array of property names"},
    {"RequiredNotStrings", R"({"required": ["a", 1]})", "#/required/1: expected a property name"},
    {"RequiredTwice", R"({"required": ["a", "a"]})", "#/required/1: \"a\" listed twice"},
    {"PropertiesNotObject", R"({"properties": []})", "#/properties: expected an object of schemas"},
    {"PropertyNotSchema", R"({"properties": {"a": 1}})", "#/properties/a: expected a schema"},
    {"EscapedPropertyName", R"({"properties": {"a/b": 1}})",
     "#/properties/a~1b: expected a schema"},
    {"DefinitionNotSchema", R"({"definitions": {"d": "x"}})", "#/definitions/d: expected a schema"},
    {"ItemsNotSchema", R"({"items": 5})", "#/items: expected a schema"},
    {"ItemsEmptyTuple", R"({"items": []})", "#/items: expected a non-empty array of schemas"},
    {"TupleItemNotSchema", R"({"items": [{}, 1]})", "#/items/1: expected a schema"},
    {"AdditionalPropertiesNumber", R"({"additionalProperties": 1})",
     "#/additionalProperties: expected a schema"},
    {"EmptyEnum", R"({"enum": []})", "#/enum: expected a non-empty array"},
    {"EnumNotArray", R"({"enum": "a"})", "#/enum: expected a non-empty array"},
    {"MinimumNotNumber", R"({"minimum": "1"})", "#/minimum: expected a number"},
    {"ExclusiveMaximumString", R"({"exclusiveMaximum": "x"})",
     "#/exclusiveMaximum: expected a number or a boolean"},
    {"MultipleOfZero", R"({"multipleOf": 0})", "#/multipleOf: expected a number above 0"},
    {"NegativeMinLength", R"({"minLength": -1})", "#/minLength: expected a non-negative integer"},
    {"FractionalMaxItems", R"({"maxItems": 1.5})", "#/maxItems: expected a non-negative integer"},
    {"UniqueItemsNotBool", R"({"uniqueItems": 1})", "#/uniqueItems: expected a boolean"},
    {"EmptyAllOf", R"({"allOf": []})", "#/allOf: expected a non-empty array of schemas"},
    {"AnyOfBranchNotSchema", R"({"anyOf": [{}, "x"]})", "#/anyOf/1: expected a schema"},
    {"NotNotSchema", R"({"not": []})", "#/not: expected a schema"},
    {"PatternNotString", R"({"pattern": 1})", "#/pattern: expected a string"},
    {"RefNotString", R"({"$ref": 1})", "#/$ref: expected a string"},
    {"UnresolvableLocalRef", R"({"properties": {"a": {"$ref": "#/definitions/missing"}}})",
     "Invalid schema: #/properties/a/$ref: \"#/definitions/missing\" does not resolve within "
     "the document"},
    {"UnknownAnchor", R"({"$ref": "#nowhere"})", "#/$ref: \"#nowhere\" does not resolve"},
    {"UnknownExternalRef", R"({"$ref": "other.json"})", "#/$ref: unknown reference \"other.json\""},
    {"RefToNonSchema", R"({"$defs": {"n": {"enum": [1]}}, "$ref": "#/$defs/n/enum"})",
     "#/$defs/n/enum: expected a schema"},
    {"BadDependency", R"({"dependencies": {"a": 3}})", "#/dependencies/a: expected a schema"},
    {"BadDependentRequired", R"({"dependentRequired": {"a": {}}})",
     "#/dependentRequired/a: expected an array of property names"},
};

INSTANTIATE_TEST_SUITE_P(Schemas, JsonSchemaRefusalTest, ::testing::ValuesIn(kRefusals),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(JsonSchemaTest, CanonicalRefusesDeepNesting) {
  std::string deep;
  for (int i = 0; i < 300; ++i)
    deep += R"({"not":)";
  deep += "{}";
  for (int i = 0; i < 300; ++i)
    deep += "}";
  EXPECT_NE(refusal(deep).find("nested deeper than"), std::string::npos);
}

TEST_F(JsonSchemaTest, CanonicalResolvesReferences) {
  const std::string address =
      R"({"type": "object", "definitions": {"street": {"type": "string"}},
          "properties": {"street": {"$ref": "#/definitions/street"}}})";
  const std::string order = R"({"type": "object", "properties": {
      "ship_to": {"$ref": "address.json"},
      "street": {"$ref": "address.json#/definitions/street"}}})";
  auto c = canonical(order, {{"address.json", address}});
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  // References are stored apart; the canonical text is the root's alone.
  EXPECT_EQ(*c, *canonical(R"({"properties":{"ship_to":{"$ref":"address.json"},)"
                           R"("street":{"$ref":"address.json#/definitions/street"}},)"
                           R"("type":"object"})",
                           {{"address.json", address}}));
  EXPECT_NE(refusal(order).find("unknown reference \"address.json\""), std::string::npos);
  EXPECT_NE(refusal(order, {{"address.json", R"({"type": "adress"})"}})
                .find("Invalid schema: address.json#/type: unknown type \"adress\""),
            std::string::npos);
  EXPECT_NE(refusal(order, {{"address.json", "{"}}).find("reference \"address.json\": malformed"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"$ref": "address.json#/definitions/city"})", {{"address.json", address}})
                .find("unknown reference"),
            std::string::npos);
}

TEST_F(JsonSchemaTest, CanonicalResolvesRefsByDocumentId) {
  auto c = canonical(R"({"$id": "http://example.com/root.json",
                         "definitions": {"a": {"type": "string"}},
                         "properties": {"a": {"$ref": "http://example.com/root.json#/definitions/a"}}})");
  EXPECT_TRUE(c.ok()) << c.error().to_string();
}

// ---- read_incompatibilities() ---------------------------------------------------

struct Pair {
  const char* name;
  const char* reader;
  const char* writer;
  bool compatible;
};

class JsonSchemaCompatTest : public JsonSchemaTest, public ::testing::WithParamInterface<Pair> {};

TEST_P(JsonSchemaCompatTest, ReaderReadsWriterOrSaysWhy) {
  const Pair& p = GetParam();
  std::vector<std::string> why = problems(p.reader, p.writer);
  if (p.compatible) {
    EXPECT_TRUE(why.empty()) << fmt::format("{}", fmt::join(why, "\n"));
  } else {
    EXPECT_FALSE(why.empty());
    for (const std::string& m : why) {
      EXPECT_EQ(m.rfind("#", 0), 0u) << "message without a path: " << m;
      EXPECT_EQ(m.find("error:"), std::string::npos) << m;
    }
  }
}

const Pair kPairs[] = {
    // Types.
    {"SameType", R"({"type": "string"})", R"({"type": "string"})", true},
    {"TypeNarrowed", R"({"type": "integer"})", R"({"type": ["integer", "number"]})", false},
    {"TypeWidened", R"({"type": ["integer", "string"]})", R"({"type": "integer"})", true},
    {"IntegerReadAsNumber", R"({"type": "number"})", R"({"type": "integer"})", true},
    {"NumberNotReadAsInteger", R"({"type": "integer"})", R"({"type": "number"})", false},
    {"TypeChanged", R"({"type": "string"})", R"({"type": "boolean"})", false},
    {"TypeRemoved", R"({})", R"({"type": "string"})", true},
    {"TypeAdded", R"({"type": "string"})", R"({})", false},
    // Allowed values.
    {"EnumExtended", R"({"enum": ["a", "b", "c"]})", R"({"enum": ["a", "b"]})", true},
    {"EnumNarrowed", R"({"enum": ["a", "b"]})", R"({"enum": ["a", "b", "c"]})", false},
    {"EnumAdded", R"({"type": "string", "enum": ["a"]})", R"({"type": "string"})", false},
    {"EnumRemoved", R"({"type": "string"})", R"({"type": "string", "enum": ["a", "b"]})", true},
    {"ConstWithinEnum", R"({"enum": ["a", "b"]})", R"({"const": "a"})", true},
    {"EnumGivesTheWritersType", R"({"type": "string"})", R"({"enum": ["a", "b"]})", true},
    {"TypeOfOneValueWithinEnum", R"({"enum": [null, false, true]})",
     R"({"type": ["null", "boolean"]})", true},
    {"EnumValueOfOtherType", R"({"type": "string"})", R"({"enum": ["a", 1]})", false},
    // Lengths and numeric bounds.
    {"MaxLengthIncreased", R"({"type": "string", "maxLength": 10})",
     R"({"type": "string", "maxLength": 5})", true},
    {"MaxLengthDecreased", R"({"type": "string", "maxLength": 5})",
     R"({"type": "string", "maxLength": 10})", false},
    {"MaxLengthAdded", R"({"type": "string", "maxLength": 5})", R"({"type": "string"})", false},
    {"MaxLengthRemoved", R"({"type": "string"})", R"({"type": "string", "maxLength": 5})", true},
    {"MinLengthIncreased", R"({"type": "string", "minLength": 3})",
     R"({"type": "string", "minLength": 1})", false},
    {"MinLengthDecreased", R"({"type": "string", "minLength": 1})",
     R"({"type": "string", "minLength": 3})", true},
    {"MaximumDecreased", R"({"type": "number", "maximum": 10})",
     R"({"type": "number", "maximum": 100})", false},
    {"MaximumIncreased", R"({"type": "number", "maximum": 100})",
     R"({"type": "number", "maximum": 10})", true},
    {"MinimumIncreased", R"({"type": "number", "minimum": 5})",
     R"({"type": "number", "minimum": 0})", false},
    {"MinimumAdded", R"({"type": "number", "minimum": 5})", R"({"type": "number"})", false},
    {"ExclusiveMinimumTighter", R"({"exclusiveMinimum": 0})", R"({"minimum": 0})", false},
    {"ExclusiveMinimumLooser", R"({"minimum": 0})", R"({"exclusiveMinimum": 0})", true},
    {"Draft4ExclusiveBound", R"({"minimum": 0, "exclusiveMinimum": true})",
     R"({"exclusiveMinimum": 0})", true},
    {"IntegerBoundsCompareAsIntegers", R"({"type": "integer", "minimum": 1, "maximum": 9})",
     R"({"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10})", true},
    {"NumberBoundsDoNot", R"({"type": "number", "minimum": 1})",
     R"({"type": "number", "exclusiveMinimum": 0})", false},
    {"MultipleOfDivisor", R"({"multipleOf": 2})", R"({"multipleOf": 4})", true},
    {"MultipleOfNotDivisor", R"({"multipleOf": 4})", R"({"multipleOf": 2})", false},
    {"MultipleOfAdded", R"({"type": "number", "multipleOf": 2})", R"({"type": "number"})", false},
    {"IntegersAreMultiplesOfAHalf", R"({"multipleOf": 0.5})", R"({"type": "integer"})", true},
    {"NumericBoundsSkipStrings", R"({"type": ["string", "number"], "maximum": 5})",
     R"({"type": "string"})", true},
    {"MaxItemsDecreased", R"({"type": "array", "maxItems": 2})",
     R"({"type": "array", "maxItems": 3})", false},
    {"MinItemsIncreased", R"({"type": "array", "minItems": 2})",
     R"({"type": "array", "minItems": 1})", false},
    {"MaxPropertiesDecreased", R"({"type": "object", "maxProperties": 2})",
     R"({"type": "object", "maxProperties": 3})", false},
    {"PatternAdded", R"({"type": "string", "pattern": "^a"})", R"({"type": "string"})", false},
    {"PatternSame", R"({"type": "string", "pattern": "^a"})",
     R"({"type": "string", "pattern": "^a"})", true},
    {"PatternRemoved", R"({"type": "string"})", R"({"type": "string", "pattern": "^a"})", true},
    // Objects.
    {"RequiredAdded", R"({"type": "object", "properties": {"a": {}}, "required": ["a"]})",
     R"({"type": "object", "properties": {"a": {}}})", false},
    {"RequiredRemoved", R"({"type": "object", "properties": {"a": {}}})",
     R"({"type": "object", "properties": {"a": {}}, "required": ["a"]})", true},
    {"PropertyAddedToOpenWriter",
     R"({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}})",
     R"({"properties": {"a": {"type": "string"}}})", false},
    {"UnconstrainedPropertyAddedToOpenWriter", R"({"properties": {"a": {}, "b": {}}})",
     R"({"properties": {"a": {}}})", true},
    {"PropertyAddedToClosedWriter",
     R"({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}})",
     R"({"properties": {"a": {"type": "string"}}, "additionalProperties": false})", true},
    {"PropertyAddedMatchingWritersAdditional",
     R"({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}})",
     R"({"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}})",
     true},
    {"PropertyRemovedFromOpenReader", R"({"properties": {"a": {"type": "string"}}})",
     R"({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}})", true},
    {"PropertyRemovedFromClosedReader",
     R"({"properties": {"a": {"type": "string"}}, "additionalProperties": false})",
     R"({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}})", false},
    {"PropertyRemovedIntoReadersAdditional",
     R"({"properties": {"a": {}}, "additionalProperties": {"type": "string"}})",
     R"({"properties": {"a": {}, "b": {"type": "string", "maxLength": 3}},
         "additionalProperties": false})",
     true},
    {"ReaderClosedWriterOpen", R"({"properties": {"a": {}}, "additionalProperties": false})",
     R"({"properties": {"a": {}}})", false},
    {"BothClosed", R"({"properties": {"a": {}}, "additionalProperties": false})",
     R"({"properties": {"a": {}}, "additionalProperties": false})", true},
    {"AdditionalPropertiesNarrowed",
     R"({"additionalProperties": {"type": "string", "maxLength": 3}})",
     R"({"additionalProperties": {"type": "string"}})", false},
    {"AdditionalPropertiesWidened", R"({"additionalProperties": {"type": "string"}})",
     R"({"additionalProperties": {"type": "string", "maxLength": 3}})", true},
    {"NestedPropertyNarrowed",
     R"({"properties": {"p": {"properties": {"age": {"type": "integer"}}}}})",
     R"({"properties": {"p": {"properties": {"age": {"type": "number"}}}}})", false},
    {"PatternPropertiesSame",
     R"({"patternProperties": {"^x_": {"type": "string"}}, "additionalProperties": false})",
     R"({"patternProperties": {"^x_": {"type": "string"}}, "additionalProperties": false})", true},
    {"WriterPropertyFailsReadersPattern", R"({"patternProperties": {"^x_": {"type": "string"}}})",
     R"({"properties": {"x_1": {"type": "number"}}, "additionalProperties": false})", false},
    {"WriterPropertyOutsideReadersPattern", R"({"patternProperties": {"^x_": {"type": "string"}}})",
     R"({"properties": {"y": {"type": "number"}}, "additionalProperties": false})", true},
    {"DependencyAdded", R"({"dependencies": {"a": ["b"]}})", R"({"type": "object"})", false},
    {"DependencyShortened", R"({"dependencies": {"a": ["b"]}})",
     R"({"dependencies": {"a": ["b", "c"]}})", true},
    // Arrays.
    {"ItemsNarrowed", R"({"type": "array", "items": {"type": "integer"}})",
     R"({"type": "array", "items": {"type": "number"}})", false},
    {"ItemsWidened", R"({"type": "array", "items": {"type": "number"}})",
     R"({"type": "array", "items": {"type": "integer"}})", true},
    {"TupleSame",
     R"({"items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false})",
     R"({"items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false})", true},
    {"TuplePositionNarrowed", R"({"items": [{"type": "string"}, {"type": "integer"}]})",
     R"({"items": [{"type": "string"}, {"type": "number"}]})", false},
    {"TupleClosedWriterOpen", R"({"items": [{"type": "string"}], "additionalItems": false})",
     R"({"items": [{"type": "string"}]})", false},
    {"PrefixItemsAgainstItems",
     R"({"prefixItems": [{"type": "string"}], "items": {"type": "string"}})",
     R"({"items": {"type": "string"}})", true},
    {"UniqueItemsAdded", R"({"type": "array", "uniqueItems": true})", R"({"type": "array"})",
     false},
    {"UniqueItemsRemoved", R"({"type": "array"})", R"({"type": "array", "uniqueItems": true})",
     true},
    // Combined schemas.
    {"FieldMadeNullable",
     R"({"properties": {"a": {"oneOf": [{"type": "null"}, {"type": "string"}]}}})",
     R"({"properties": {"a": {"type": "string"}}})", true},
    {"FieldMadeNotNullable", R"({"properties": {"a": {"type": "string"}}})",
     R"({"properties": {"a": {"oneOf": [{"type": "null"}, {"type": "string"}]}}})", false},
    {"WriterUnionWithinReaderTypes", R"({"type": ["string", "integer"]})",
     R"({"oneOf": [{"type": "string"}, {"type": "integer"}]})", true},
    {"WriterUnionBranchUnread", R"({"type": "string"})",
     R"({"anyOf": [{"type": "string"}, {"type": "integer"}]})", false},
    {"ReaderUnionReadsWriter", R"({"oneOf": [{"type": "null"}, {"type": "string"}]})",
     R"({"type": "string"})", true},
    {"ReaderUnionReadsWriterPerType", R"({"oneOf": [{"type": "null"}, {"type": "string"}]})",
     R"({"type": ["null", "string"]})", true},
    {"ReaderUnionMissesWriter", R"({"anyOf": [{"type": "string"}, {"type": "null"}]})",
     R"({"type": "integer"})", false},
    {"UnionsMatchedBranchByBranch",
     R"({"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})",
     R"({"oneOf": [{"type": "integer"}, {"type": "string"}]})", true},
    {"UnionBranchRemoved", R"({"oneOf": [{"type": "integer"}]})",
     R"({"oneOf": [{"type": "integer"}, {"type": "string"}]})", false},
    {"ReaderAllOfSatisfied",
     R"({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"required": ["a"]}]})",
     R"({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})", true},
    {"ReaderAllOfBranchUnmet", R"({"allOf": [{"type": "object"}, {"required": ["b"]}]})",
     R"({"type": "object", "properties": {"b": {}}})", false},
    {"WriterAllOfFlattened", R"({"type": "object", "required": ["a", "b"]})",
     R"({"allOf": [{"type": "object", "required": ["a"]}, {"required": ["b"]}]})", true},
    {"ReaderNotDisjointType", R"({"not": {"type": "null"}})", R"({"type": "string"})", true},
    {"ReaderNotExcludesWriter", R"({"not": {"type": "string"}})", R"({"type": "string"})", false},
    {"ReaderNotWithinWritersNot", R"({"not": {"enum": ["a"]}})", R"({"not": {"type": "string"}})",
     true},
    // References.
    {"RefTargetNarrowed",
     R"({"definitions": {"n": {"type": "integer"}}, "properties": {"n": {"$ref": "#/definitions/n"}}})",
     R"({"definitions": {"n": {"type": "number"}}, "properties": {"n": {"$ref": "#/definitions/n"}}})",
     false},
    {"RefAgainstInline",
     R"({"$defs": {"n": {"type": "number"}}, "properties": {"n": {"$ref": "#/$defs/n"}}})",
     R"({"properties": {"n": {"type": "integer"}}})", true},
    {"RecursiveSame",
     R"({"type": "object", "properties": {"v": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#"}}}})",
     R"({"type": "object", "properties": {"v": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#"}}}})",
     true},
    {"RecursiveNarrowedInside",
     R"({"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#"}}}})",
     R"({"type": "object", "properties": {"v": {"type": "number"}, "kids": {"type": "array", "items": {"$ref": "#"}}}})",
     false},
    {"RecursiveUnion",
     R"({"$defs": {"t": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/t"}}]}}, "$ref": "#/$defs/t"})",
     R"({"$defs": {"t": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/t"}}]}}, "$ref": "#/$defs/t"})",
     true},
    // Boolean schemas.
    {"ReaderTrue", "true", R"({"type": "string"})", true},
    {"WriterFalse", R"({"type": "string"})", "false", true},
    {"ReaderFalse", "false", "{}", false},
    {"ReaderPropertyFalseWriterNeverWrites", R"({"properties": {"a": false}})",
     R"({"properties": {"a": false}})", true},
    // Other keywords.
    {"AnnotationsIgnored", R"({"title": "new", "description": "d", "type": "string"})",
     R"({"title": "old", "type": "string", "examples": ["x"]})", true},
    {"UnknownKeywordSame", R"({"x-kind": {"a": 1}})", R"({"x-kind": {"a": 1}})", true},
    {"UnknownKeywordChanged", R"({"x-kind": 2})", R"({"x-kind": 1})", false},
    {"FormatAdded", R"({"type": "string", "format": "email"})", R"({"type": "string"})", false},
    {"FormatIgnoredForNumbers", R"({"type": "integer", "format": "email"})",
     R"({"type": "integer"})", true},
};

INSTANTIATE_TEST_SUITE_P(Pairs, JsonSchemaCompatTest, ::testing::ValuesIn(kPairs),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(JsonSchemaTest, EverySchemaReadsItself) {
  EXPECT_TRUE(problems(kEveryKeyword, kEveryKeyword).empty());
  for (const Pair& p : kPairs) {
    for (const char* schema : {p.reader, p.writer}) {
      EXPECT_TRUE(problems(schema, schema).empty()) << schema;
    }
  }
}

TEST_F(JsonSchemaTest, MessagesNameThePathAndTheChange) {
  auto why = problems(R"({"properties": {"age": {"type": "integer"}}})",
                      R"({"properties": {"age": {"type": ["integer", "number"]}}})");
  EXPECT_EQ(why,
            std::vector<std::string>{
                R"(#/properties/age: type narrowed from ["integer","number"] to ["integer"])"});
  why = problems(R"({"type": "string", "maxLength": 5})", R"({"type": "string", "maxLength": 10})");
  EXPECT_EQ(why, std::vector<std::string>{"#: maxLength decreased from 10 to 5"});
  why = problems(R"({"enum": ["a"]})", R"({"enum": ["a", "b", "c"]})");
  EXPECT_EQ(why, std::vector<std::string>{R"(#: enum narrowed: reader does not allow ["b","c"])"});
  why = problems(R"({"properties": {"a": {}}, "required": ["a"]})", R"({"properties": {"a": {}}})");
  EXPECT_EQ(why,
            std::vector<std::string>{R"(#: property "a" is required by reader but not by writer)"});
  why = problems(R"({"properties": {"b": {"type": "string"}}})", "{}");
  EXPECT_EQ(why, std::vector<std::string>{
                     R"(#/properties/b: property "b" added to reader while writer's content )"
                     R"(model is open)"});
  why = problems(R"({"additionalProperties": false})", R"({"properties": {"b": {}}})");
  ASSERT_FALSE(why.empty());
  EXPECT_EQ(why.front(), R"(#/additionalProperties: property "b" not allowed by reader, )"
                         R"(but writer may write it)");
}

TEST_F(JsonSchemaTest, ReportsEveryProblem) {
  auto why = problems(
      R"({"properties": {"a": {"type": "string", "maxLength": 3}, "b": {"type": "integer"}},
                     "required": ["a", "b"]})",
      R"({"properties": {"a": {"type": "string"}, "b": {"type": "number"}}})");
  EXPECT_EQ(why.size(), 4u) << fmt::format("{}", fmt::join(why, "\n"));
}

TEST_F(JsonSchemaTest, ComparesThroughReferences) {
  const std::string v1 = R"({"type": "object", "properties": {"zip": {"type": "string"}}})";
  const std::string v2 =
      R"({"type": "object", "properties": {"zip": {"type": "string", "maxLength": 5}}})";
  const std::string order = R"({"properties": {"ship_to": {"$ref": "address.json"}}})";
  EXPECT_TRUE(problems({.schema = order, .references = {{"address.json", v1}}},
                       {.schema = order, .references = {{"address.json", v2}}})
                  .empty());
  auto why = problems({.schema = order, .references = {{"address.json", v2}}},
                      {.schema = order, .references = {{"address.json", v1}}});
  EXPECT_EQ(why,
            std::vector<std::string>{"#/properties/ship_to/properties/zip: maxLength added: 5"});
}

TEST_F(JsonSchemaTest, RefusesToCompareInvalidSchemas) {
  auto r = format_->read_incompatibilities(SchemaText{"{", {}}, SchemaText{"{}", {}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kInvalidArgument);
  r = format_->read_incompatibilities(SchemaText{"{}", {}}, SchemaText{R"({"type": 1})", {}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kInvalidArgument);
}

TEST_F(JsonSchemaTest, GivesUpOnExplosiveSchemas) {
  // Each level refers to the next twice: 2^40 paths through the schema.
  std::string defs;
  for (int i = 0; i < 40; ++i) {
    defs += fmt::format(R"("d{}": {{"properties": {{"a": {{"$ref": "#/$defs/d{}"}},)"
                        R"( "b": {{"$ref": "#/$defs/d{}"}}}}}},)",
                        i, i + 1, i + 1);
  }
  std::string reader =
      fmt::format(R"({{"$defs": {{{} "d40": {{"type": "string"}}}}, "$ref": "#/$defs/d0"}})", defs);
  std::string writer = fmt::format(
      R"({{"$defs": {{{} "d40": {{"type": "integer"}}}}, "$ref": "#/$defs/d0"}})", defs);
  auto why = problems(reader, writer);
  ASSERT_FALSE(why.empty());
  EXPECT_EQ(why.back(), "#: schemas too large or too deeply recursive to compare");
}

}  // namespace
}  // namespace strata::registry
