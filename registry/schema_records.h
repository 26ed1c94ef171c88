// The records of the `_schemas` topic, in Confluent Schema Registry's JSON
// layout (so its tools read Strata's topic): a key names what a record is
// about — a subject's version, a compatibility setting, a mode — and the
// value holds it; a null value (a tombstone) removes it, which compaction
// then keeps to the latest per key.
//
//   key   {"keytype":"SCHEMA","subject":"orders-value","version":2,"magic":1}
//   value {"subject":"orders-value","version":2,"id":7,"schema":"…",
//          "schemaType":"PROTOBUF","references":[…],"deleted":false}
//   key   {"keytype":"CONFIG","subject":null,"magic":0}
//   value {"compatibilityLevel":"FULL"}
//   key   {"keytype":"MODE","subject":"s","magic":0}       value {"mode":"READONLY"}
//
// Strata adds one kind, STRATA_ID_FLOOR, written when a permanent deletion
// removes schemas: ids below its next_id are never given out again, even
// once compaction has dropped every record that held them.
//
// Each key maps to the key of the registry's view (`view_key`); the view
// holds the value JSON as it came.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "base/result.h"
#include "coordinator/internal_topics.h"
#include "registry/compatibility.h"
#include "registry/schema_format.h"

namespace strata::registry {

using coordinator::kSchemasTopic;

// A schema's reference to a version of another subject, by the name the
// schema uses for it (a type name, an import path, a $ref URL).
struct SchemaReference {
  std::string name;
  std::string subject;
  int32_t version = 0;
  bool operator==(const SchemaReference&) const = default;
};

enum class Mode { kReadWrite, kReadOnly, kReadOnlyOverride, kImport };
std::string_view mode_name(Mode mode);
std::optional<Mode> parse_mode(std::string_view name);

struct SchemaKey {
  std::string subject;
  int32_t version = 0;
};
struct ConfigKey {
  std::optional<std::string> subject;  // nullopt: the global setting
};
struct ModeKey {
  std::optional<std::string> subject;
};
struct IdFloorKey {};
// A key Strata does not act on (NOOP, DELETE_SUBJECT, kinds of later
// versions): replayed past, never written.
struct OtherKey {
  std::string keytype;
};
using RecordKey = std::variant<SchemaKey, ConfigKey, ModeKey, IdFloorKey, OtherKey>;

struct SchemaValue {
  std::string subject;
  int32_t version = 0;
  int32_t id = 0;
  SchemaType type = SchemaType::kAvro;
  std::string schema;
  std::vector<SchemaReference> references;
  bool deleted = false;
};

std::string encode_key(const RecordKey& key);
Result<RecordKey> decode_key(std::string_view json);

std::string encode_schema(const SchemaValue& v);
Result<SchemaValue> decode_schema(std::string_view json);
std::string encode_config(CompatibilityLevel level);
Result<CompatibilityLevel> decode_config(std::string_view json);
std::string encode_mode(Mode mode);
Result<Mode> decode_mode(std::string_view json);
std::string encode_id_floor(int32_t next_id);
Result<int32_t> decode_id_floor(std::string_view json);

// The view's key of a record key (nullopt for keys the view does not keep).
// Schema versions sort by subject, then version.
std::optional<std::string> view_key(const RecordKey& key);
// The record key a view key was made from.
Result<RecordKey> from_view_key(std::string_view key);

}  // namespace strata::registry
