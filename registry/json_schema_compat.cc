#include "registry/json_schema_compat.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

// GCC 12 with -fsanitize=address,undefined reports a false
// -Wmaybe-uninitialized inside <regex>'s use of std::function.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
#else
#include <regex>
#endif

#include <fmt/format.h>

#include "registry/json_schema_model.h"

namespace strata::registry {
namespace {

using namespace json_model;

// Bounds on the work one comparison may do. Recursive and heavily shared
// schemas are compared once per path through them; past these limits the
// schemas are reported incompatible rather than compared for ever. A level
// of nesting (a property, an item, a `$ref`, a combinator) takes about 3 KB
// of stack.
constexpr int kMaxSteps = 100'000;
constexpr int kMaxDepth = 100;
// std::regex recurses per character; longer patterns and names are not
// matched but treated as "may match".
constexpr size_t kMaxPatternSize = 1000;
constexpr size_t kMaxMatchedNameSize = 256;

// ---- The comparison ------------------------------------------------------------

struct Budget {
  int steps = 0;
  int depth = 0;
  bool exhausted = false;
};

enum class Match { kNo, kYes, kUnknown };

// Compares a reader's schema with a writer's, appending one message per way
// in which a document valid under the writer's may be invalid under the
// reader's. The reader's schema is taken apart keyword by keyword; the
// writer's is kept as an intersection (Conj) so that its allOf branches and
// `$ref` siblings all count.
class Checker {
 public:
  Checker(const JsonSchemaSet& reader, const JsonSchemaSet& writer, Budget& budget,
          std::vector<std::string>& problems)
      : reader_(reader), writer_(writer), budget_(budget), problems_(&problems) {}

  void compare(const View& r, const Conj& w, const std::string& path);

 private:
  void compare_reader(const View& r, const Conj& w, const std::string& path);
  bool distribute_writer_union(const View& r, const Conj& w, const std::string& path);
  void check_reader_union(const View& r, std::string_view key, const Conj& w,
                          const std::string& path);
  bool some_branch_reads(const View& r, const json& branches, const Conj& w,
                         const std::string& path);
  void check_reader_not(const View& r, const Conj& w, const std::string& path);

  void compare_keywords(const View& r, const Conj& w, const std::string& path);
  void check_leaf_keywords(const View& r, const Conj& w, TypeMask written, const std::string& path);
  void check_type(const View& r, TypeMask written, const std::string& path);
  void check_values(const View& r, const Conj& w, const std::string& path);
  void check_bound(const View& r, const Conj& w, TypeMask written_types, bool upper,
                   const std::string& path);
  void check_multiple_of(const View& r, const Conj& w, TypeMask written, const std::string& path);
  void check_counts(const View& r, const Conj& w, std::string_view min_key,
                    std::string_view max_key, const std::string& path);
  void check_arrays(const View& r, const Conj& w, const std::string& path);
  void check_items(const View& r, const Conj& w, const std::string& path);
  void check_objects(const View& r, const Conj& w, const std::string& path);
  void check_required(const View& r, const Conj& w, const std::string& path);
  void check_properties(const View& r, const Conj& w, const std::string& path);
  void check_named_property(const View& r, const Conj& w, const std::string& name,
                            const std::string& path);
  void check_undeclared(const View& s, const Conj& w, const std::string* pattern,
                        const json* reader_patterns, const std::string& path,
                        std::string_view what);
  void check_member(const View& s, const Conj& w, const std::string& path, std::string_view what,
                    bool reader_added);
  void check_other_keywords(const View& r, const Conj& w, TypeMask written,
                            const std::string& path);
  void check_same(const Conj& w, std::string_view key, const json& value, const std::string& path);
  void check_entries(const Conj& w, std::string_view key, const json& value,
                     const std::string& path);

  std::optional<Conj> expand_writer(const Conj& w) const;
  Conj writer_property(const Conj& w, const std::string& name, bool* declared);
  std::vector<View> undeclared_schemas(const View& c, const std::string* pattern,
                                       const json* reader_patterns) const;
  Match match(const std::string& pattern, const std::string& name);

  // Runs `attempt` with its messages set aside; true if it found none.
  template <typename F>
  bool trial(F&& attempt) {
    std::vector<std::string> scratch;
    std::vector<std::string>* saved = std::exchange(problems_, &scratch);
    attempt();
    problems_ = saved;
    return scratch.empty() && !budget_.exhausted;
  }

