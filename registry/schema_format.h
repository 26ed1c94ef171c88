// SchemaFormat: what the registry needs of one schema language (Avro,
// Protobuf, JSON Schema): parse and validate a schema into the text the
// registry stores and compares, and tell whether data written with one
// schema can be read with another. The compatibility levels (BACKWARD,
// FORWARD, FULL and their transitive forms) are built on that one question
// in `compatibility.h`; a format knows nothing of subjects or levels.
//
//   auto avro = make_format(SchemaType::kAvro);
//   Result<std::string> c = avro->canonical({.schema = text});
//   Result<std::vector<std::string>> why = avro->read_incompatibilities(reader, writer);
//   if (why && why->empty()) { /* reader reads everything writer writes */ }
//
// Thread-safety: a format holds no state; any thread may call it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace strata::registry {

enum class SchemaType { kAvro, kProtobuf, kJson };

// "AVRO", "PROTOBUF", "JSON": the names of the REST API's schemaType.
std::string_view schema_type_name(SchemaType type);
// The type a schemaType names (case-sensitive, as Confluent's), or nullopt.
std::optional<SchemaType> parse_schema_type(std::string_view name);

// A schema's text and the texts of every schema it references, directly or
// through another, each under its reference name (Avro: the referenced
// named type's full name; Protobuf: the imported file's path; JSON Schema:
// the `$ref` URL). The registry resolves the references it stores.
struct SchemaText {
  std::string schema;
  std::vector<std::pair<std::string, std::string>> references;
};

class SchemaFormat {
 public:
  virtual ~SchemaFormat() = default;
  virtual SchemaType type() const = 0;

  // Parses and validates `s`. Returns the form the registry stores and
  // compares schemas by — the same schema written with other whitespace
  // gives the same text — or kInvalidArgument with a message naming the
  // problem (and where it is, when the parser knows).
  virtual Result<std::string> canonical(const SchemaText& s) const = 0;

  // Every way in which data written with `writer` cannot be read with
  // `reader`, one readable message each (empty: `reader` reads all that
  // `writer` writes). kInvalidArgument when either schema does not parse.
  virtual Result<std::vector<std::string>> read_incompatibilities(
      const SchemaText& reader, const SchemaText& writer) const = 0;
};

std::unique_ptr<SchemaFormat> make_avro_format();
std::unique_ptr<SchemaFormat> make_protobuf_format();
std::unique_ptr<SchemaFormat> make_json_schema_format();
std::unique_ptr<SchemaFormat> make_format(SchemaType type);

}  // namespace strata::registry
