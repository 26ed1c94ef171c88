#include "registry/avro_schema.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

namespace strata::registry::avro {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// A default value quoted in an error message is cut to this many bytes.
constexpr size_t kMaxQuotedBytes = 80;

constexpr std::array<std::pair<std::string_view, Kind>, 8> kPrimitives = {{
    {"null", Kind::kNull},
    {"boolean", Kind::kBoolean},
    {"int", Kind::kInt},
    {"long", Kind::kLong},
    {"float", Kind::kFloat},
    {"double", Kind::kDouble},
    {"bytes", Kind::kBytes},
    {"string", Kind::kString},
}};

std::optional<Kind> primitive_kind(std::string_view name) {
  for (const auto& [text, kind] : kPrimitives)
    if (text == name) return kind;
  return std::nullopt;
}

bool is_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9');
}

// [A-Za-z_][A-Za-z0-9_]*
bool is_simple_name(std::string_view s) {
  return !s.empty() && is_name_start(s.front()) &&
         std::all_of(s.begin() + 1, s.end(), is_name_char);
}

// Simple names joined by dots: "com.example.User".
bool is_dotted_name(std::string_view s) {
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    if (!is_simple_name(s.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// The full name of `name` written inside namespace `space`.
std::string qualify(std::string_view name, std::string_view space) {
  if (name.find('.') != std::string_view::npos || space.empty()) return std::string(name);
  return fmt::format("{}.{}", space, name);
}

// The deepest nesting of arrays and objects in JSON text, found without
// parsing it so that hostile input is refused before anything recurses.
int json_depth(std::string_view text) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    if (c == ']' || c == '}') --depth;
  }
  return deepest;
}

// `value` as compact JSON for an error message, cut short (on a UTF-8
// character boundary, so the message stays valid text) when long.
std::string quote(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() <= kMaxQuotedBytes) return text;
  size_t cut = kMaxQuotedBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  return text.substr(0, cut) + "…";
}

bool integer_in(const json& v, int64_t lo, int64_t hi) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= static_cast<uint64_t>(hi);
  if (v.is_number_integer()) {
    auto x = v.get<int64_t>();
    return x >= lo && x <= hi;
  }
  return false;
}

