// The parsed form of an Avro schema: a graph of typed nodes built from the
// schema's JSON, with named types (record, enum, fixed) resolved to the one
// node that defines them, so a recursive type is a cycle in the graph.
//
//   Result<avro::Schema> s = avro::Schema::parse({.schema = text});
//   if (!s) return s.error();  // kInvalidArgument, naming problem and place
//   const avro::Node& root = s->root();
//   std::string stored = s->canonical();
//
// Names follow the Avro specification: a name without dots takes the
// namespace of the enclosing named type (or its own "namespace"), and a
// reference is looked up in that namespace first, then in the null
// namespace. The texts of `SchemaText::references` are parsed first, in
// whatever order lets each find the names it uses; their types are known to
// the schema but never written into its canonical text.
//
// Thread-safety: a Schema is immutable after parse; any thread may read it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "registry/schema_format.h"

namespace strata::registry::avro {

// Deeper JSON is refused before it is parsed: the parser, the canonical
// writer and nlohmann's own copy and dump recurse once per level. 200 levels
// hold some 60 records nested in each other, far beyond real schemas.
inline constexpr int kMaxJsonDepth = 200;

enum class Kind {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kFixed,
  kUnion,
};

// The name the schema language uses for `kind`: "int", "record", "union", …
std::string_view kind_name(Kind kind);
// Record, enum and fixed: the types with a name.
bool is_named(Kind kind);
bool is_primitive(Kind kind);
// "User" of "com.x.User".
std::string_view unqualified_name(std::string_view full_name);

struct Node;

struct Field {
  std::string name;
  const Node* type = nullptr;
  std::optional<nlohmann::json> default_value;
  std::optional<std::string> doc;
  std::optional<std::string> order;  // "ascending", "descending" or "ignore"
  std::vector<std::string> aliases;
  // Attributes the specification does not define, kept so the stored text
  // loses nothing the writer put there.
  nlohmann::json attributes = nlohmann::json::object();
};

struct Node {
  Kind kind = Kind::kNull;

  // Named types. `full_name` includes the namespace; `space` is "" for the
  // null namespace. Aliases are stored as full names.
  std::string full_name;
  std::string space;
  std::optional<std::string> doc;
  std::vector<std::string> aliases;
  bool is_error = false;             // a record declared with type "error"
  bool from_reference = false;       // defined in a SchemaText reference
  std::vector<Field> fields;         // record
  std::vector<std::string> symbols;  // enum
  std::optional<std::string> enum_default;
  int64_t size = 0;  // fixed

  const Node* items = nullptr;        // array items, map values
  std::vector<const Node*> branches;  // union

  std::optional<std::string> logical_type;
  nlohmann::json attributes = nlohmann::json::object();

  // The name without its namespace.
  std::string_view short_name() const;
};

class Schema {
 public:
  // Parses and validates `text`. Errors are kInvalidArgument with a message
  // such as "field 'age' of record 'com.x.User': default \"x\" is not an int".
  static Result<Schema> parse(const SchemaText& text);

  const Node& root() const { return *root_; }

  // The text the registry stores: compact JSON in which
  //  - object keys come in a fixed order (type, name, namespace, doc, fields,
  //    symbols, items, values, size, default, aliases, logicalType, then the
  //    other attributes sorted; a field: name, type, doc, default, order,
  //    aliases, then the others sorted);
  //  - every named type carries its full name in "name" and no "namespace"
  //    (except "namespace":"" for a type in the null namespace nested in a
  //    namespaced one, which cannot be said otherwise), and every reference
  //    to a named type, after its definition, is its full name;
  //  - a primitive type without attributes is a plain string ("int").
  // So whitespace, key order and short versus full names do not change it.
  std::string canonical() const;

 private:
  Schema() = default;

  std::vector<std::unique_ptr<Node>> nodes_;  // owns every node of the graph
  const Node* root_ = nullptr;
};

}  // namespace strata::registry::avro
