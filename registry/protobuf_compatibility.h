// Whether bytes written with one Protobuf schema read with another, in the
// spirit of Confluent's Protobuf rules: the writer's first message type is
// read as the reader's first, and, recursively, every message type their
// fields use; every other message type, top-level or nested, is compared
// with the reader's of the same name (another schema may reference it);
// fields are matched by number, as the wire matches them, types by their
// name within their package.
//
//   std::vector<std::string> why = protobuf_read_incompatibilities(*reader.file, *writer.file);
//   // "message 'pkg.Order' field 3 ('amount'): type changed from double to float"
//
// Incompatible: a changed package; the first message type renamed or gone;
// any other message type gone;
// a field whose type reads other bytes (the compatible groups are the
// varints int32/int64/uint32/uint64/bool/enum, the zigzag sint32/sint64,
// fixed32/sfixed32, fixed64/sfixed64, and string/bytes); a message-typed
// field naming another message type; a numeric field turned repeated or
// singular; fields the writer may set together in one oneof of the reader;
// a field of a oneof removed while the oneof stays; a field the reader
// requires (proto2) that the writer may leave out. Everything else —
// fields added, removed or renamed, enum values added or removed, proto3
// `optional`, string, bytes and message fields turned repeated or back —
// reads.
//
// Thread-safety: a pure function.
#pragma once

#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>

namespace strata::registry {

// Every way in which data written with `writer` cannot be read with
// `reader`, one message each, in the writer's declaration order.
std::vector<std::string> protobuf_read_incompatibilities(
    const google::protobuf::FileDescriptor& reader, const google::protobuf::FileDescriptor& writer);

}  // namespace strata::registry
