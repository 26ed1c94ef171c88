#include "registry/json_schema_set.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace strata::registry {
namespace {

using nlohmann::json;

// Deeper documents are refused before anything walks them recursively; real
// schemas nest a few dozen levels at most.
constexpr int kMaxJsonDepth = 256;

Error invalid(std::string_view where, std::string_view problem) {
  return Error(Errc::kInvalidArgument, fmt::format("Invalid schema: {}: {}", where, problem));
}

// nlohmann's message without its "[json.exception.parse_error.101] " tag;
// what remains names the line and column.
std::string parse_problem(const json::exception& e) {
  std::string_view what = e.what();
  if (size_t tag_end = what.find("] "); tag_end != std::string_view::npos) {
    what.remove_prefix(tag_end + 2);
  }
  return fmt::format("malformed JSON: {}", what);
}

Result<json> parse_json(const std::string& text, std::string_view where) {
  int deepest = 0;
  json::parser_callback_t track_depth = [&deepest](int depth, json::parse_event_t, json&) {
    deepest = std::max(deepest, depth);
    return true;
  };
  try {
    json parsed = json::parse(text, track_depth);
    if (deepest > kMaxJsonDepth) {
      return invalid(where, fmt::format("nested deeper than {} levels", kMaxJsonDepth));
    }
    return parsed;
  } catch (const json::exception& e) {
    return invalid(where, parse_problem(e));
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A URI fragment may percent-encode characters of the JSON pointer it holds.
std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int hi = hex_value(s[i + 1]);
      int lo = hex_value(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

const json* at_pointer(const json& doc, const std::string& pointer) {
  try {
    json::json_pointer ptr(pointer);
    if (!doc.contains(ptr)) return nullptr;
    return &doc.at(ptr);
  } catch (const json::exception&) {
    return nullptr;  // not a well-formed pointer, or an index that is not a number
  }
}

void collect_anchors(const json& node, std::map<std::string, const json*, std::less<>>& out) {
  if (node.is_object()) {
    if (auto it = node.find("$anchor"); it != node.end() && it->is_string()) {
      out.emplace(it->get<std::string>(), &node);
    }
    // Drafts 6 and 7 name a plain-name fragment with an `$id` of "#name".
    for (const char* key : {"$id", "id"}) {
      auto it = node.find(key);
      if (it == node.end() || !it->is_string()) continue;
      const auto& id = it->get_ref<const std::string&>();
      if (id.size() > 1 && id.front() == '#') out.emplace(id.substr(1), &node);
    }
    for (const auto& item : node.items())
      collect_anchors(item.value(), out);
  } else if (node.is_array()) {
    for (const json& element : node)
      collect_anchors(element, out);
  }
}

std::string document_id(const json& root) {
  if (!root.is_object()) return "";
  for (const char* key : {"$id", "id"}) {
    auto it = root.find(key);
    if (it == root.end() || !it->is_string()) continue;
    std::string id = it->get<std::string>();
    return id.substr(0, id.find('#'));
  }
  return "";
}

// What the validator demands of one keyword's value.
enum class Shape {
  kSchema,             // a schema
  kSchemaMap,          // an object whose values are schemas
  kSchemaList,         // a non-empty array of schemas
  kSchemaOrList,       // a schema or a non-empty array of schemas
  kTypes,              // a type name or a non-empty array of distinct names
  kNames,              // an array of distinct strings
  kNonEmptyArray,      // any values, at least one
  kNumber,             // any number
  kNumberOrBool,       // a number (draft 6+) or a boolean (draft 4)
  kPositiveNumber,     // a number above zero
  kCount,              // a non-negative integer
  kBool,               // true or false
  kString,             // any string
  kRef,                // a string that resolves to a schema
  kDependencies,       // an object of schemas or name arrays
  kDependentRequired,  // an object of name arrays
};

struct KeywordShape {
  std::string_view name;
  Shape shape;
};

// Keywords not listed here are annotations or extensions; any value goes.
constexpr KeywordShape kKeywordShapes[] = {
    {"$ref", Shape::kRef},
    {"$schema", Shape::kString},
    {"$id", Shape::kString},
    {"$anchor", Shape::kString},
    {"type", Shape::kTypes},
    {"enum", Shape::kNonEmptyArray},
    {"properties", Shape::kSchemaMap},
    {"patternProperties", Shape::kSchemaMap},
    {"definitions", Shape::kSchemaMap},
    {"$defs", Shape::kSchemaMap},
    {"dependentSchemas", Shape::kSchemaMap},
    {"additionalProperties", Shape::kSchema},
    {"additionalItems", Shape::kSchema},
    {"unevaluatedProperties", Shape::kSchema},
    {"unevaluatedItems", Shape::kSchema},
    {"propertyNames", Shape::kSchema},
    {"contains", Shape::kSchema},
    {"not", Shape::kSchema},
    {"if", Shape::kSchema},
    {"then", Shape::kSchema},
    {"else", Shape::kSchema},
    {"items", Shape::kSchemaOrList},
    {"prefixItems", Shape::kSchemaList},
    {"allOf", Shape::kSchemaList},
    {"anyOf", Shape::kSchemaList},
    {"oneOf", Shape::kSchemaList},
    {"required", Shape::kNames},
    {"minimum", Shape::kNumber},
    {"maximum", Shape::kNumber},
    {"exclusiveMinimum", Shape::kNumberOrBool},
    {"exclusiveMaximum", Shape::kNumberOrBool},
    {"multipleOf", Shape::kPositiveNumber},
    {"minLength", Shape::kCount},
    {"maxLength", Shape::kCount},
    {"minItems", Shape::kCount},
    {"maxItems", Shape::kCount},
    {"minProperties", Shape::kCount},
    {"maxProperties", Shape::kCount},
    {"minContains", Shape::kCount},
    {"maxContains", Shape::kCount},
    {"uniqueItems", Shape::kBool},
    {"pattern", Shape::kString},
    {"format", Shape::kString},
    {"dependencies", Shape::kDependencies},
    {"dependentRequired", Shape::kDependentRequired},
};

const KeywordShape* find_shape(std::string_view key) {
  for (const KeywordShape& k : kKeywordShapes) {
    if (k.name == key) return &k;
  }
  return nullptr;
}

constexpr std::string_view kTypeNames[] = {"array",  "boolean", "integer", "null",
                                           "number", "object",  "string"};

bool is_type_name(const json& v) {
  return v.is_string() && std::find(std::begin(kTypeNames), std::end(kTypeNames),
                                    v.get<std::string>()) != std::end(kTypeNames);
}

bool is_count(const json& v) {
  if (v.is_number_unsigned()) return true;
  if (v.is_number_integer()) return v.get<int64_t>() >= 0;
  // Draft 6 on counts 1.0 as the integer 1.
  if (v.is_number_float()) {
    double d = v.get<double>();
    return std::isfinite(d) && d >= 0 && std::floor(d) == d;
  }
  return false;
}

// Checks every schema reachable from the root and the references, visiting
// each node once (a `$ref` may lead to a node validated already).
class Validator {
 public:
  explicit Validator(const JsonSchemaSet& set) : set_(set) {}

  // A place in the set: document and JSON pointer (or anchor) within it.
  struct Where {
    size_t doc;
    std::string fragment;
    Where child(std::string_view token) const {
      return {doc, fragment + "/" + json_pointer_escape(token)};
    }
    Where child(size_t index) const { return {doc, fragment + "/" + std::to_string(index)}; }
  };

  Status schema(const Where& at, const json& s) {
    if (!visited_.insert(&s).second || s.is_boolean()) return ok_status();
    if (!s.is_object()) {
      return fail(at,
                  fmt::format("expected a schema (an object or a boolean), got {}", s.type_name()));
    }
    for (const auto& item : s.items()) {
      STRATA_TRY(keyword(at.child(item.key()), item.key(), item.value()));
    }
    return ok_status();
  }

 private:
  Status keyword(const Where& at, std::string_view key, const json& v) {
    const KeywordShape* k = find_shape(key);
    if (k == nullptr) return ok_status();
    switch (k->shape) {
      case Shape::kSchema: return schema(at, v);
      case Shape::kSchemaMap: return schema_map(at, v);
      case Shape::kSchemaList: return schema_list(at, v);
      case Shape::kSchemaOrList: return v.is_array() ? schema_list(at, v) : schema(at, v);
      case Shape::kTypes: return types(at, v);
      case Shape::kNames: return names(at, v);
      case Shape::kNonEmptyArray:
        return v.is_array() && !v.empty() ? ok_status() : fail(at, "expected a non-empty array");
      case Shape::kNumber: return v.is_number() ? ok_status() : fail(at, "expected a number");
      case Shape::kNumberOrBool:
        return v.is_number() || v.is_boolean() ? ok_status()
                                               : fail(at, "expected a number or a boolean");
      case Shape::kPositiveNumber:
        return v.is_number() && v.get<double>() > 0 ? ok_status()
                                                    : fail(at, "expected a number above 0");
      case Shape::kCount:
        return is_count(v) ? ok_status() : fail(at, "expected a non-negative integer");
      case Shape::kBool: return v.is_boolean() ? ok_status() : fail(at, "expected a boolean");
      case Shape::kString: return v.is_string() ? ok_status() : fail(at, "expected a string");
      case Shape::kRef: return ref(at, v);
      case Shape::kDependencies: return dependencies(at, v, /*schemas_allowed=*/true);
      case Shape::kDependentRequired: return dependencies(at, v, /*schemas_allowed=*/false);
    }
    return ok_status();
  }

  Status schema_map(const Where& at, const json& v) {
    if (!v.is_object()) return fail(at, "expected an object of schemas");
    for (const auto& item : v.items())
      STRATA_TRY(schema(at.child(item.key()), item.value()));
    return ok_status();
  }

  Status schema_list(const Where& at, const json& v) {
    if (!v.is_array() || v.empty()) return fail(at, "expected a non-empty array of schemas");
    for (size_t i = 0; i < v.size(); ++i)
      STRATA_TRY(schema(at.child(i), v[i]));
    return ok_status();
  }

  Status types(const Where& at, const json& v) {
    if (v.is_string()) {
      return is_type_name(v) ? ok_status() : fail(at, fmt::format("unknown type {}", v.dump()));
    }
    if (!v.is_array() || v.empty()) {
      return fail(at, "expected a type name or a non-empty array of type names");
    }
    std::set<std::string> seen;
    for (size_t i = 0; i < v.size(); ++i) {
      if (!is_type_name(v[i])) {
        return fail(at.child(i), fmt::format("unknown type {}", v[i].dump()));
      }
      if (!seen.insert(v[i].get<std::string>()).second) {
        return fail(at.child(i), fmt::format("type {} listed twice", v[i].dump()));
      }
    }
    return ok_status();
  }

  Status names(const Where& at, const json& v) {
    if (!v.is_array()) return fail(at, "expected an array of property names");
    std::set<std::string> seen;
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) return fail(at.child(i), "expected a property name (a string)");
      if (!seen.insert(v[i].get<std::string>()).second) {
        return fail(at.child(i), fmt::format("{} listed twice", v[i].dump()));
      }
    }
    return ok_status();
  }

  Status dependencies(const Where& at, const json& v, bool schemas_allowed) {
    if (!v.is_object()) return fail(at, "expected an object");
    for (const auto& item : v.items()) {
      Where entry = at.child(item.key());
      if (schemas_allowed && !item.value().is_array()) {
        STRATA_TRY(schema(entry, item.value()));
      } else {
        STRATA_TRY(names(entry, item.value()));
      }
    }
    return ok_status();
  }

  Status ref(const Where& at, const json& v) {
    if (!v.is_string()) return fail(at, "expected a string");
    const auto& text = v.get_ref<const std::string&>();
    std::optional<JsonSchemaSet::Target> target = set_.resolve(at.doc, text);
    if (!target) {
      bool local = text.empty() || text.front() == '#';
      return fail(at, local ? fmt::format("\"{}\" does not resolve within the document", text)
                            : fmt::format("unknown reference \"{}\" (not among the schema's "
                                          "references)",
                                          text));
    }
    return schema(Where{target->doc, target->fragment}, *target->node);
  }

  Error fail(const Where& at, std::string_view problem) const {
    return invalid(set_.location(at.doc, at.fragment), problem);
  }

  const JsonSchemaSet& set_;
  std::set<const json*> visited_;
};

}  // namespace

std::string json_pointer_escape(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

Result<JsonSchemaSet> JsonSchemaSet::parse(const SchemaText& text) {
  std::vector<std::unique_ptr<Document>> docs;
  docs.push_back(std::make_unique<Document>());
  STRATA_ASSIGN_OR_RETURN(docs.back()->json, parse_json(text.schema, "#"));
  for (const auto& [name, schema] : text.references) {
    docs.push_back(std::make_unique<Document>());
    docs.back()->name = name;
    STRATA_ASSIGN_OR_RETURN(docs.back()->json,
                            parse_json(schema, fmt::format("reference \"{}\"", name)));
  }
  for (auto& doc : docs) {
    doc->id = document_id(doc->json);
    collect_anchors(doc->json, doc->anchors);
  }
  JsonSchemaSet set(std::move(docs));
  Validator validator(set);
  for (size_t i = 0; i < set.docs_.size(); ++i) {
    STRATA_TRY(validator.schema(Validator::Where{i, ""}, set.docs_[i]->json));
  }
  return set;
}

std::string JsonSchemaSet::canonical_text() const {
  // Parsing checked the UTF-8 already; `replace` only keeps dump() from throwing.
  return root().dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<size_t> JsonSchemaSet::find_document(std::string_view ref,
                                                   std::string_view base) const {
  // A reference is named by the `$ref` that uses it, with or without a fragment.
  for (size_t i = 1; i < docs_.size(); ++i) {
    if (docs_[i]->name == ref || docs_[i]->name == base) return i;
  }
  for (size_t i = 0; i < docs_.size(); ++i) {
    if (!docs_[i]->id.empty() && docs_[i]->id == base) return i;
  }
  return std::nullopt;
}

std::optional<JsonSchemaSet::Target> JsonSchemaSet::resolve(size_t doc,
                                                            std::string_view ref) const {
  size_t hash = ref.find('#');
  std::string_view base = ref.substr(0, hash);
  std::string fragment = hash == std::string_view::npos ? "" : percent_decode(ref.substr(hash + 1));
  size_t target_doc = doc;
  if (!base.empty()) {
    std::optional<size_t> found = find_document(ref, base);
    if (!found) return std::nullopt;
    // A reference registered under the whole `$ref`, fragment included, is
    // the schema the fragment meant.
    if (*found != 0 && docs_[*found]->name == ref) fragment.clear();
    target_doc = *found;
  }
  const Document& d = *docs_[target_doc];
  if (fragment.empty()) return Target{target_doc, &d.json, ""};
  if (fragment.front() == '/') {
    const json* node = at_pointer(d.json, fragment);
    if (node == nullptr) return std::nullopt;
    return Target{target_doc, node, std::move(fragment)};
  }
  auto anchor = d.anchors.find(fragment);
  if (anchor == d.anchors.end()) return std::nullopt;
  return Target{target_doc, anchor->second, std::move(fragment)};
}

std::string JsonSchemaSet::location(size_t doc, std::string_view fragment) const {
  return fmt::format("{}#{}", docs_[doc]->name, fragment);
}

}  // namespace strata::registry
