#include "registry/json_schema_model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace strata::registry::json_model {

// Values quoted in messages are cut to this many characters.
constexpr size_t kMaxQuotedSize = 200;

// ---- Types ------------------------------------------------------------------

TypeMask type_bit(std::string_view name) {
  for (size_t i = 0; i < kTypeOrder.size(); ++i) {
    if (kTypeOrder[i] == name) return 1u << i;
  }
  return 0;
}

TypeMask intersect(TypeMask a, TypeMask b) {
  TypeMask both = a & b;
  if ((both & kNumber) == 0 && (a & kNumeric) != 0 && (b & kNumeric) != 0) both |= kInteger;
  return both;
}

bool types_within(TypeMask inner, TypeMask outer) {
  if ((outer & kNumber) != 0) outer |= kInteger;
  return (inner & ~outer) == 0;
}

std::string type_list(TypeMask types) {
  if (types == kAnyType) return "any type";
  json names = json::array();
  for (size_t i = 0; i < kTypeOrder.size(); ++i) {
    if ((types & (1u << i)) != 0) names.push_back(kTypeOrder[i]);
  }
  return names.dump();
}

TypeMask value_type(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return kNull;
    case json::value_t::boolean: return kBoolean;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return kInteger;
    case json::value_t::number_float: {
      double d = v.get<double>();
      return std::isfinite(d) && std::floor(d) == d ? kInteger : kNumber;
    }
    case json::value_t::string: return kString;
    case json::value_t::array: return kArray;
    case json::value_t::object: return kObject;
    default: return 0;
  }
}

const json& type_schema(size_t type_index) {
  static const std::array<json, kTypeOrder.size()> schemas = [] {
    std::array<json, kTypeOrder.size()> out;
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = json::object();
      out[i]["type"] = kTypeOrder[i];
    }
    return out;
  }();
  return schemas[type_index];
}

const json& true_schema() {
  static const json schema = true;
  return schema;
}

std::string quoted(const json& v) {
  std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > kMaxQuotedSize) text = text.substr(0, kMaxQuotedSize) + "...";
  return text;
}

// ---- Views of schemas ---------------------------------------------------------

uint32_t hide_bit(std::string_view key) {
  if (key == "$ref") return kHideRef;
  if (key == "allOf") return kHideAllOf;
  if (key == "anyOf") return kHideAnyOf;
  if (key == "oneOf") return kHideOneOf;
  if (key == "not") return kHideNot;
  return 0;
}

View hide(View v, uint32_t bits) {
  v.hidden |= bits;
  return v;
}

const json* member(const View& v, std::string_view key) {
  if (!v.node->is_object() || (hide_bit(key) & v.hidden) != 0) return nullptr;
  auto it = v.node->find(key);
  return it == v.node->end() ? nullptr : &*it;
}

const json* object_member(const View& v, std::string_view key) {
  const json* m = member(v, key);
  return m != nullptr && m->is_object() ? m : nullptr;
}

const json* array_member(const View& v, std::string_view key) {
  const json* m = member(v, key);
  return m != nullptr && m->is_array() ? m : nullptr;
}

std::optional<double> number_member(const View& v, std::string_view key) {
  const json* m = member(v, key);
  if (m == nullptr || !m->is_number()) return std::nullopt;
  return m->get<double>();
}

// ---- Keywords ---------------------------------------------------------------

constexpr KeywordRole kKeywordRoles[] = {
    {"$ref", Role::kStructural},
    {"allOf", Role::kStructural},
    {"anyOf", Role::kStructural},
    {"oneOf", Role::kStructural},
    {"not", Role::kStructural},
    {"type", Role::kStructural},
    {"enum", Role::kStructural},
    {"const", Role::kStructural},
    {"minimum", Role::kStructural},
    {"maximum", Role::kStructural},
    {"exclusiveMinimum", Role::kStructural},
    {"exclusiveMaximum", Role::kStructural},
    {"multipleOf", Role::kStructural},
    {"minLength", Role::kStructural},
    {"maxLength", Role::kStructural},
    {"pattern", Role::kStructural},
    {"items", Role::kStructural},
    {"prefixItems", Role::kStructural},
    {"additionalItems", Role::kStructural},
    {"minItems", Role::kStructural},
    {"maxItems", Role::kStructural},
    {"uniqueItems", Role::kStructural},
    {"properties", Role::kStructural},
    {"patternProperties", Role::kStructural},
    {"additionalProperties", Role::kStructural},
    {"required", Role::kStructural},
    {"minProperties", Role::kStructural},
    {"maxProperties", Role::kStructural},
    {"$schema", Role::kAnnotation},
    {"$id", Role::kAnnotation},
    {"id", Role::kAnnotation},
    {"$anchor", Role::kAnnotation},
    {"$dynamicAnchor", Role::kAnnotation},
    {"$recursiveAnchor", Role::kAnnotation},
    {"$vocabulary", Role::kAnnotation},
    {"$comment", Role::kAnnotation},
    {"title", Role::kAnnotation},
    {"description", Role::kAnnotation},
    {"default", Role::kAnnotation},
    {"examples", Role::kAnnotation},
    {"readOnly", Role::kAnnotation},
    {"writeOnly", Role::kAnnotation},
    {"deprecated", Role::kAnnotation},
    {"definitions", Role::kAnnotation},  // reached through `$ref` only
    {"$defs", Role::kAnnotation},
    {"format", Role::kCompared, kString},
    {"contentEncoding", Role::kCompared, kString},
    {"contentMediaType", Role::kCompared, kString},
    {"contentSchema", Role::kCompared, kString},
    {"contains", Role::kCompared, kArray},
    {"minContains", Role::kCompared, kArray},
    {"maxContains", Role::kCompared, kArray},
    {"unevaluatedItems", Role::kCompared, kArray},
    {"propertyNames", Role::kCompared, kObject},
    {"unevaluatedProperties", Role::kCompared, kObject},
    {"dependencies", Role::kCompared, kObject, true},
    {"dependentRequired", Role::kCompared, kObject, true},
    {"dependentSchemas", Role::kCompared, kObject, true},
};

