// The Protobuf format: what it accepts and how it prints it, and a table of
// reader/writer pairs, one or more per compatibility rule.
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <google/protobuf/descriptor.pb.h>
#include <gtest/gtest.h>

#include "registry/schema_format.h"

namespace strata::registry {
namespace {

using References = std::vector<std::pair<std::string, std::string>>;

SchemaText pb_text(std::string schema, References references = {}) {
  return SchemaText{.schema = std::move(schema), .references = std::move(references)};
}

// A proto3 file of package `pkg` holding `body`.
std::string p3(std::string_view body) {
  return fmt::format("syntax = \"proto3\";\npackage pkg;\n{}\n", body);
}

// A proto2 file of package `pkg` holding `body`.
std::string p2(std::string_view body) {
  return fmt::format("syntax = \"proto2\";\npackage pkg;\n{}\n", body);
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

class ProtobufFormatTest : public ::testing::Test {
 protected:
  // The canonical text of `s`, or "" after failing the test.
  std::string canonical(const SchemaText& s) {
    Result<std::string> c = format_->canonical(s);
    EXPECT_TRUE(c.ok()) << c.error().to_string();
    return c.ok() ? *c : "";
  }

  // The message of the error canonical() returns for `s`, after checking
  // it is kInvalidArgument.
  std::string invalid(const SchemaText& s) {
    Result<std::string> c = format_->canonical(s);
    if (c.ok()) {
      ADD_FAILURE() << "accepted:\n" << *c;
      return "";
    }
    EXPECT_EQ(c.error().code(), Errc::kInvalidArgument);
    return c.error().message();
  }

  std::unique_ptr<SchemaFormat> format_ = make_protobuf_format();
};

TEST_F(ProtobufFormatTest, IsTheProtobufFormat) {
  EXPECT_EQ(format_->type(), SchemaType::kProtobuf);
}

TEST_F(ProtobufFormatTest, WhitespaceAndCommentsDoNotChangeTheCanonicalText) {
  const std::string compact =
      "syntax=\"proto3\";package pkg;message Order{string id=1;Item item=2;}"
      "message Item{int64 count=1;}";
  const std::string spread = R"(
    // Orders placed in the shop.
    syntax = "proto3";

    package pkg;

    /* One order. */
    message Order {
      string id = 1;    // its key
      Item   item = 2;
    }

    message Item {
      int64 count = 1;
    }
  )";
  EXPECT_EQ(canonical(pb_text(compact)), canonical(pb_text(spread)));
}

// confluent-kafka-python registers a schema as its FileDescriptorProto,
// serialized and in base64: the same schema as the .proto text says.
TEST_F(ProtobufFormatTest, ABase64FileDescriptorIsTheSchemaItDescribes) {
  const std::string proto = p3("message Order { string id = 1; int64 count = 2; }");
  google::protobuf::FileDescriptorProto d;
  d.set_name("order.proto");
  d.set_syntax("proto3");
  d.set_package("pkg");
  auto* m = d.add_message_type();
  m->set_name("Order");
  auto* id = m->add_field();
  id->set_name("id");
  id->set_number(1);
  id->set_label(google::protobuf::FieldDescriptorProto::LABEL_OPTIONAL);
  id->set_type(google::protobuf::FieldDescriptorProto::TYPE_STRING);
  auto* count = m->add_field();
  count->set_name("count");
  count->set_number(2);
  count->set_label(google::protobuf::FieldDescriptorProto::LABEL_OPTIONAL);
  count->set_type(google::protobuf::FieldDescriptorProto::TYPE_INT64);
  std::string b64;
  std::string bytes = d.SerializeAsString();
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<uint8_t>(bytes[i + 2]);
    b64 += kAlphabet[(n >> 18) & 63];
    b64 += kAlphabet[(n >> 12) & 63];
    b64 += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    b64 += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  EXPECT_EQ(canonical(pb_text(b64)), canonical(pb_text(proto)));
  // Base64 of something that is not a descriptor is refused like bad text.
  EXPECT_TRUE(contains(invalid(pb_text("aGVsbG8gd29ybGQ=")), "Invalid schema")) << b64;
}

TEST_F(ProtobufFormatTest, CanonicalTextIsProtoSyntaxWithFullTypeNames) {
  const std::string c =
      canonical(pb_text(p3("message Order { Item item = 1; }\n"
                           "message Item { int64 count = 1; }")));
  EXPECT_TRUE(contains(c, "syntax = \"proto3\";")) << c;
  EXPECT_TRUE(contains(c, "package pkg;")) << c;
  EXPECT_TRUE(contains(c, ".pkg.Item item = 1;")) << c;
}

TEST_F(ProtobufFormatTest, SyntaxErrorNamesLineAndColumn) {
  const std::string why =
      invalid(pb_text("syntax = \"proto3\";\nmessage Order {\n  int32 x = 1\n}\n"));
  EXPECT_EQ(why, "Invalid schema: 4:1: Expected \";\".");
}

TEST_F(ProtobufFormatTest, UnknownTypeIsInvalid) {
  const std::string why = invalid(pb_text(p3("message Order { Customer customer = 1; }")));
  EXPECT_TRUE(contains(why, "pkg.Order.customer: \"Customer\" is not defined")) << why;
}

TEST_F(ProtobufFormatTest, ReusedFieldNumberIsInvalid) {
  const std::string why = invalid(pb_text(p3("message Order { int32 a = 1; int32 b = 1; }")));
  EXPECT_TRUE(contains(why, "Field number 1 has already been used")) << why;
}

TEST_F(ProtobufFormatTest, Proto2IsAccepted) {
  const std::string c =
      canonical(pb_text(p2("message Order {\n"
                           "  required string id = 1;\n"
                           "  optional int32 count = 2 [default = 1];\n"
                           "  repeated string tags = 3;\n"
                           "}")));
  EXPECT_TRUE(contains(c, "syntax = \"proto2\";")) << c;
  EXPECT_TRUE(contains(c, "required string id = 1;")) << c;
}

TEST_F(ProtobufFormatTest, AFileWithoutSyntaxIsProto2) {
  EXPECT_EQ(canonical(pb_text("package pkg; message Order { optional int32 count = 1; }")),
            canonical(pb_text(p2("message Order { optional int32 count = 1; }"))));
}

TEST_F(ProtobufFormatTest, Proto3IsAccepted) {
  const std::string c =
      canonical(pb_text(p3("message Order {\n"
                           "  optional int32 count = 1;\n"
                           "  map<string, int64> totals = 2;\n"
                           "  oneof payment { string card = 3; string iban = 4; }\n"
                           "}")));
  EXPECT_TRUE(contains(c, "syntax = \"proto3\";")) << c;
  EXPECT_TRUE(contains(c, "optional int32 count = 1;")) << c;
  EXPECT_TRUE(contains(c, "oneof payment")) << c;
}

TEST_F(ProtobufFormatTest, ImportResolvesThroughAReference) {
  const References refs = {
      {"money.proto", "syntax = \"proto3\"; package money; message Money { int64 units = 1; }"}};
  const std::string c = canonical(
      pb_text(p3("import \"money.proto\";\nmessage Order { money.Money price = 1; }"), refs));
  EXPECT_TRUE(contains(c, "import \"money.proto\";")) << c;
  EXPECT_TRUE(contains(c, ".money.Money price = 1;")) << c;
}

TEST_F(ProtobufFormatTest, ImportsResolveThroughReferencesOfReferences) {
  const References refs = {
      {"shop/item.proto",
       "syntax = \"proto3\"; package shop; import \"shop/money.proto\";"
       "message Item { Money price = 1; }"},
      {"shop/money.proto", "syntax = \"proto3\"; package shop; message Money { int64 units = 1; }"},
  };
  canonical(
      pb_text(p3("import \"shop/item.proto\";\nmessage Order { shop.Item item = 1; }"), refs));
}

TEST_F(ProtobufFormatTest, WellKnownImportsNeedNoReference) {
  const std::string c = canonical(pb_text(p3(R"(
    import "google/protobuf/any.proto";
    import "google/protobuf/duration.proto";
    import "google/protobuf/empty.proto";
    import "google/protobuf/field_mask.proto";
    import "google/protobuf/struct.proto";
    import "google/protobuf/timestamp.proto";
    import "google/protobuf/wrappers.proto";
    message Order {
      google.protobuf.Any detail = 1;
      google.protobuf.Duration ttl = 2;
      google.protobuf.Empty nothing = 3;
      google.protobuf.FieldMask mask = 4;
      google.protobuf.Struct extra = 5;
      google.protobuf.Timestamp placed_at = 6;
      google.protobuf.StringValue note = 7;
    })")));
  EXPECT_TRUE(contains(c, ".google.protobuf.Timestamp placed_at = 6;")) << c;
}

TEST_F(ProtobufFormatTest, AWellKnownImportMayItselfImport) {
  // api.proto imports source_context.proto and type.proto.
  canonical(
      pb_text(p3("import \"google/protobuf/api.proto\";\n"
                 "message Order { google.protobuf.Api api = 1; }")));
}

TEST_F(ProtobufFormatTest, ImportWithoutReferenceIsInvalid) {
  const std::string why =
      invalid(pb_text(p3("import \"money.proto\";\nmessage Order { money.Money price = 1; }")));
  EXPECT_TRUE(contains(why, "'money.proto'")) << why;
}

TEST_F(ProtobufFormatTest, ErrorInAReferenceNamesIt) {
  const References refs = {{"money.proto", "syntax = \"proto3\";\nmessage Money { int64 units }"}};
  const std::string why =
      invalid(pb_text(p3("import \"money.proto\";\nmessage Order { Money price = 1; }"), refs));
  EXPECT_TRUE(contains(why, "import 'money.proto': 2:")) << why;
}

TEST_F(ProtobufFormatTest, ImportCycleIsInvalid) {
  const References refs = {
      {"a.proto", "syntax = \"proto3\"; import \"b.proto\";"},
      {"b.proto", "syntax = \"proto3\"; import \"a.proto\";"},
  };
  const std::string why = invalid(pb_text(p3("import \"a.proto\";\nmessage Order {}"), refs));
  EXPECT_TRUE(contains(why, "import cycle")) << why;
}

TEST_F(ProtobufFormatTest, ReadIncompatibilitiesRefusesASchemaThatDoesNotBuild) {
  const SchemaText good = pb_text(p3("message Order { int32 id = 1; }"));
  const SchemaText bad = pb_text(p3("message Order { Missing id = 1; }"));
  for (const auto& [reader, writer] : {std::pair(good, bad), std::pair(bad, good)}) {
    Result<std::vector<std::string>> why = format_->read_incompatibilities(reader, writer);
    ASSERT_FALSE(why.ok());
    EXPECT_EQ(why.error().code(), Errc::kInvalidArgument);
  }
}

TEST_F(ProtobufFormatTest, ATypeUsedTwiceIsReportedOnce) {
  const std::string order = "message Order { Money price = 1; Money tax = 2; }\n";
  Result<std::vector<std::string>> why =
      format_->read_incompatibilities(pb_text(p3(order + "message Money { double units = 1; }")),
                                      pb_text(p3(order + "message Money { int64 units = 1; }")));
  ASSERT_TRUE(why.ok()) << why.error().to_string();
  EXPECT_EQ(*why, std::vector<std::string>{
                      "message 'pkg.Money' field 1 ('units'): type changed from int64 to double"});
}

// One row of the compatibility table: can `reader` read what `writer`
// writes? `incompatibility` is empty when it can, else a part of the one
// message expected.
struct CompatCase {
  std::string name;
  SchemaText reader;
  SchemaText writer;
  std::string incompatibility;
};

std::vector<CompatCase> compat_cases() {
  const std::string status = "enum Status { UNKNOWN = 0; PAID = 1; }";
  const References money_v1 = {
      {"money.proto", "syntax = \"proto3\"; package money; message Money { int64 units = 1; }"}};
  const References money_v2 = {
      {"money.proto", "syntax = \"proto3\"; package money; message Money { string units = 1; }"}};
  const std::string uses_money =
      p3("import \"money.proto\";\nmessage Order { money.Money p = 1; }");
  return {
      // Fields added, removed and renamed.
      {"Identical", pb_text(p3("message Order { int32 id = 1; }")),
       pb_text(p3("message Order { int32 id = 1; }")), ""},
      {"FieldAdded", pb_text(p3("message Order { int32 id = 1; string note = 2; }")),
       pb_text(p3("message Order { int32 id = 1; }")), ""},
      {"FieldRemoved", pb_text(p3("message Order { int32 id = 1; }")),
       pb_text(p3("message Order { int32 id = 1; string note = 2; }")), ""},
      {"FieldRenamed", pb_text(p3("message Order { int32 key = 1; }")),
       pb_text(p3("message Order { int32 id = 1; }")), ""},
      // Scalar kinds.
      {"Int32ToInt64", pb_text(p3("message Order { int64 n = 2; }")),
       pb_text(p3("message Order { int32 n = 2; }")), ""},
      {"Uint64ToBool", pb_text(p3("message Order { bool n = 2; }")),
       pb_text(p3("message Order { uint64 n = 2; }")), ""},
      {"Int32ToEnum", pb_text(p3("message Order { Status n = 2; }\n" + status)),
       pb_text(p3("message Order { int32 n = 2; }")), ""},
      {"EnumToUint32", pb_text(p3("message Order { uint32 n = 2; }")),
       pb_text(p3("message Order { Status n = 2; }\n" + status)), ""},
      {"Sint32ToSint64", pb_text(p3("message Order { sint64 n = 2; }")),
       pb_text(p3("message Order { sint32 n = 2; }")), ""},
      {"Int32ToSint32", pb_text(p3("message Order { sint32 n = 2; }")),
       pb_text(p3("message Order { int32 n = 2; }")),
       "message 'pkg.Order' field 2 ('n'): type changed from int32 to sint32"},
      {"Fixed32ToSfixed32", pb_text(p3("message Order { sfixed32 n = 2; }")),
       pb_text(p3("message Order { fixed32 n = 2; }")), ""},
      {"Sfixed64ToFixed64", pb_text(p3("message Order { fixed64 n = 2; }")),
       pb_text(p3("message Order { sfixed64 n = 2; }")), ""},
      {"Fixed32ToFixed64", pb_text(p3("message Order { fixed64 n = 2; }")),
       pb_text(p3("message Order { fixed32 n = 2; }")), "type changed from fixed32 to fixed64"},
      {"DoubleToFloat", pb_text(p3("message Order { float amount = 3; }")),
       pb_text(p3("message Order { double amount = 3; }")),
       "message 'pkg.Order' field 3 ('amount'): type changed from double to float"},
      {"Int64ToDouble", pb_text(p3("message Order { double amount = 3; }")),
       pb_text(p3("message Order { int64 amount = 3; }")), "type changed from int64 to double"},
      {"StringToBytes", pb_text(p3("message Order { bytes s = 4; }")),
       pb_text(p3("message Order { string s = 4; }")), ""},
      {"BytesToString", pb_text(p3("message Order { string s = 4; }")),
       pb_text(p3("message Order { bytes s = 4; }")), ""},
      {"StringToMessage", pb_text(p3("message Order { Money s = 4; }\nmessage Money {}")),
       pb_text(p3("message Order { string s = 4; }")),
       "type changed from string to message 'pkg.Money'"},
      {"BytesToInt32", pb_text(p3("message Order { int32 s = 4; }")),
       pb_text(p3("message Order { bytes s = 4; }")), "type changed from bytes to int32"},
      // Named types.
      {"MessageTypeRenamed",
       pb_text(p3("message Order { Amount p = 5; }\nmessage Amount {}\nmessage Money {}")),
       pb_text(p3("message Order { Money p = 5; }\nmessage Money {}")),
       "field 5 ('p'): type changed from message 'pkg.Money' to message 'pkg.Amount'"},
      // Every type is compared, by name, not only those the first one uses:
      // another schema may reference any of them.
      {"SecondMessageRemoved", pb_text(p3("message Order { int64 id = 1; }")),
       pb_text(p3("message Order { int64 id = 1; }\nmessage Refund { int64 id = 1; }")),
       "message 'pkg.Refund' was removed"},
      {"SecondMessageFieldChanged",
       pb_text(p3("message Order { int64 id = 1; }\nmessage Refund { string id = 1; }")),
       pb_text(p3("message Order { int64 id = 1; }\nmessage Refund { int64 id = 1; }")),
       "message 'pkg.Refund' field 1 ('id'): type changed from int64 to string"},
      {"SecondMessageGainsAField",
       pb_text(
           p3("message Order { int64 id = 1; }\nmessage Refund { int64 id = 1; int32 n = 2; }")),
       pb_text(p3("message Order { int64 id = 1; }\nmessage Refund { int64 id = 1; }")), ""},
      {"UnusedNestedTypeRemoved", pb_text(p3("message Order { int64 id = 1; }")),
       pb_text(p3("message Order { int64 id = 1; message Line { int32 q = 1; } }")),
       "message 'pkg.Order.Line' was removed"},
      {"UnusedNestedTypeFieldChanged",
       pb_text(p3("message Order { int64 id = 1; message Line { string q = 1; } }")),
       pb_text(p3("message Order { int64 id = 1; message Line { int32 q = 1; } }")),
       "message 'pkg.Order.Line' field 1 ('q'): type changed from int32 to string"},
      {"NestedTypeFieldChanged",
       pb_text(p3("message Order { Money p = 5; }\nmessage Money { double units = 1; }")),
       pb_text(p3("message Order { Money p = 5; }\nmessage Money { int64 units = 1; }")),
       "message 'pkg.Money' field 1 ('units'): type changed from int64 to double"},
      {"NestedTypeFieldAdded",
       pb_text(
           p3("message Order { Money p = 5; }\nmessage Money { int64 units = 1; int32 nanos = 2; "
              "}")),
       pb_text(p3("message Order { Money p = 5; }\nmessage Money { int64 units = 1; }")), ""},
      {"EnumValuesAddedAndRemoved",
       pb_text(p3("message Order { Status s = 2; }\nenum Status { UNKNOWN = 0; SHIPPED = 2; }")),
       pb_text(p3("message Order { Status s = 2; }\n" + status)), ""},
      {"EnumTypeRenamedReadsAsNumbers",
       pb_text(p3("message Order { State s = 2; }\nenum State { NONE = 0; }")),
       pb_text(p3("message Order { Status s = 2; }\n" + status)), ""},
      {"WellKnownTypeChanged",
       pb_text(p3("import \"google/protobuf/duration.proto\";\n"
                  "message Order { google.protobuf.Duration at = 6; }")),
       pb_text(p3("import \"google/protobuf/timestamp.proto\";\n"
                  "message Order { google.protobuf.Timestamp at = 6; }")),
       "from message 'google.protobuf.Timestamp' to message 'google.protobuf.Duration'"},
      {"ImportedTypeUnchanged", pb_text(uses_money, money_v1), pb_text(uses_money, money_v1), ""},
      {"ImportedTypeChanged", pb_text(uses_money, money_v2), pb_text(uses_money, money_v1),
       "message 'money.Money' field 1 ('units'): type changed from int64 to string"},
      {"RecursiveTypeUnchanged",
       pb_text(p3("message Order { Node n = 1; }\nmessage Node { repeated Node kids = 1; }")),
       pb_text(p3("message Order { Node n = 1; }\nmessage Node { repeated Node kids = 1; }")), ""},
      {"RecursiveTypeChanged",
       pb_text(p3("message Order { Node n = 1; }\n"
                  "message Node { repeated Node kids = 1; string v = 2; }")),
       pb_text(p3("message Order { Node n = 1; }\n"
                  "message Node { repeated Node kids = 1; int32 v = 2; }")),
       "message 'pkg.Node' field 2 ('v'): type changed from int32 to string"},
      // Files and first message types.
      {"PackageChanged",
       pb_text("syntax = \"proto3\"; package shop; message Order { int32 id = 1; }"),
       pb_text(p3("message Order { int32 id = 1; }")), "package changed from 'pkg' to 'shop'"},
      {"FirstMessageRenamed", pb_text(p3("message Invoice { int32 id = 1; }")),
       pb_text(p3("message Order { int32 id = 1; }")), "message 'pkg.Order' was removed"},
      {"OtherMessageAddedAfterTheFirst",
       pb_text(p3("message Order { int32 id = 1; }\nmessage Invoice {}")),
       pb_text(p3("message Order { int32 id = 1; }")), ""},
      {"Proto2WriterProto3Reader", pb_text(p3("message Order { int32 id = 1; }")),
       pb_text(p2("message Order { optional int32 id = 1; }")), ""},
      // Labels.
      {"RepeatedNumberToSingular", pb_text(p3("message Order { int32 n = 2; }")),
       pb_text(p3("message Order { repeated int32 n = 2; }")),
       "field 2 ('n'): changed from repeated to singular"},
      {"SingularEnumToRepeated", pb_text(p3("message Order { repeated Status n = 2; }\n" + status)),
       pb_text(p3("message Order { Status n = 2; }\n" + status)),
       "field 2 ('n'): changed from singular to repeated"},
      {"SingularStringToRepeated", pb_text(p3("message Order { repeated string s = 4; }")),
       pb_text(p3("message Order { string s = 4; }")), ""},
      {"RepeatedMessageToSingular", pb_text(p3("message Order { Money p = 5; }\nmessage Money {}")),
       pb_text(p3("message Order { repeated Money p = 5; }\nmessage Money {}")), ""},
      {"SingularToProto3Optional", pb_text(p3("message Order { optional int32 n = 2; }")),
       pb_text(p3("message Order { int32 n = 2; }")), ""},
      {"Proto3OptionalToSingular", pb_text(p3("message Order { int32 n = 2; }")),
       pb_text(p3("message Order { optional int32 n = 2; }")), ""},
      {"RequiredFieldAdded", pb_text(p2("message Order { required int32 id = 1; }")),
       pb_text(p2("message Order {}")),
       "field 1 ('id'): required by the reader, unknown to the writer"},
      {"OptionalFieldMadeRequired", pb_text(p2("message Order { required int32 id = 1; }")),
       pb_text(p2("message Order { optional int32 id = 1; }")),
       "field 1 ('id'): required by the reader, optional in the writer"},
      {"RequiredFieldKept", pb_text(p2("message Order { required int64 id = 1; }")),
       pb_text(p2("message Order { required int32 id = 1; }")), ""},
      {"RequiredFieldMadeOptional", pb_text(p2("message Order { optional int32 id = 1; }")),
       pb_text(p2("message Order { required int32 id = 1; }")), ""},
      // Oneofs.
      {"OneFieldMovedIntoNewOneof",
       pb_text(p3("message Order { oneof contact { string email = 5; } string phone = 6; }")),
       pb_text(p3("message Order { string email = 5; string phone = 6; }")), ""},
      {"TwoFieldsMovedIntoNewOneof",
       pb_text(p3("message Order { oneof contact { string email = 5; string phone = 6; } }")),
       pb_text(p3("message Order { string email = 5; string phone = 6; }")),
       "message 'pkg.Order' oneof 'contact': the writer may set more than one of fields 5 "
       "('email'), 6 ('phone')"},
      {"FieldMovedIntoExistingOneof",
       pb_text(p3("message Order { oneof contact { string email = 5; string phone = 6; } }")),
       pb_text(p3("message Order { oneof contact { string email = 5; } string phone = 6; }")),
       "oneof 'contact': the writer may set more than one of fields"},
      {"TwoOneofsMerged",
       pb_text(p3("message Order { oneof contact { string email = 5; string phone = 6; } }")),
       pb_text(p3("message Order { oneof a { string email = 5; } oneof b { string phone = 6; } }")),
       "oneof 'contact'"},
      {"FieldAddedToOneof",
       pb_text(p3("message Order { oneof contact { string email = 5; string phone = 6; } }")),
       pb_text(p3("message Order { oneof contact { string email = 5; } }")), ""},
      {"FieldMovedOutOfOneof", pb_text(p3("message Order { string email = 5; string phone = 6; }")),
       pb_text(p3("message Order { oneof contact { string email = 5; string phone = 6; } }")), ""},
      {"OneofFieldRemoved", pb_text(p3("message Order { oneof contact { string email = 5; } }")),
       pb_text(p3("message Order { oneof contact { string email = 5; string phone = 6; } }")),
       "message 'pkg.Order' field 6 ('phone'): removed from oneof 'contact'"},
      {"WholeOneofRemoved", pb_text(p3("message Order { int32 id = 1; }")),
       pb_text(
           p3("message Order { int32 id = 1; oneof contact { string email = 5; string phone = 6; "
              "} }")),
       ""},
      // Maps.
      {"MapRenamed", pb_text(p3("message Order { map<string, string> labels = 7; }")),
       pb_text(p3("message Order { map<string, string> tags = 7; }")), ""},
      {"MapValueChanged", pb_text(p3("message Order { map<string, int32> tags = 7; }")),
       pb_text(p3("message Order { map<string, string> tags = 7; }")),
       "field 7 ('tags') value: type changed from string to int32"},
      {"MapKeyWidened", pb_text(p3("message Order { map<int64, string> tags = 7; }")),
       pb_text(p3("message Order { map<int32, string> tags = 7; }")), ""},
      {"MapToRepeatedMessage",
       pb_text(p3("message Order { repeated Tag tags = 7; }\n"
                  "message Tag { string key = 1; string value = 2; }")),
       pb_text(p3("message Order { map<string, string> tags = 7; }")),
       "type changed from map<string, string> to message 'pkg.Tag'"},
  };
}

class ProtobufCompatibilityTest : public ::testing::TestWithParam<CompatCase> {};

TEST_P(ProtobufCompatibilityTest, ReaderReadsWriter) {
  const CompatCase& c = GetParam();
  Result<std::vector<std::string>> why =
      make_protobuf_format()->read_incompatibilities(c.reader, c.writer);
  ASSERT_TRUE(why.ok()) << why.error().to_string();
  if (c.incompatibility.empty()) {
    EXPECT_TRUE(why->empty()) << fmt::format("{}", fmt::join(*why, "\n"));
  } else {
    ASSERT_EQ(why->size(), 1u) << fmt::format("{}", fmt::join(*why, "\n"));
    EXPECT_TRUE(contains(why->front(), c.incompatibility)) << why->front();
  }
}

INSTANTIATE_TEST_SUITE_P(Rules, ProtobufCompatibilityTest, ::testing::ValuesIn(compat_cases()),
                         [](const ::testing::TestParamInfo<CompatCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace strata::registry
