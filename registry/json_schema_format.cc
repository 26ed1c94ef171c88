// The JSON Schema format of the registry: schemas are JSON Schema documents
// (drafts 4 to 2020-12), stored as compact JSON with sorted keys, and
// compared by json_schema_compat.h.
#include <exception>

#include <fmt/format.h>

#include "registry/json_schema_compat.h"
#include "registry/json_schema_set.h"
#include "registry/schema_format.h"

namespace strata::registry {
namespace {

// Parsing reports its own errors as values; this only turns an exception
// from a bug in this module into an error rather than a crash of the caller.
Error internal(const std::exception& e) {
  return Error(Errc::kInternal, fmt::format("JSON Schema: {}", e.what()));
}

class JsonSchemaFormat final : public SchemaFormat {
 public:
  SchemaType type() const override { return SchemaType::kJson; }

  Result<std::string> canonical(const SchemaText& s) const override {
    try {
      STRATA_ASSIGN_OR_RETURN(JsonSchemaSet set, JsonSchemaSet::parse(s));
      return set.canonical_text();
    } catch (const std::exception& e) {
      return internal(e);
    }
  }

  Result<std::vector<std::string>> read_incompatibilities(const SchemaText& reader,
                                                          const SchemaText& writer) const override {
    try {
      STRATA_ASSIGN_OR_RETURN(JsonSchemaSet r, JsonSchemaSet::parse(reader));
      STRATA_ASSIGN_OR_RETURN(JsonSchemaSet w, JsonSchemaSet::parse(writer));
      return json_schema_read_incompatibilities(r, w);
    } catch (const std::exception& e) {
      return internal(e);
    }
  }
};

}  // namespace

std::unique_ptr<SchemaFormat> make_json_schema_format() {
  return std::make_unique<JsonSchemaFormat>();
}

}  // namespace strata::registry