KeywordRole role_of(std::string_view key) {
  for (const KeywordRole& k : kKeywordRoles) {
    if (k.name == key) return k;
  }
  return {key, Role::kCompared};
}

bool is_trivial(const View& v) {
  if (v.node->is_boolean()) return v.node->get<bool>();
  if (!v.node->is_object()) return true;
  for (const auto& item : v.node->items()) {
    if ((hide_bit(item.key()) & v.hidden) != 0) continue;
    if (role_of(item.key()).role != Role::kAnnotation) return false;
  }
  return true;
}

// ---- Types and values a schema admits -----------------------------------------

TypeMask declared_types(const View& v) {
  const json* type = member(v, "type");
  if (type == nullptr) return kAnyType;
  if (type->is_string()) return type_bit(type->get<std::string>());
  if (!type->is_array()) return kAnyType;
  TypeMask out = 0;
  for (const json& name : *type) {
    if (name.is_string()) out |= type_bit(name.get<std::string>());
  }
  return out;
}

bool contains_value(const std::vector<json>& values, const json& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

std::optional<std::vector<json>> allowed_values(const View& v) {
  std::optional<std::vector<json>> values;
  if (const json* list = array_member(v, "enum")) values.emplace(list->begin(), list->end());
  if (const json* only = member(v, "const")) {
    if (!values) {
      values.emplace(1, *only);
    } else {
      std::erase_if(*values, [&](const json& value) { return value != *only; });
    }
  }
  return values;
}

TypeMask declared_writer_types(const Conj& w) {
  TypeMask types = kAnyType;
  for (const View& c : w)
    types = intersect(types, declared_types(c));
  return types;
}

std::optional<std::vector<json>> values_of_types(TypeMask types) {
  if (types == 0 || (types & ~(kNull | kBoolean)) != 0) return std::nullopt;
  std::vector<json> values;
  if ((types & kNull) != 0) values.emplace_back(nullptr);
  if ((types & kBoolean) != 0) {
    values.emplace_back(false);
    values.emplace_back(true);
  }
  return values;
}

std::optional<std::vector<json>> writer_values(const Conj& w) {
  std::optional<std::vector<json>> values = values_of_types(declared_writer_types(w));
  for (const View& c : w) {
    std::optional<std::vector<json>> own = allowed_values(c);
    if (!own) continue;
    if (!values) {
      values = std::move(own);
    } else {
      std::erase_if(*values, [&](const json& v) { return !contains_value(*own, v); });
    }
  }
  if (values) {
    TypeMask declared = declared_writer_types(w);
    std::erase_if(*values, [&](const json& v) { return !types_within(value_type(v), declared); });
  }
  return values;
}

TypeMask writer_types(const Conj& w) {
  TypeMask types = declared_writer_types(w);
  if (std::optional<std::vector<json>> values = writer_values(w)) {
    TypeMask of_values = 0;
    for (const json& v : *values)
      of_values |= value_type(v);
    types = intersect(types, of_values);
  }
  return types;
}

// ---- Numeric bounds -------------------------------------------------------------

bool tighter(const Bound& a, const Bound& b, bool upper) {
  if (a.value != b.value) return upper ? a.value < b.value : a.value > b.value;
  return a.exclusive && !b.exclusive;
}

std::optional<Bound> numeric_bound(const View& v, bool upper) {
  const json* inclusive = member(v, upper ? "maximum" : "minimum");
  const json* exclusive = member(v, upper ? "exclusiveMaximum" : "exclusiveMinimum");
  std::optional<Bound> out;
  if (inclusive != nullptr && inclusive->is_number()) {
    // Draft 4 makes the bound exclusive with a boolean beside it.
    bool draft4_exclusive =
        exclusive != nullptr && exclusive->is_boolean() && exclusive->get<bool>();
    out = Bound{inclusive->get<double>(), draft4_exclusive};
  }
  if (exclusive != nullptr && exclusive->is_number()) {
    Bound b{exclusive->get<double>(), true};
    if (!out || tighter(b, *out, upper)) out = b;
  }
  return out;
}

Bound integral(const Bound& b, bool upper) {
  if (upper) return {b.exclusive ? std::ceil(b.value) - 1 : std::floor(b.value), false};
  return {b.exclusive ? std::floor(b.value) + 1 : std::ceil(b.value), false};
}

std::string_view bound_name(const Bound& b, bool upper) {
  if (upper) return b.exclusive ? "exclusiveMaximum" : "maximum";
  return b.exclusive ? "exclusiveMinimum" : "minimum";
}

std::string describe(const Bound& b, bool upper) {
  return fmt::format("{}{} {}", upper ? "<" : ">", b.exclusive ? "" : "=", b.value);
}

bool is_multiple(double value, double divisor) {
  double quotient = value / divisor;
  return std::abs(quotient - std::round(quotient)) <= 1e-9 * std::max(1.0, std::abs(quotient));
}

// ---- Array items ------------------------------------------------------------------

Items items_of(const View& v) {
  const json* prefix = array_member(v, "prefixItems");
  const json* items = member(v, "items");
  if (prefix != nullptr) {
    return {prefix, "prefixItems", items != nullptr && !items->is_array() ? items : nullptr};
  }
  if (items != nullptr && items->is_array()) {
    return {items, "items", member(v, "additionalItems"), "additionalItems"};
  }
  return {nullptr, "", items};
}

}  // namespace strata::registry::json_model
