// JsonSchemaSet: a JSON Schema parsed and checked together with the schemas
// it references, and the resolution of the `$ref`s that tie them together.
//
//   Result<JsonSchemaSet> set = JsonSchemaSet::parse({.schema = text});
//   if (!set) return set.error();  // kInvalidArgument: "Invalid schema: #/type: ..."
//   std::optional<JsonSchemaSet::Target> t = set->resolve(0, "#/definitions/a");
//
// Document 0 is the root schema; documents 1.. are its references, in the
// order SchemaText lists them. A set never moves its documents once built, so
// the node pointers it hands out stay valid for its lifetime.
//
// Thread-safety: immutable once parsed; any thread may read it.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "registry/schema_format.h"

namespace strata::registry {

class JsonSchemaSet {
 public:
  // A schema a `$ref` points at: its document, its node, and the fragment
  // that led there (a JSON pointer such as "/definitions/a", or an anchor).
  struct Target {
    size_t doc;
    const nlohmann::json* node;
    std::string fragment;
  };

  // Parses the schema and every reference, and checks that each is a valid
  // JSON Schema (drafts 4 to 2020-12) whose `$ref`s all resolve.
  static Result<JsonSchemaSet> parse(const SchemaText& text);

  const nlohmann::json& root() const { return docs_.front()->json; }

  // The root schema as compact JSON with sorted object keys.
  std::string canonical_text() const;

  // What `ref`, a `$ref` value found in document `doc`, points at; nullopt
  // when it leads nowhere.
  std::optional<Target> resolve(size_t doc, std::string_view ref) const;

  // How messages name a place: "#/a/b" in the root, "name#/a/b" in a reference.
  std::string location(size_t doc, std::string_view fragment) const;

 private:
  struct Document {
    std::string name;  // empty for the root schema
    nlohmann::json json;
    std::string id;  // the root's `$id` (or draft-4 `id`) without its fragment
    std::map<std::string, const nlohmann::json*, std::less<>> anchors;
  };

  explicit JsonSchemaSet(std::vector<std::unique_ptr<Document>> docs) : docs_(std::move(docs)) {}

  std::optional<size_t> find_document(std::string_view ref, std::string_view base) const;

  std::vector<std::unique_ptr<Document>> docs_;
};

// `token` escaped for use as one JSON pointer step ("~" as "~0", "/" as "~1").
std::string json_pointer_escape(std::string_view token);

}  // namespace strata::registry
