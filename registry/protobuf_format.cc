// The Protobuf SchemaFormat: schemas are .proto files, built with their
// imports by protobuf's own parser and descriptor pool (protobuf_schema.h),
// stored as protobuf prints the built file, and compared field by field
// (protobuf_compatibility.h).
#include <memory>
#include <string>
#include <vector>

#include "registry/protobuf_compatibility.h"
#include "registry/protobuf_schema.h"
#include "registry/schema_format.h"

namespace strata::registry {
namespace {

class ProtobufFormat final : public SchemaFormat {
 public:
  SchemaType type() const override { return SchemaType::kProtobuf; }

  // Protobuf's printing of a built file keeps neither comments nor layout,
  // and resolves every type name to its full name, so equal schemas print
  // alike however they were written.
  Result<std::string> canonical(const SchemaText& s) const override {
    STRATA_ASSIGN_OR_RETURN(ProtobufSchema built, build_protobuf_schema(s));
    return built.file->DebugString();
  }

  Result<std::vector<std::string>> read_incompatibilities(const SchemaText& reader,
                                                          const SchemaText& writer) const override {
    STRATA_ASSIGN_OR_RETURN(ProtobufSchema r, build_protobuf_schema(reader));
    STRATA_ASSIGN_OR_RETURN(ProtobufSchema w, build_protobuf_schema(writer));
    return protobuf_read_incompatibilities(*r.file, *w.file);
  }
};

}  // namespace

std::unique_ptr<SchemaFormat> make_protobuf_format() {
  return std::make_unique<ProtobufFormat>();
}

}  // namespace strata::registry
