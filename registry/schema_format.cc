#include "registry/schema_format.h"

namespace strata::registry {

std::string_view schema_type_name(SchemaType type) {
  switch (type) {
    case SchemaType::kAvro: return "AVRO";
    case SchemaType::kProtobuf: return "PROTOBUF";
    case SchemaType::kJson: return "JSON";
  }
  return "AVRO";
}

std::optional<SchemaType> parse_schema_type(std::string_view name) {
  for (auto t : {SchemaType::kAvro, SchemaType::kProtobuf, SchemaType::kJson})
    if (schema_type_name(t) == name) return t;
  return std::nullopt;
}

std::unique_ptr<SchemaFormat> make_format(SchemaType type) {
  switch (type) {
    case SchemaType::kAvro: return make_avro_format();
    case SchemaType::kProtobuf: return make_protobuf_format();
    case SchemaType::kJson: return make_json_schema_format();
  }
  return make_avro_format();
}

}  // namespace strata::registry