  void report(const std::string& path, std::string_view problem) {
    problems_->push_back(fmt::format("{}: {}", path, problem));
  }

  const JsonSchemaSet& reader_;
  const JsonSchemaSet& writer_;
  Budget& budget_;
  std::vector<std::string>* problems_;
  std::set<std::vector<uintptr_t>> in_progress_;
  std::map<std::string, std::optional<std::regex>> regexes_;
};

std::vector<uintptr_t> guard_key(const View& r, const Conj& w) {
  std::vector<uintptr_t> key = {reinterpret_cast<uintptr_t>(r.node), r.hidden};
  for (const View& c : w) {
    key.push_back(reinterpret_cast<uintptr_t>(c.node));
    key.push_back(c.hidden);
  }
  return key;
}

void Checker::compare(const View& r, const Conj& w, const std::string& path) {
  if (budget_.exhausted || is_trivial(r)) return;
  if (++budget_.steps > kMaxSteps || budget_.depth >= kMaxDepth) {
    budget_.exhausted = true;
    return;
  }
  std::optional<Conj> writer = expand_writer(w);
  if (!writer || writer_types(*writer) == 0) return;  // the writer writes nothing here
  if (r.node->is_boolean()) {
    report(path, "reader accepts no value here, but writer's schema allows some");
    return;
  }
  if (distribute_writer_union(r, *writer, path)) return;
  // Meeting the same pair again below itself means both schemas recurse.
  // Assuming the pair compatible there lets the comparison end; whatever
  // differs between them is found and reported on the way down.
  std::vector<uintptr_t> key = guard_key(r, *writer);
  if (!in_progress_.insert(key).second) return;
  ++budget_.depth;
  compare_reader(r, *writer, path);
  --budget_.depth;
  in_progress_.erase(key);
}

// Takes the reader's combinators apart: a document must satisfy the `$ref`
// target and the rest, every allOf branch, some anyOf/oneOf branch, and not
// the `not` schema.
void Checker::compare_reader(const View& r, const Conj& w, const std::string& path) {
  if (const json* ref = member(r, "$ref")) {
    std::optional<JsonSchemaSet::Target> target;
    if (ref->is_string()) target = reader_.resolve(r.doc, ref->get<std::string>());
    if (!target) {
      report(path, fmt::format("reader's $ref {} does not resolve", quoted(*ref)));
      return;
    }
    compare(View{target->node, target->doc}, w, path);
    compare(hide(r, kHideRef), w, path);
    return;
  }
  if (const json* all = array_member(r, "allOf")) {
    for (size_t i = 0; i < all->size(); ++i) {
      compare(View{&(*all)[i], r.doc}, w, fmt::format("{}/allOf/{}", path, i));
    }
    compare(hide(r, kHideAllOf), w, path);
    return;
  }
  for (auto [key, bit] : {std::pair{"anyOf", kHideAnyOf}, std::pair{"oneOf", kHideOneOf}}) {
    if (array_member(r, key) != nullptr) {
      check_reader_union(r, key, w, path);
      compare(hide(r, bit), w, path);
      return;
    }
  }
  if (member(r, "not") != nullptr) {
    check_reader_not(r, w, path);
    compare(hide(r, kHideNot), w, path);
    return;
  }
  compare_keywords(r, w, path);
}

// A writer's anyOf/oneOf writes what each of its branches does, so each
// branch (with the rest of the writer's schema) must be readable on its own.
bool Checker::distribute_writer_union(const View& r, const Conj& w, const std::string& path) {
  for (size_t i = 0; i < w.size(); ++i) {
    for (auto [key, bit] : {std::pair{"anyOf", kHideAnyOf}, std::pair{"oneOf", kHideOneOf}}) {
      const json* branches = array_member(w[i], key);
      if (branches == nullptr) continue;
      for (const json& branch : *branches) {
        Conj narrowed = w;
        narrowed[i].hidden |= bit;
        narrowed.push_back(View{&branch, w[i].doc});
        compare(r, narrowed, path);
      }
      return true;
    }
  }
  return false;
}

// The writer's schema, already free of unions, must fit one reader branch.
// That a document may match two branches of a oneOf is not checked.
void Checker::check_reader_union(const View& r, std::string_view key, const Conj& w,
                                 const std::string& path) {
  const json& branches = *array_member(r, key);
  std::string branches_path = fmt::format("{}/{}", path, key);
  if (some_branch_reads(r, branches, w, branches_path)) return;
  // A writer of several types may be read by one branch per type, as a
  // writer's ["null","string"] is by a reader's oneOf of null and string.
  TypeMask types = writer_types(w);
  if (std::popcount(types) > 1) {
    bool every_type_read = true;
    for (size_t i = 0; i < kTypeOrder.size() && every_type_read; ++i) {
      if ((types & (1u << i)) == 0) continue;
      Conj typed = w;
      typed.push_back(View{&type_schema(i), 0});
      every_type_read = some_branch_reads(r, branches, typed, branches_path);
    }
    if (every_type_read) return;
  }
  report(path, fmt::format("writer's schema is read by no branch of reader's {}", key));
}

bool Checker::some_branch_reads(const View& r, const json& branches, const Conj& w,
                                const std::string& path) {
  for (size_t i = 0; i < branches.size(); ++i) {
    View branch{&branches[i], r.doc};
    if (trial([&] { compare(branch, w, fmt::format("{}/{}", path, i)); })) return true;
  }
  return false;
}

// The reader's `not` excludes nothing the writer writes when the writer's
// types are disjoint from it, or when the writer's own `not` excludes at
// least as much (the reader's excluded schema reads into the writer's).
void Checker::check_reader_not(const View& r, const Conj& w, const std::string& path) {
  View excluded{member(r, "not"), r.doc};
  if (excluded.node->is_boolean() && !excluded.node->get<bool>()) return;
  if (intersect(writer_types(w), declared_types(excluded)) == 0) return;
  for (const View& c : w) {
    const json* writer_excluded = member(c, "not");
    if (writer_excluded == nullptr) continue;
    std::vector<std::string> problems;
    Checker reversed(writer_, reader_, budget_, problems);
    reversed.compare(View{writer_excluded, c.doc}, Conj{excluded}, path);
    if (problems.empty() && !budget_.exhausted) return;
  }
  report(path + "/not", "reader's \"not\" may reject values the writer writes");
}

// Keywords for one type say nothing about values of the others, so each
// group is checked only when the writer may write values of its type.
void Checker::compare_keywords(const View& r, const Conj& w, const std::string& path) {
  TypeMask written = writer_types(w);
  check_leaf_keywords(r, w, written, path);
  if ((written & kArray) != 0) check_arrays(r, w, path);
  if ((written & kObject) != 0) check_objects(r, w, path);
}

// The keywords that constrain a value itself rather than its members.
void Checker::check_leaf_keywords(const View& r, const Conj& w, TypeMask written,
                                  const std::string& path) {
  check_type(r, written, path);
  check_values(r, w, path);
  if ((written & kNumeric) != 0) {
    check_bound(r, w, written, /*upper=*/false, path);
    check_bound(r, w, written, /*upper=*/true, path);
    check_multiple_of(r, w, written, path);
  }
  if ((written & kString) != 0) {
    check_counts(r, w, "minLength", "maxLength", path);
    if (const json* pattern = member(r, "pattern")) check_same(w, "pattern", *pattern, path);
  }
  check_other_keywords(r, w, written, path);
}

void Checker::check_type(const View& r, TypeMask written, const std::string& path) {
  TypeMask accepted = declared_types(r);
  if (types_within(written, accepted)) return;
  report(path, fmt::format("type {} from {} to {}",
                           intersect(written, accepted) != 0 ? "narrowed" : "changed",
                           type_list(written), type_list(accepted)));
}

void Checker::check_values(const View& r, const Conj& w, const std::string& path) {
  std::optional<std::vector<json>> accepted = allowed_values(r);
  if (!accepted) return;
  std::optional<std::vector<json>> written = writer_values(w);
  if (!written) {
    report(path, fmt::format("enum added: reader allows only {}", quoted(json(*accepted))));
    return;
  }
  json missing = json::array();
  for (const json& v : *written) {
    if (!contains_value(*accepted, v)) missing.push_back(v);
  }
  if (!missing.empty()) {
    report(path, fmt::format("enum narrowed: reader does not allow {}", quoted(missing)));
  }
}

void Checker::check_bound(const View& r, const Conj& w, TypeMask written_types, bool upper,
                          const std::string& path) {
  std::optional<Bound> accepted = numeric_bound(r, upper);
  if (!accepted) return;
  std::optional<Bound> written;
  for (const View& c : w) {
    std::optional<Bound> b = numeric_bound(c, upper);
    if (b && (!written || tighter(*b, *written, upper))) written = b;
  }
  std::string_view name = bound_name(*accepted, upper);
  if (!written) {
    report(path, fmt::format("{} added: {}", name, describe(*accepted, upper)));
    return;
  }
  // Among integers, "> 0" and ">= 1" are the same bound.
  bool integers_only = (written_types & kNumeric) == kInteger;
  if (integers_only ? tighter(integral(*accepted, upper), integral(*written, upper), upper)
                    : tighter(*accepted, *written, upper)) {
    report(path, fmt::format("{} {} from {} to {}", name, upper ? "decreased" : "increased",
                             describe(*written, upper), describe(*accepted, upper)));
  }
}

void Checker::check_multiple_of(const View& r, const Conj& w, TypeMask written,
                                const std::string& path) {
  std::optional<double> divisor = number_member(r, "multipleOf");
  if (!divisor || *divisor <= 0) return;
  std::optional<double> declared;
  for (const View& c : w) {
    std::optional<double> m = number_member(c, "multipleOf");
    if (!m || *m <= 0) continue;
    if (is_multiple(*m, *divisor)) return;
    if (!declared) declared = m;
  }
  // Integers are multiples of 1, and so of every divisor of 1.
  if ((written & kNumeric) == kInteger && is_multiple(1, *divisor)) return;
  report(path, declared ? fmt::format("multipleOf changed from {} to {}", *declared, *divisor)
                        : fmt::format("multipleOf added: {}", *divisor));
}

// minLength/maxLength, minItems/maxItems, minProperties/maxProperties.
void Checker::check_counts(const View& r, const Conj& w, std::string_view min_key,
                           std::string_view max_key, const std::string& path) {
  if (std::optional<double> accepted = number_member(r, min_key)) {
    std::optional<double> written;
    for (const View& c : w) {
      std::optional<double> v = number_member(c, min_key);
      if (v && (!written || *v > *written)) written = v;
    }
    if (!written && *accepted > 0) {
      report(path, fmt::format("{} added: {}", min_key, *accepted));
    } else if (written && *accepted > *written) {
      report(path, fmt::format("{} increased from {} to {}", min_key, *written, *accepted));
    }
  }
  if (std::optional<double> accepted = number_member(r, max_key)) {
    std::optional<double> written;
    for (const View& c : w) {
      std::optional<double> v = number_member(c, max_key);
      if (v && (!written || *v < *written)) written = v;
    }
    if (!written) {
      report(path, fmt::format("{} added: {}", max_key, *accepted));
    } else if (*accepted < *written) {
      report(path, fmt::format("{} decreased from {} to {}", max_key, *written, *accepted));
    }
  }
}

void Checker::check_arrays(const View& r, const Conj& w, const std::string& path) {
  check_counts(r, w, "minItems", "maxItems", path);
  const json* unique = member(r, "uniqueItems");
  if (unique != nullptr && unique->is_boolean() && unique->get<bool>()) {
    bool written_unique = std::any_of(w.begin(), w.end(), [](const View& c) {
      const json* u = member(c, "uniqueItems");
      return u != nullptr && u->is_boolean() && u->get<bool>();
    });
    if (!written_unique) report(path, "uniqueItems added");
  }
  check_items(r, w, path);
}

// Compares item schemas position by position through the longest tuple of
// either side, then the schemas of the items after every tuple. Positions
// the writer's maxItems rules out are skipped.
void Checker::check_items(const View& r, const Conj& w, const std::string& path) {
  Items accepted = items_of(r);
  size_t positions = accepted.tuple != nullptr ? accepted.tuple->size() : 0;
  std::vector<Items> written;
  std::optional<double> max_items;
  for (const View& c : w) {
    written.push_back(items_of(c));
    if (written.back().tuple != nullptr)
      positions = std::max(positions, written.back().tuple->size());
    std::optional<double> m = number_member(c, "maxItems");
    if (m && (!max_items || *m < *max_items)) max_items = m;
  }
  auto reachable = [&](size_t index) {
    return !max_items || static_cast<double>(index) < *max_items;
  };
  for (size_t i = 0; i < positions && reachable(i); ++i) {
    Conj at;
    for (size_t j = 0; j < w.size(); ++j) {
      if (const json* s = written[j].at(i)) at.push_back(View{s, w[j].doc});
    }
    std::string what = fmt::format("item {}", i);
    if (accepted.tuple != nullptr && i < accepted.tuple->size()) {
      check_member(View{&(*accepted.tuple)[i], r.doc}, at,
                   fmt::format("{}/{}/{}", path, accepted.tuple_key, i), what, false);
    } else if (accepted.rest != nullptr) {
      check_member(View{accepted.rest, r.doc}, at, fmt::format("{}/{}", path, accepted.rest_key),
                   what, false);
    }
  }
  if (accepted.rest != nullptr && reachable(positions)) {
    Conj rest;
    for (size_t j = 0; j < w.size(); ++j) {
      if (written[j].rest != nullptr) rest.push_back(View{written[j].rest, w[j].doc});
    }
    check_member(View{accepted.rest, r.doc}, rest, fmt::format("{}/{}", path, accepted.rest_key),
                 positions == 0 ? "items" : "additional items", false);
  }
}

void Checker::check_objects(const View& r, const Conj& w, const std::string& path) {
  check_counts(r, w, "minProperties", "maxProperties", path);
  check_required(r, w, path);
  check_properties(r, w, path);
}

void Checker::check_required(const View& r, const Conj& w, const std::string& path) {
  const json* required = array_member(r, "required");
  if (required == nullptr) return;
  for (const json& name : *required) {
    bool written = std::any_of(w.begin(), w.end(), [&](const View& c) {
      const json* list = array_member(c, "required");
      return list != nullptr && std::find(list->begin(), list->end(), name) != list->end();
    });
    if (!written) {
      report(path,
             fmt::format("property {} is required by reader but not by writer", quoted(name)));
    }
  }
}

// Properties either side names are compared one by one; the others, which
// neither names, as the classes the reader's patternProperties and
// additionalProperties govern.
void Checker::check_properties(const View& r, const Conj& w, const std::string& path) {
  const json* properties = object_member(r, "properties");
  const json* patterns = object_member(r, "patternProperties");
  std::set<std::string> names;
  if (properties != nullptr) {
    for (const auto& item : properties->items())
      names.insert(item.key());
  }
  for (const View& c : w) {
    if (const json* theirs = object_member(c, "properties")) {
      for (const auto& item : theirs->items())
        names.insert(item.key());
    }
  }
  for (const std::string& name : names)
    check_named_property(r, w, name, path);
  if (patterns != nullptr) {
    for (const auto& item : patterns->items()) {
      check_undeclared(
          View{&item.value(), r.doc}, w, &item.key(), patterns,
          fmt::format("{}/patternProperties/{}", path, json_pointer_escape(item.key())),
          fmt::format("properties matching {}", quoted(json(item.key()))));
    }
  }
  if (const json* additional = member(r, "additionalProperties")) {
    check_undeclared(View{additional, r.doc}, w, nullptr, patterns, path + "/additionalProperties",
                     "additional properties");
  }
}

// A named property must satisfy the reader's schema for it, each of the
// reader's patterns it matches and, when neither applies, the reader's
// additionalProperties.
void Checker::check_named_property(const View& r, const Conj& w, const std::string& name,
                                   const std::string& path) {
  bool writer_declares = false;
  Conj written = writer_property(w, name, &writer_declares);
  std::string what = fmt::format("property {}", quoted(json(name)));
  bool claimed = false;
  if (const json* properties = object_member(r, "properties")) {
    if (auto it = properties->find(name); it != properties->end()) {
      claimed = true;
      check_member(View{&*it, r.doc}, written,
                   fmt::format("{}/properties/{}", path, json_pointer_escape(name)), what,
                   !writer_declares);
    }
  }
  if (const json* patterns = object_member(r, "patternProperties")) {
    for (const auto& item : patterns->items()) {
      Match m = match(item.key(), name);
      if (m == Match::kNo) continue;
      // A pattern that may or may not match applies, and so may additionalProperties.
      claimed = claimed || m == Match::kYes;
      check_member(View{&item.value(), r.doc}, written,
                   fmt::format("{}/patternProperties/{}", path, json_pointer_escape(item.key())),
                   what, !writer_declares);
    }
  }
  if (claimed) return;
  if (const json* additional = member(r, "additionalProperties")) {
    check_member(View{additional, r.doc}, written, path + "/additionalProperties", what, false);
  }
}

// Names neither side declares fall, in each writer schema with
// patternProperties or additionalProperties, under one of those schemas;
// which one depends on the name, so all of them must be readable. The
// writer's documents satisfy every conjunct, so one conjunct passing is
// enough.
void Checker::check_undeclared(const View& s, const Conj& w, const std::string* pattern,
                               const json* reader_patterns, const std::string& path,
                               std::string_view what) {
  if (is_trivial(s)) return;
  std::vector<std::vector<View>> choices;
  for (const View& c : w) {
    if (member(c, "patternProperties") == nullptr && member(c, "additionalProperties") == nullptr) {
      continue;
    }
    choices.push_back(undeclared_schemas(c, pattern, reader_patterns));
  }
  if (choices.empty()) {
    check_member(s, Conj{}, path, what, false);
    return;
  }
  auto read_all = [&](const std::vector<View>& options) {
    for (const View& o : options)
      check_member(s, Conj{o}, path, what, false);
  };
  for (const std::vector<View>& options : choices) {
    if (trial([&] { read_all(options); })) return;
  }
  read_all(choices.front());
}

// The schemas that may govern, in writer conjunct `c`, a name neither side
// declares: one matching the reader's `pattern` when given, else one matching
// none of the reader's patterns.
std::vector<View> Checker::undeclared_schemas(const View& c, const std::string* pattern,
                                              const json* reader_patterns) const {
  const json* patterns = object_member(c, "patternProperties");
  if (pattern != nullptr && patterns != nullptr) {
    // The same pattern surely matches, and its schema bounds the value.
    if (auto it = patterns->find(*pattern); it != patterns->end()) return {View{&*it, c.doc}};
  }
  std::vector<View> out;
  if (patterns != nullptr) {
    for (const auto& item : patterns->items()) {
      // A name matching none of the reader's patterns cannot match the
      // writer's copy of one of them.
      bool shared = reader_patterns != nullptr && reader_patterns->contains(item.key());
      if (pattern == nullptr && shared) continue;
      out.push_back(View{&item.value(), c.doc});
    }
  }
  const json* additional = member(c, "additionalProperties");
  out.push_back(additional != nullptr ? View{additional, c.doc} : View{&true_schema(), 0});
  return out;
}

// The writer's schema for the property `name`: in each conjunct, the
// property's own schema and those of the patterns it surely matches, or
// additionalProperties when surely nothing else claims it. Leaving out what
// may not apply only widens what the writer is assumed to write.
Conj Checker::writer_property(const Conj& w, const std::string& name, bool* declared) {
  Conj out;
  for (const View& c : w) {
    bool claimed = false;
    if (const json* properties = object_member(c, "properties")) {
      if (auto it = properties->find(name); it != properties->end()) {
        out.push_back(View{&*it, c.doc});
        claimed = true;
        *declared = true;
      }
    }
    bool surely_unmatched = true;
    if (const json* patterns = object_member(c, "patternProperties")) {
      for (const auto& item : patterns->items()) {
        Match m = match(item.key(), name);
        if (m == Match::kYes) out.push_back(View{&item.value(), c.doc});
        surely_unmatched = surely_unmatched && m == Match::kNo;
      }
    }
    if (!claimed && surely_unmatched) {
      if (const json* additional = member(c, "additionalProperties")) {
        out.push_back(View{additional, c.doc});
      }
    }
  }
  return out;
}

// Compares the reader's schema `s` for one member (a property, an item) with
// the writer's. `reader_added`: the reader names a property the writer does
// not, so an open writer may have put anything under that name.
void Checker::check_member(const View& s, const Conj& w, const std::string& path,
                           std::string_view what, bool reader_added) {
  if (budget_.exhausted || is_trivial(s)) return;
  std::optional<Conj> written = expand_writer(w);
  if (!written || writer_types(*written) == 0) return;  // the writer never writes it
  if (s.node->is_boolean()) {
    report(path, fmt::format("{} not allowed by reader, but writer may write it", what));
    return;
  }
  if (reader_added && written->empty()) {
    report(path, fmt::format("{} added to reader while writer's content model is open", what));
    return;
  }
  compare(s, w, path);
}

void Checker::check_other_keywords(const View& r, const Conj& w, TypeMask written,
                                   const std::string& path) {
  for (const auto& item : r.node->items()) {
    KeywordRole role = role_of(item.key());
    if (role.role != Role::kCompared || intersect(role.applies, written) == 0) continue;
    if (role.by_entry && item.value().is_object()) {
      check_entries(w, item.key(), item.value(), path);
    } else {
      check_same(w, item.key(), item.value(), path);
    }
  }
}

void Checker::check_same(const Conj& w, std::string_view key, const json& value,
                         const std::string& path) {
  const json* previous = nullptr;
  for (const View& c : w) {
    const json* theirs = member(c, key);
    if (theirs == nullptr) continue;
    if (*theirs == value) return;
    if (previous == nullptr) previous = theirs;
  }
  report(path, previous != nullptr
                   ? fmt::format("{} changed from {} to {}", key, quoted(*previous), quoted(value))
                   : fmt::format("{} added: {}", key, quoted(value)));
}

// Dependencies: each of the reader's entries must be one of the writer's; a
// list of names the reader requires may be shorter than the writer's.
void Checker::check_entries(const Conj& w, std::string_view key, const json& value,
                            const std::string& path) {
  for (const auto& entry : value.items()) {
    bool covered = std::any_of(w.begin(), w.end(), [&](const View& c) {
      const json* theirs = object_member(c, key);
      if (theirs == nullptr) return false;
      auto it = theirs->find(entry.key());
      if (it == theirs->end()) return false;
      if (!it->is_array() || !entry.value().is_array()) return *it == entry.value();
      return std::all_of(entry.value().begin(), entry.value().end(), [&](const json& name) {
        return std::find(it->begin(), it->end(), name) != it->end();
      });
    });
    if (!covered) {
      report(path, fmt::format("{} for {} added or changed", key, quoted(json(entry.key()))));
    }
  }
}

// The writer's conjuncts with `$ref`s followed and allOf branches flattened
// into the list; nullopt when one of them is `false`, as nothing is written.
std::optional<Conj> Checker::expand_writer(const Conj& w) const {
  Conj out;
  std::vector<View> work(w.rbegin(), w.rend());
  std::set<std::pair<const json*, uint32_t>> seen;
  while (!work.empty()) {
    View v = work.back();
    work.pop_back();
    if (!seen.emplace(v.node, v.hidden).second) continue;
    if (v.node->is_boolean()) {
      if (!v.node->get<bool>()) return std::nullopt;
      continue;
    }
    if (const json* ref = member(v, "$ref")) {
      work.push_back(hide(v, kHideRef));
      std::optional<JsonSchemaSet::Target> target;
      if (ref->is_string()) target = writer_.resolve(v.doc, ref->get<std::string>());
      if (target) work.push_back(View{target->node, target->doc});
      continue;
    }
    if (const json* all = array_member(v, "allOf")) {
      work.push_back(hide(v, kHideAllOf));
      for (auto it = all->rbegin(); it != all->rend(); ++it)
        work.push_back(View{&*it, v.doc});
      continue;
    }
    if (!is_trivial(v)) out.push_back(v);
  }
  return out;
}

// Whether `name` matches `pattern` (an ECMA 262 regex, unanchored).
// std::regex speaks nearly the same dialect; what it cannot compile or may
// not match safely is "unknown", which callers treat cautiously.
Match Checker::match(const std::string& pattern, const std::string& name) {
  if (pattern.size() > kMaxPatternSize || name.size() > kMaxMatchedNameSize) return Match::kUnknown;
  auto [it, inserted] = regexes_.try_emplace(pattern);
  if (inserted) {
    try {
      it->second.emplace(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      it->second.reset();
    }
  }
  if (!it->second) return Match::kUnknown;
  try {
    return std::regex_search(name, *it->second) ? Match::kYes : Match::kNo;
  } catch (const std::regex_error&) {
    return Match::kUnknown;
  }
}

}  // namespace

std::vector<std::string> json_schema_read_incompatibilities(const JsonSchemaSet& reader,
                                                            const JsonSchemaSet& writer) {
  std::vector<std::string> problems;
  Budget budget;
  Checker checker(reader, writer, budget, problems);
  checker.compare(View{&reader.root(), 0}, Conj{View{&writer.root(), 0}}, "#");
  if (budget.exhausted) {
    problems.push_back("#: schemas too large or too deeply recursive to compare");
  }
  // A writer's union branches can run into the same difference.
  std::set<std::string> seen;
  std::erase_if(problems, [&](const std::string& p) { return !seen.insert(p).second; });
  return problems;
}

}  // namespace strata::registry