bool contains(const std::vector<std::string>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// Whether `v` is a valid default for `type`. Bytes and fixed defaults are
// JSON strings (a character per byte); their length is not checked.
bool default_matches(const Node& type, const json& v) {
  switch (type.kind) {
    case Kind::kNull: return v.is_null();
    case Kind::kBoolean: return v.is_boolean();
    case Kind::kInt:
      return integer_in(v, std::numeric_limits<int32_t>::min(),
                        std::numeric_limits<int32_t>::max());
    case Kind::kLong:
      return integer_in(v, std::numeric_limits<int64_t>::min(),
                        std::numeric_limits<int64_t>::max());
    case Kind::kFloat:
    case Kind::kDouble: return v.is_number();
    case Kind::kBytes:
    case Kind::kString:
    case Kind::kFixed: return v.is_string();
    case Kind::kEnum:
      return v.is_string() && contains(type.symbols, v.get_ref<const std::string&>());
    case Kind::kArray:
      return v.is_array() && std::all_of(v.begin(), v.end(), [&](const json& e) {
               return default_matches(*type.items, e);
             });
    case Kind::kMap:
      return v.is_object() && std::all_of(v.begin(), v.end(), [&](const json& e) {
               return default_matches(*type.items, e);
             });
    case Kind::kUnion:
      // The specification gives a union's default the type of its first branch.
      return !type.branches.empty() && default_matches(*type.branches.front(), v);
    case Kind::kRecord:
      return v.is_object() &&
             std::all_of(type.fields.begin(), type.fields.end(), [&](const Field& f) {
               auto it = v.find(f.name);
               return it != v.end() ? default_matches(*f.type, *it) : f.default_value.has_value();
             });
  }
  return false;
}

// "an int", "a record 'com.x.User'": what a default for `type` must be.
std::string expected_default(const Node& type) {
  if (type.kind == Kind::kUnion) {
    if (type.branches.empty()) return "possible for an empty union";
    return expected_default(*type.branches.front());
  }
  if (type.kind == Kind::kNull || type.kind == Kind::kBytes)
    return std::string(kind_name(type.kind));
  std::string what = is_named(type.kind)
                         ? fmt::format("{} '{}'", kind_name(type.kind), type.full_name)
                         : std::string(kind_name(type.kind));
  bool vowel = std::string_view("aeiou").find(what.front()) != std::string_view::npos;
  return fmt::format("{} {}", vowel ? "an" : "a", what);
}

// Keys of `j` that are not in `known`: attributes kept as they were written.
json other_attributes(const json& j, std::initializer_list<std::string_view> known) {
  json out = json::object();
  for (const auto& [key, value] : j.items())
    if (std::find(known.begin(), known.end(), key) == known.end()) out[key] = value;
  return out;
}

// Sets a variable for the life of a scope and then puts the old value back.
template <typename T>
class ScopedValue {
 public:
  ScopedValue(T& var, T value) : var_(var), saved_(std::move(var)) { var_ = std::move(value); }
  ~ScopedValue() { var_ = std::move(saved_); }
  ScopedValue(const ScopedValue&) = delete;
  ScopedValue& operator=(const ScopedValue&) = delete;

 private:
  T& var_;
  T saved_;
};

// Where the parser is, for error messages: the named type being defined
// and, inside a record, the field.
struct Location {
  const Node* type = nullptr;
  std::string field;
};

using Reference = std::pair<std::string, std::string>;

enum class RefState { kPending, kWaiting, kDone };

// The references of a schema and how far parsing them has got.
struct References {
  const std::vector<Reference>& refs;
  std::vector<RefState> state;
  std::unordered_map<std::string_view, size_t> by_name;
};

class Parser {
 public:
  explicit Parser(std::vector<std::unique_ptr<Node>>& arena) : arena_(arena) {}

  // Parses the references so that each finds the named types it uses,
  // whatever order they come in. A reference that lacks a type is retried
  // after the reference of that name (for Avro, a reference is named by the
  // full name of the type it defines); a type found otherwise, say nested in
  // another reference's type, is reached by another pass over the rest.
  Status parse_references(const std::vector<Reference>& refs) {
    References set{
        .refs = refs, .state = std::vector(refs.size(), RefState::kPending), .by_name = {}};
    for (size_t i = 0; i < refs.size(); ++i)
      set.by_name.try_emplace(refs[i].first, i);
    size_t left = refs.size();
    while (left > 0) {
      std::optional<Error> first_error;
      for (size_t i = 0; i < refs.size(); ++i) {
        if (set.state[i] != RefState::kPending) continue;
        Status parsed = parse_with_dependencies(set, i);
        if (!parsed && !first_error) first_error = std::move(parsed).error();
      }
      size_t now_left = std::count(set.state.begin(), set.state.end(), RefState::kPending);
      if (now_left == left) return *first_error;
      left = now_left;
    }
    return ok_status();
  }

  // Parses refs[first], parsing before it every pending reference named
  // like a type it lacks, and theirs in turn (depth first, on a stack of
  // its own so that a long chain cannot exhaust the thread's).
  Status parse_with_dependencies(References& set, size_t first) {
    std::vector<size_t> waiting = {first};
    set.state[first] = RefState::kWaiting;
    while (!waiting.empty()) {
      const Reference& ref = set.refs[waiting.back()];
      Result<const Node*> parsed = parse_document(ref.second, ref.first);
      if (parsed) {
        set.state[waiting.back()] = RefState::kDone;
        waiting.pop_back();
        continue;
      }
      std::optional<size_t> needed = pending_reference_for_missing(set);
      if (!needed) {
        for (size_t i : waiting)
          set.state[i] = RefState::kPending;
        return std::move(parsed).error();
      }
      set.state[*needed] = RefState::kWaiting;
      waiting.push_back(*needed);
    }
    return ok_status();
  }

  // The pending reference named like the type the last document lacked.
  std::optional<size_t> pending_reference_for_missing(const References& set) const {
    for (const std::string& name : missing_) {
      auto it = set.by_name.find(name);
      if (it != set.by_name.end() && set.state[it->second] == RefState::kPending) return it->second;
    }
    return std::nullopt;
  }

  // Parses one JSON document, `reference` naming it when it is not the
  // schema itself. The names it defines stay known only if it parses, so a
  // reference that failed can be tried again after the others.
  Result<const Node*> parse_document(std::string_view text, std::optional<std::string> reference) {
    document_ = std::move(reference);
    missing_.clear();
    location_ = {};
    defined_.clear();
    const size_t first_record = records_.size();
    Result<const Node*> root = parse_json(text);
    Status defaults = root ? check_defaults(first_record) : ok_status();
    if (root && defaults) return root;
    for (const std::string& name : defined_)
      names_.erase(name);
    records_.resize(first_record);
    return root ? std::move(defaults).error() : std::move(root).error();
  }

 private:
  Result<const Node*> parse_json(std::string_view text) {
    if (json_depth(text) > kMaxJsonDepth)
      return invalid(fmt::format("JSON nests deeper than {} levels", kMaxJsonDepth));
    try {
      json j = json::parse(text);
      return parse_type(j, "");
    } catch (const json::parse_error& e) {
      return invalid(fmt::format("malformed JSON: {}", e.what()));
    } catch (const json::exception& e) {
      // Every access is checked first; this is a net, not a path.
      return invalid(e.what());
    }
  }

  Result<const Node*> parse_type(const json& j, const std::string& space) {
    if (j.is_string()) return resolve(j.get_ref<const std::string&>(), space);
    if (j.is_array()) return parse_union(j, space);
    if (j.is_object()) return parse_object(j, space);
    return invalid(fmt::format("{} is not a type", quote(j)));
  }

  // A type written as a name: a primitive, or a named type defined earlier
  // (looked up in the enclosing namespace first, then in the null one).
  Result<const Node*> resolve(const std::string& name, const std::string& space) {
    if (auto kind = primitive_kind(name)) return &new_node(*kind);
    if (name.find('.') == std::string::npos && !space.empty()) {
      if (auto it = names_.find(qualify(name, space)); it != names_.end()) return it->second;
    }
    if (auto it = names_.find(name); it != names_.end()) return it->second;
    missing_ = {name};
    if (name.find('.') == std::string::npos && !space.empty())
      missing_.push_back(qualify(name, space));
    return invalid(fmt::format("unknown type '{}'", name));
  }

  Result<const Node*> parse_union(const json& j, const std::string& space) {
    Node& node = new_node(Kind::kUnion);
    // Unnamed branches are told apart by kind, named ones by full name.
    std::unordered_set<std::string> seen;
    for (const json& b : j) {
      STRATA_ASSIGN_OR_RETURN(const Node* branch, parse_type(b, space));
      if (branch->kind == Kind::kUnion) return invalid("a union may not directly contain a union");
      bool named = is_named(branch->kind);
      std::string key = named ? "named " + branch->full_name : std::string(kind_name(branch->kind));
      if (!seen.insert(key).second) {
        return invalid(fmt::format("union has more than one branch of type '{}'",
                                   named ? branch->full_name : kind_name(branch->kind)));
      }
      node.branches.push_back(branch);
    }
    return &node;
  }

  Result<const Node*> parse_object(const json& j, const std::string& space) {
    auto type = j.find("type");
    if (type == j.end()) return invalid(fmt::format("no \"type\" in {}", quote(j)));
    if (!type->is_string())
      return invalid(fmt::format("\"type\" {} is not a string", quote(*type)));
    const std::string& t = type->get_ref<const std::string&>();
    if (auto kind = primitive_kind(t)) return parse_annotated_primitive(j, *kind);
    if (t == "record" || t == "error") return parse_record(j, space, t == "error");
    if (t == "enum") return parse_enum(j, space);
    if (t == "fixed") return parse_fixed(j, space);
    if (t == "array") return parse_container(j, space, Kind::kArray, "items");
    if (t == "map") return parse_container(j, space, Kind::kMap, "values");
    // {"type": "com.x.User"} names a type defined earlier, as Avro's parser allows.
    return resolve(t, space);
  }

  Result<const Node*> parse_annotated_primitive(const json& j, Kind kind) {
    Node& node = new_node(kind);
    keep_attributes(node, j, {"type"});
    return &node;
  }

  Result<const Node*> parse_container(const json& j, const std::string& space, Kind kind,
                                      const char* key) {
    auto element = j.find(key);
    if (element == j.end()) return invalid(fmt::format("{} has no \"{}\"", kind_name(kind), key));
    Node& node = new_node(kind);
    STRATA_ASSIGN_OR_RETURN(node.items, parse_type(*element, space));
    keep_attributes(node, j, {"type", key});
    return &node;
  }

  Result<const Node*> parse_record(const json& j, const std::string& enclosing, bool is_error) {
    STRATA_ASSIGN_OR_RETURN(Node * record, define_named(j, Kind::kRecord, enclosing));
    record->is_error = is_error;
    ScopedValue<Location> at(location_, {record, ""});
    auto fields = j.find("fields");
    if (fields == j.end() || !fields->is_array()) return invalid("no \"fields\" array");
    std::unordered_set<std::string> names;
    for (const json& f : *fields) {
      STRATA_ASSIGN_OR_RETURN(Field field, parse_field(f, record->space));
      if (!names.insert(field.name).second)
        return invalid(fmt::format("duplicate field '{}'", field.name));
      record->fields.push_back(std::move(field));
    }
    keep_attributes(*record, j, {"type", "name", "namespace", "doc", "aliases", "fields"});
    records_.push_back(record);
    return record;
  }

  Result<Field> parse_field(const json& j, const std::string& space) {
    if (!j.is_object()) return invalid(fmt::format("field {} is not an object", quote(j)));
    auto name = j.find("name");
    if (name == j.end() || !name->is_string())
      return invalid(fmt::format("field {} has no \"name\" string", quote(j)));
    Field field;
    field.name = name->get<std::string>();
    if (!is_simple_name(field.name))
      return invalid(fmt::format("invalid field name '{}'", field.name));
    ScopedValue<std::string> in_field(location_.field, field.name);
    auto type = j.find("type");
    if (type == j.end()) return invalid("no \"type\"");
    STRATA_ASSIGN_OR_RETURN(field.type, parse_type(*type, space));
    // A present "default": null is a default (of null), unlike a missing one.
    if (auto d = j.find("default"); d != j.end()) field.default_value = *d;
    STRATA_ASSIGN_OR_RETURN(field.doc, optional_string(j, "doc"));
    STRATA_ASSIGN_OR_RETURN(field.order, optional_string(j, "order"));
    if (field.order && *field.order != "ascending" && *field.order != "descending" &&
        *field.order != "ignore") {
      return invalid(
          fmt::format("order '{}' is not ascending, descending or ignore", *field.order));
    }
    STRATA_ASSIGN_OR_RETURN(field.aliases, field_aliases(j));
    field.attributes = other_attributes(j, {"name", "type", "default", "doc", "order", "aliases"});
    return field;
  }

  Result<const Node*> parse_enum(const json& j, const std::string& enclosing) {
    STRATA_ASSIGN_OR_RETURN(Node * node, define_named(j, Kind::kEnum, enclosing));
    ScopedValue<Location> at(location_, {node, ""});
    auto symbols = j.find("symbols");
    if (symbols == j.end() || !symbols->is_array()) return invalid("no \"symbols\" array");
    for (const json& s : *symbols) {
      if (!s.is_string() || !is_simple_name(s.get_ref<const std::string&>()))
        return invalid(fmt::format("invalid symbol {}", quote(s)));
      const std::string& symbol = s.get_ref<const std::string&>();
      if (contains(node->symbols, symbol))
        return invalid(fmt::format("duplicate symbol '{}'", symbol));
      node->symbols.push_back(symbol);
    }
    STRATA_ASSIGN_OR_RETURN(node->enum_default, optional_string(j, "default"));
    if (node->enum_default && !contains(node->symbols, *node->enum_default))
      return invalid(fmt::format("default '{}' is not one of its symbols", *node->enum_default));
    keep_attributes(*node, j,
                    {"type", "name", "namespace", "doc", "aliases", "symbols", "default"});
    return node;
  }

  Result<const Node*> parse_fixed(const json& j, const std::string& enclosing) {
    STRATA_ASSIGN_OR_RETURN(Node * node, define_named(j, Kind::kFixed, enclosing));
    ScopedValue<Location> at(location_, {node, ""});
    auto size = j.find("size");
    if (size == j.end()) return invalid("no \"size\"");
    if (!integer_in(*size, 0, std::numeric_limits<int32_t>::max()))
      return invalid(fmt::format("size {} is not an integer from 0 to 2^31-1", quote(*size)));
    node->size = size->get<int64_t>();
    keep_attributes(*node, j, {"type", "name", "namespace", "doc", "aliases", "size"});
    return node;
  }

  // Reads what every named type has (name, namespace, doc, aliases) and
  // registers its full name at once, so that references inside its own
  // fields find it: that is how a type refers to itself.
  Result<Node*> define_named(const json& j, Kind kind, const std::string& enclosing) {
    auto name = j.find("name");
    if (name == j.end() || !name->is_string())
      return invalid(fmt::format("{} has no \"name\" string", kind_name(kind)));
    const std::string& written = name->get_ref<const std::string&>();
    STRATA_ASSIGN_OR_RETURN(std::optional<std::string> own_space, optional_string(j, "namespace"));
    // A dotted name carries its namespace and overrides any other.
    size_t dot = written.rfind('.');
    std::string space = dot != std::string::npos ? written.substr(0, dot)
                        : own_space              ? *own_space
                                                 : enclosing;
    if (!space.empty() && !is_dotted_name(space))
      return invalid(fmt::format("invalid namespace '{}'", space));
    std::string full = qualify(written, space);
    if (!is_dotted_name(full)) return invalid(fmt::format("invalid name '{}'", written));
    if (primitive_kind(unqualified_name(full)))
      return invalid(fmt::format("'{}' is a primitive type and cannot be redefined", written));
    if (names_.contains(full)) return invalid(fmt::format("'{}' is defined twice", full));

    Node& node = new_node(kind);
    node.full_name = full;
    node.space = space;
    STRATA_ASSIGN_OR_RETURN(node.doc, optional_string(j, "doc"));
    STRATA_ASSIGN_OR_RETURN(node.aliases, type_aliases(j, space));
    names_.emplace(full, &node);
    defined_.push_back(full);
    return &node;
  }

  // A named type's aliases, as full names (a short one is relative to the
  // type's namespace).
  Result<std::vector<std::string>> type_aliases(const json& j, const std::string& space) {
    STRATA_ASSIGN_OR_RETURN(std::vector<std::string> aliases, string_list(j, "aliases"));
    for (std::string& alias : aliases) {
      if (!is_dotted_name(alias)) return invalid(fmt::format("invalid alias '{}'", alias));
      alias = qualify(alias, space);
    }
    return aliases;
  }

  Result<std::vector<std::string>> field_aliases(const json& j) {
    STRATA_ASSIGN_OR_RETURN(std::vector<std::string> aliases, string_list(j, "aliases"));
    for (const std::string& alias : aliases)
      if (!is_simple_name(alias)) return invalid(fmt::format("invalid alias '{}'", alias));
    return aliases;
  }

  Result<std::vector<std::string>> string_list(const json& j, const char* key) {
    std::vector<std::string> out;
    auto it = j.find(key);
    if (it == j.end()) return out;
    if (!it->is_array()) return invalid(fmt::format("\"{}\" is not an array", key));
    for (const json& s : *it) {
      if (!s.is_string()) return invalid(fmt::format("\"{}\" has {}, not a string", key, quote(s)));
      out.push_back(s.get<std::string>());
    }
    return out;
  }

  // The string at `key`; null or absent is nullopt.
  Result<std::optional<std::string>> optional_string(const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::optional<std::string>();
    if (!it->is_string()) return invalid(fmt::format("\"{}\" {} is not a string", key, quote(*it)));
    return std::optional<std::string>(it->get<std::string>());
  }

  // Keeps the keys the specification does not give `node` as attributes; a
  // string logicalType is lifted out of them.
  static void keep_attributes(Node& node, const json& j,
                              std::initializer_list<std::string_view> known) {
    node.attributes = other_attributes(j, known);
    auto logical = node.attributes.find("logicalType");
    if (logical != node.attributes.end() && logical->is_string()) {
      node.logical_type = logical->get<std::string>();
      node.attributes.erase(logical);
    }
  }

  // Defaults are checked once the whole document is parsed, because a
  // field's type may be a record whose fields were still being read when
  // the field was (a type containing itself).
  Status check_defaults(size_t first_record) {
    for (size_t i = first_record; i < records_.size(); ++i) {
      const Node* record = records_[i];
      for (const Field& f : record->fields) {
        if (!f.default_value || default_matches(*f.type, *f.default_value)) continue;
        location_ = {record, f.name};
        return invalid(fmt::format("default {} is not {}", quote(*f.default_value),
                                   expected_default(*f.type)));
      }
    }
    return ok_status();
  }

  Node& new_node(Kind kind) {
    arena_.push_back(std::make_unique<Node>());
    Node& node = *arena_.back();
    node.kind = kind;
    node.from_reference = document_.has_value();
    return node;
  }

  // kInvalidArgument with `problem` and where it is: "reference 'X': field
  // 'f' of record 'R': problem".
  Error invalid(std::string_view problem) const {
    std::string where;
    if (document_) where = fmt::format("reference '{}': ", *document_);
    if (location_.type != nullptr) {
      if (!location_.field.empty()) where += fmt::format("field '{}' of ", location_.field);
      where += fmt::format("{} '{}': ", kind_name(location_.type->kind), location_.type->full_name);
    }
    return Error(Errc::kInvalidArgument, where + std::string(problem));
  }

  std::vector<std::unique_ptr<Node>>& arena_;
  std::unordered_map<std::string, Node*> names_;  // every named type known so far
  std::vector<std::string> defined_;              // names the current document defined
  std::vector<std::string> missing_;              // the full names an unknown type may have had
  std::vector<const Node*> records_;              // records whose defaults are to be checked
  std::optional<std::string> document_;           // the reference being parsed
  Location location_;
};

// Writes the canonical text described in the header.
class CanonicalWriter {
 public:
  // `enclosing` is the namespace a short name would be read in here.
  ordered_json write(const Node& node, const std::string& enclosing) {
    if (is_named(node.kind)) {
      if (node.from_reference || !written_.insert(&node).second) return node.full_name;
      return write_named(node, enclosing);
    }
    if (node.kind == Kind::kUnion) {
      ordered_json branches = ordered_json::array();
      for (const Node* b : node.branches)
        branches.push_back(write(*b, enclosing));
      return branches;
    }
    bool plain = !node.logical_type && node.attributes.empty();
    if (is_primitive(node.kind) && plain) return kind_name(node.kind);
    ordered_json out = {{"type", kind_name(node.kind)}};
    if (node.kind == Kind::kArray) out["items"] = write(*node.items, enclosing);
    if (node.kind == Kind::kMap) out["values"] = write(*node.items, enclosing);
    write_tail(node, out);
    return out;
  }

 private:
  ordered_json write_named(const Node& node, const std::string& enclosing) {
    ordered_json out = {{"type", node.is_error ? "error" : kind_name(node.kind)},
                        {"name", node.full_name}};
    // A full name without dots would be read in the enclosing namespace.
    if (node.space.empty() && !enclosing.empty()) out["namespace"] = "";
    if (node.doc) out["doc"] = *node.doc;
    if (node.kind == Kind::kRecord) {
      ordered_json fields = ordered_json::array();
      for (const Field& f : node.fields)
        fields.push_back(write_field(f, node.space));
      out["fields"] = std::move(fields);
    }
    if (node.kind == Kind::kEnum) out["symbols"] = node.symbols;
    if (node.kind == Kind::kFixed) out["size"] = node.size;
    if (node.enum_default) out["default"] = *node.enum_default;
    if (!node.aliases.empty()) out["aliases"] = node.aliases;
    write_tail(node, out);
    return out;
  }

  ordered_json write_field(const Field& f, const std::string& space) {
    ordered_json out = {{"name", f.name}, {"type", write(*f.type, space)}};
    if (f.doc) out["doc"] = *f.doc;
    if (f.default_value) out["default"] = ordered_json(*f.default_value);
    if (f.order) out["order"] = *f.order;
    if (!f.aliases.empty()) out["aliases"] = f.aliases;
    // nlohmann::json keeps object keys sorted, so the attributes come sorted.
    for (const auto& [key, value] : f.attributes.items())
      out[key] = ordered_json(value);
    return out;
  }

  static void write_tail(const Node& node, ordered_json& out) {
    if (node.logical_type) out["logicalType"] = *node.logical_type;
    for (const auto& [key, value] : node.attributes.items())
      out[key] = ordered_json(value);
  }

  std::unordered_set<const Node*> written_;
};

}  // namespace

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::kRecord: return "record";
    case Kind::kEnum: return "enum";
    case Kind::kArray: return "array";
    case Kind::kMap: return "map";
    case Kind::kFixed: return "fixed";
    case Kind::kUnion: return "union";
    default: break;
  }
  for (const auto& [text, k] : kPrimitives)
    if (k == kind) return text;
  return "unknown";
}

bool is_named(Kind kind) {
  return kind == Kind::kRecord || kind == Kind::kEnum || kind == Kind::kFixed;
}

bool is_primitive(Kind kind) {
  return std::any_of(kPrimitives.begin(), kPrimitives.end(),
                     [kind](const auto& p) { return p.second == kind; });
}

std::string_view unqualified_name(std::string_view full_name) {
  size_t dot = full_name.rfind('.');
  return dot == std::string_view::npos ? full_name : full_name.substr(dot + 1);
}

std::string_view Node::short_name() const {
  return unqualified_name(full_name);
}

Result<Schema> Schema::parse(const SchemaText& text) {
  Schema schema;
  Parser parser(schema.nodes_);
  STRATA_TRY(parser.parse_references(text.references));
  STRATA_ASSIGN_OR_RETURN(schema.root_, parser.parse_document(text.schema, std::nullopt));
  return schema;
}

std::string Schema::canonical() const {
  CanonicalWriter writer;
  // Strings came from parsed, hence valid, UTF-8; replace() only rules out a throw.
  return writer.write(*root_, "").dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace strata::registry::avro
