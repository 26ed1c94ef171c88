// ProtobufSchema: a Protobuf schema's .proto text parsed and built, with
// every file it imports, into a descriptor pool of its own — the form the
// Protobuf format validates, prints and compares. An import resolves to the
// schema reference of that path or, when there is none, to one of
// protobuf's well-known types (google/protobuf/timestamp.proto, ...).
//
//   Result<ProtobufSchema> built = build_protobuf_schema({.schema = text, .references = refs});
//   if (!built) return built.error();  // kInvalidArgument: "Invalid schema: 3:7: ..."
//   std::string printed = built->file->DebugString();
//
// Thread-safety: a built schema is immutable; any thread may read it.
#pragma once

#include <memory>

#include <google/protobuf/descriptor.h>

#include "base/result.h"
#include "registry/schema_format.h"

namespace strata::registry {

struct ProtobufSchema {
  // Owns `file` and every file it imports.
  std::unique_ptr<google::protobuf::DescriptorPool> pool;
  const google::protobuf::FileDescriptor* file = nullptr;
};

// The schema `s.schema` built against `s.references`, or kInvalidArgument
// naming the first problem: a syntax error as "line:column: message" (both
// one-based), an unresolved name or import, or an import cycle. An error in
// a referenced file names that file.
Result<ProtobufSchema> build_protobuf_schema(const SchemaText& s);

}  // namespace strata::registry
