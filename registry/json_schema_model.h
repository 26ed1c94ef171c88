// The model of JSON Schema that the compatibility check (json_schema_compat)
// reasons with: sets of types, views of schema nodes with the keywords
// already accounted for hidden, the role of each keyword, the types and
// values a schema admits, numeric bounds and array items. Internal to the
// registry's JSON Schema support.
//
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace strata::registry::json_model {

using nlohmann::json;

// ---- Types ------------------------------------------------------------------

// A set of JSON Schema types, bit i standing for kTypeOrder[i]. A schema of
// type "number" also admits the integers; the functions below account for it.
using TypeMask = unsigned;
constexpr std::array<std::string_view, 7> kTypeOrder = {"array",  "boolean", "integer", "null",
                                                        "number", "object",  "string"};
constexpr TypeMask kArray = 1u << 0;
constexpr TypeMask kBoolean = 1u << 1;
constexpr TypeMask kInteger = 1u << 2;
constexpr TypeMask kNull = 1u << 3;
constexpr TypeMask kNumber = 1u << 4;
constexpr TypeMask kObject = 1u << 5;
constexpr TypeMask kString = 1u << 6;
constexpr TypeMask kNumeric = kInteger | kNumber;
constexpr TypeMask kAnyType = (1u << kTypeOrder.size()) - 1;

TypeMask type_bit(std::string_view name);

// The types a value of both `a` and `b` may have: numbers of one and
// integers of the other meet in the integers.
TypeMask intersect(TypeMask a, TypeMask b);

bool types_within(TypeMask inner, TypeMask outer);

std::string type_list(TypeMask types);

TypeMask value_type(const json& v);

// A schema for one type, for splitting a writer of several types into parts.
const json& type_schema(size_t type_index);

const json& true_schema();

std::string quoted(const json& v);

// ---- Views of schemas ---------------------------------------------------------

// Keywords a view can hide once the comparison has accounted for them, so
// that the rest of the same schema can be compared on its own.
constexpr uint32_t kHideRef = 1;
constexpr uint32_t kHideAllOf = 2;
constexpr uint32_t kHideAnyOf = 4;
constexpr uint32_t kHideOneOf = 8;
constexpr uint32_t kHideNot = 16;

uint32_t hide_bit(std::string_view key);

// A schema node, the document its `$ref`s resolve in, and what it hides.
struct View {
  const json* node;
  size_t doc;
  uint32_t hidden = 0;
};

View hide(View v, uint32_t bits);

// The writer's schema at one place, as the intersection of these schemas:
// a document there satisfies all of them. Empty: anything may be written.
using Conj = std::vector<View>;

const json* member(const View& v, std::string_view key);

const json* object_member(const View& v, std::string_view key);

const json* array_member(const View& v, std::string_view key);

std::optional<double> number_member(const View& v, std::string_view key);

// ---- Keywords ---------------------------------------------------------------

enum class Role {
  kAnnotation,  // says nothing about which documents are valid
  kStructural,  // compared by a dedicated rule below
  kCompared,    // the reader's value must be the writer's
};

struct KeywordRole {
  std::string_view name;
  Role role;
  TypeMask applies = kAnyType;  // the types whose values the keyword constrains
  bool by_entry = false;        // an object compared entry by entry
};

// Keywords not listed (if/then/else, extensions) are compared as values: a
// reader that adds or changes one may reject what the writer writes.
KeywordRole role_of(std::string_view key);

// True when the schema admits every document: `true`, `{}`, or annotations
// only. Nodes that are no schema at all cannot pass validation; reading them
// as `true` keeps this function total.
bool is_trivial(const View& v);

// ---- Types and values a schema admits -----------------------------------------

TypeMask declared_types(const View& v);

bool contains_value(const std::vector<json>& values, const json& v);

// The values `enum` and `const` allow; nullopt when neither is present.
std::optional<std::vector<json>> allowed_values(const View& v);

TypeMask declared_writer_types(const Conj& w);

// All the values of `types` when there are few: those of null and boolean.
std::optional<std::vector<json>> values_of_types(TypeMask types);

// The values the writer may write, when some enum or const, or a type of
// few values, lists them.
std::optional<std::vector<json>> writer_values(const Conj& w);

// The types of the values the writer may write; 0 when it writes nothing.
TypeMask writer_types(const Conj& w);

// ---- Numeric bounds -------------------------------------------------------------

struct Bound {
  double value;
  bool exclusive;
};

bool tighter(const Bound& a, const Bound& b, bool upper);

std::optional<Bound> numeric_bound(const View& v, bool upper);

// The same bound on integers, made inclusive and integral.
Bound integral(const Bound& b, bool upper);

std::string_view bound_name(const Bound& b, bool upper);

std::string describe(const Bound& b, bool upper);

bool is_multiple(double value, double divisor);

// ---- Array items ------------------------------------------------------------------

// The schemas of an array's items: a tuple for the first positions (draft
// 4-2019 `items` as an array, 2020-12 `prefixItems`) and one for the rest.
struct Items {
  const json* tuple = nullptr;
  std::string_view tuple_key;
  const json* rest = nullptr;  // null: any item
  std::string_view rest_key = "items";

  const json* at(size_t i) const {
    return tuple != nullptr && i < tuple->size() ? &(*tuple)[i] : rest;
  }
};

Items items_of(const View& v);

}  // namespace strata::registry::json_model
