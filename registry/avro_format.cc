// The Avro SchemaFormat: canonical text from avro_schema.h, and whether a
// reader schema reads a writer's data by the specification's schema
// resolution rules (decimals included: two decimal schemas match only at the
// same precision and scale, which Avro's Java checker does not enforce).
#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "registry/avro_schema.h"
#include "registry/schema_format.h"

namespace strata::registry {
namespace {

using avro::Field;
using avro::Kind;
using avro::Node;

// The comparison descends at most two levels per level of JSON (a union
// against a union takes two), so this bound never stops a comparison of
// types nested in the text. Named types can chain through each other
// beyond it; those comparisons it cuts short, as incompatible.
constexpr int kMaxCheckDepth = 2 * avro::kMaxJsonDepth + 1;

// A named type used at many places repeats its problems at each, and types
// that use such a type twice double them at every level; capping each
// pair's list keeps the answer (and the work) linear in the schemas' size.
constexpr size_t kMaxIssues = 100;

// One way the reader cannot read the writer. `path` points into the reader
// schema ("/fields/2/type"), relative to the pair being compared, so a
// memoized result can be placed under whatever path reaches it again.
struct Issue {
  std::string path;
  std::string text;
};
using Issues = std::vector<Issue>;

// "type 'int'", "record 'com.x.User'".
std::string describe(const Node& n) {
  if (avro::is_named(n.kind)) return fmt::format("{} '{}'", avro::kind_name(n.kind), n.full_name);
  return fmt::format("type '{}'", avro::kind_name(n.kind));
}

// The promotions of the specification: a writer's int is read as long,
// float or double, a long as float or double, a float as double, and
// string and bytes as each other.
bool promotes(Kind writer, Kind reader) {
  switch (writer) {
    case Kind::kInt:
      return reader == Kind::kLong || reader == Kind::kFloat || reader == Kind::kDouble;
    case Kind::kLong: return reader == Kind::kFloat || reader == Kind::kDouble;
    case Kind::kFloat: return reader == Kind::kDouble;
    case Kind::kString: return reader == Kind::kBytes;
    case Kind::kBytes: return reader == Kind::kString;
    default: return false;
  }
}

// Named types match by unqualified name, as Confluent's registry compares
// them (so moving a type to another namespace stays compatible), or when a
// reader alias names the writer's type.
bool names_match(const Node& reader, const Node& writer) {
  if (reader.short_name() == writer.short_name()) return true;
  return std::any_of(reader.aliases.begin(), reader.aliases.end(), [&](const std::string& a) {
    return avro::unqualified_name(a) == writer.short_name();
  });
}

// The writer's field the reader's field `f` reads: same name, else one
// named by an alias of `f`.
const Field* writer_field(const Field& f, const Node& writer) {
  auto named = [&](std::string_view name) -> const Field* {
    for (const Field& w : writer.fields)
      if (w.name == name) return &w;
    return nullptr;
  };
  if (const Field* w = named(f.name)) return w;
  for (const std::string& alias : f.aliases)
    if (const Field* w = named(alias)) return w;
  return nullptr;
}

// `inner`, found at `prefix` below the pair that gathers them.
Issues under(std::string_view prefix, Issues inner) {
  for (Issue& i : inner)
    i.path.insert(0, prefix);
  return inner;
}

void append(Issues& out, Issues more) {
  out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

Issue mismatch(const Node& reader, const Node& writer) {
  return {"", fmt::format("reader {} cannot read writer {}", describe(reader), describe(writer))};
}

Issue name_mismatch(const Node& reader, const Node& writer) {
  return {"/name", fmt::format("reader {} cannot read writer {}: the names differ and no reader "
                               "alias names the writer's type",
                               describe(reader), describe(writer))};
}

class Resolver {
 public:
  // Every way `reader` cannot read data written with `writer`.
  Issues check(const Node& reader, const Node& writer, int depth) {
    if (depth > kMaxCheckDepth)
      return {{"", fmt::format("schemas nest deeper than {} levels", kMaxCheckDepth)}};
    auto [it, fresh] = memo_.try_emplace({&reader, &writer});
    // A pair met again while still being compared is a recursive type; it
    // is taken as readable here, since any mismatch in it is reported where
    // the comparison that is in progress finds it.
    if (!fresh) return it->second.value_or(Issues{});
    Issues issues = compare(reader, writer, depth + 1);
    if (issues.size() > kMaxIssues) {
      issues.resize(kMaxIssues - 1);
      issues.push_back({"", "further problems are not listed"});
    }
    it->second = issues;
    return issues;
  }

 private:
  Issues compare(const Node& reader, const Node& writer, int depth) {
    if (writer.kind == Kind::kUnion) return writer_union(reader, writer, depth);
    if (reader.kind == Kind::kUnion) return reader_union(reader, writer, depth);
    if (reader.kind != writer.kind) {
      if (promotes(writer.kind, reader.kind)) return {};
      return {mismatch(reader, writer)};
    }
    switch (reader.kind) {
      case Kind::kRecord: return records(reader, writer, depth);
      case Kind::kEnum: return enums(reader, writer);
      case Kind::kFixed: {
        Issues out = fixeds(reader, writer);
        append(out, decimals(reader, writer));
        return out;
      }
      case Kind::kArray: return under("/items", check(*reader.items, *writer.items, depth));
      case Kind::kMap: return under("/values", check(*reader.items, *writer.items, depth));
      case Kind::kBytes: return decimals(reader, writer);
      default: return {};  // the same primitive type
    }
  }

  // The spec: two decimal schemas match only if their precisions and
  // scales do (the same bytes are another number at another scale). A
  // decimal against plain bytes or fixed reads as its underlying type.
  static Issues decimals(const Node& reader, const Node& writer) {
    auto decimal = [](const Node& n) -> std::optional<std::pair<int64_t, int64_t>> {
      if (n.logical_type != "decimal") return std::nullopt;
      auto number = [&](const char* key, int64_t otherwise) {
        auto it = n.attributes.find(key);
        return it != n.attributes.end() && it->is_number_integer() ? it->get<int64_t>() : otherwise;
      };
      return std::pair{number("precision", 0), number("scale", 0)};
    };
    auto r = decimal(reader);
    auto w = decimal(writer);
    if (!r || !w || *r == *w) return {};
    return {{"", fmt::format("reader decimal({}, {}) cannot read writer decimal({}, {}): a "
                             "decimal's precision and scale must match",
                             r->first, r->second, w->first, w->second)}};
  }

  // The writer may write any of its branches, so the reader must read each.
  Issues writer_union(const Node& reader, const Node& writer, int depth) {
    Issues out;
    for (const Node* branch : writer.branches)
      append(out, check(reader, *branch, depth));
    return out;
  }

  // Readable if any branch of the reader reads the writer's type.
  Issues reader_union(const Node& reader, const Node& writer, int depth) {
    for (const Node* branch : reader.branches)
      if (check(*branch, writer, depth).empty()) return {};
    return {
        {"", fmt::format("no branch of the reader union can read writer {}", describe(writer))}};
  }

  Issues records(const Node& reader, const Node& writer, int depth) {
    if (!names_match(reader, writer)) return {name_mismatch(reader, writer)};
    Issues out;
    for (size_t i = 0; i < reader.fields.size(); ++i) {
      const Field& field = reader.fields[i];
      std::string at = fmt::format("/fields/{}", i);
      if (const Field* w = writer_field(field, writer)) {
        append(out, under(at + "/type", check(*field.type, *w->type, depth)));
      } else if (!field.default_value) {
        out.push_back(
            {at, fmt::format("reader field '{}' is missing from writer {} and has no default",
                             field.name, describe(writer))});
      }
    }
    return out;
  }

  static Issues enums(const Node& reader, const Node& writer) {
    if (!names_match(reader, writer)) return {name_mismatch(reader, writer)};
    // The reader's default stands in for any symbol it does not know.
    if (reader.enum_default) return {};
    std::string missing;
    for (const std::string& s : writer.symbols) {
      if (std::find(reader.symbols.begin(), reader.symbols.end(), s) != reader.symbols.end())
        continue;
      missing += fmt::format("{}'{}'", missing.empty() ? "" : ", ", s);
    }
    if (missing.empty()) return {};
    return {{"/symbols", fmt::format("reader {} has no default and lacks writer symbols {}",
                                     describe(reader), missing)}};
  }

  static Issues fixeds(const Node& reader, const Node& writer) {
    if (!names_match(reader, writer)) return {name_mismatch(reader, writer)};
    if (reader.size == writer.size) return {};
    return {{"/size", fmt::format("reader {} has size {}, writer {} has size {}", describe(reader),
                                  reader.size, describe(writer), writer.size)}};
  }

  // nullopt: the pair is being compared further up.
  std::map<std::pair<const Node*, const Node*>, std::optional<Issues>> memo_;
};

Error with_prefix(std::string_view prefix, const Error& e) {
  return Error(e.code(), fmt::format("{}{}", prefix, e.message()));
}

class AvroFormat final : public SchemaFormat {
 public:
  SchemaType type() const override { return SchemaType::kAvro; }

  Result<std::string> canonical(const SchemaText& s) const override {
    Result<avro::Schema> schema = avro::Schema::parse(s);
    if (!schema) return with_prefix("Invalid schema: ", schema.error());
    return schema->canonical();
  }

  Result<std::vector<std::string>> read_incompatibilities(const SchemaText& reader,
                                                          const SchemaText& writer) const override {
    Result<avro::Schema> r = avro::Schema::parse(reader);
    if (!r) return with_prefix("Invalid reader schema: ", r.error());
    Result<avro::Schema> w = avro::Schema::parse(writer);
    if (!w) return with_prefix("Invalid writer schema: ", w.error());
    Resolver resolver;
    std::vector<std::string> out;
    for (const Issue& i : resolver.check(r->root(), w->root(), 0))
      out.push_back(fmt::format("{}: {}", i.path.empty() ? "/" : i.path, i.text));
    return out;
  }
};

}  // namespace

std::unique_ptr<SchemaFormat> make_avro_format() {
  return std::make_unique<AvroFormat>();
}

}  // namespace strata::registry
