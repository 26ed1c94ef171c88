#include "registry/protobuf_compatibility.h"

#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <google/protobuf/descriptor.pb.h>

namespace strata::registry {
namespace {

namespace gpb = google::protobuf;
using PbField = gpb::FieldDescriptor;

// Field types grouped by the bytes they put on the wire: within a group a
// reader decodes the writer's value (at worst truncated, as int64 read as
// int32); across groups it decodes garbage or skips the field.
enum class WireKind {
  kVarint,
  kZigZag,
  kFixed32,
  kFixed64,
  kFloat,
  kDouble,
  kStringOrBytes,
  kMessage,
  kGroup,
};

WireKind wire_kind(const PbField& f) {
  switch (f.type()) {
    case PbField::TYPE_INT32:
    case PbField::TYPE_INT64:
    case PbField::TYPE_UINT32:
    case PbField::TYPE_UINT64:
    case PbField::TYPE_BOOL:
    case PbField::TYPE_ENUM: return WireKind::kVarint;
    case PbField::TYPE_SINT32:
    case PbField::TYPE_SINT64: return WireKind::kZigZag;
    case PbField::TYPE_FIXED32:
    case PbField::TYPE_SFIXED32: return WireKind::kFixed32;
    case PbField::TYPE_FIXED64:
    case PbField::TYPE_SFIXED64: return WireKind::kFixed64;
    case PbField::TYPE_FLOAT: return WireKind::kFloat;
    case PbField::TYPE_DOUBLE: return WireKind::kDouble;
    case PbField::TYPE_STRING:
    case PbField::TYPE_BYTES: return WireKind::kStringOrBytes;
    case PbField::TYPE_MESSAGE: return WireKind::kMessage;
    case PbField::TYPE_GROUP: return WireKind::kGroup;
  }
  return WireKind::kMessage;  // not reached: the switch names every type
}

// Numbers may be written packed when repeated, which a singular reader
// does not take; a repeated string, bytes or message field is the same
// bytes as a singular one written several times, which either reads.
bool is_numeric(WireKind kind) {
  return kind != WireKind::kStringOrBytes && kind != WireKind::kMessage && kind != WireKind::kGroup;
}

// A message type's name within its package. Types are matched by it, so
// that a renamed package is one incompatibility, not one per type.
std::string_view local_name(const gpb::Descriptor& d) {
  std::string_view name = d.full_name();
  const std::string& package = d.file()->package();
  if (!package.empty() && name.size() > package.size() && name.starts_with(package) &&
      name[package.size()] == '.') {
    name.remove_prefix(package.size() + 1);
  }
  return name;
}

std::string type_text(const PbField& f) {
  if (f.is_map()) {
    return fmt::format("map<{}, {}>", type_text(*f.message_type()->map_key()),
                       type_text(*f.message_type()->map_value()));
  }
  switch (f.type()) {
    case PbField::TYPE_MESSAGE: return fmt::format("message '{}'", f.message_type()->full_name());
    case PbField::TYPE_GROUP: return fmt::format("group '{}'", f.message_type()->full_name());
    case PbField::TYPE_ENUM: return fmt::format("enum '{}'", f.enum_type()->full_name());
    default: return f.type_name();
  }
}

std::string field_text(const gpb::Descriptor& message, const PbField& f) {
  return fmt::format("message '{}' field {} ('{}')", message.full_name(), f.number(), f.name());
}

class Comparison {
 public:
  std::vector<std::string> run(const gpb::FileDescriptor& reader,
                               const gpb::FileDescriptor& writer) && {
    if (reader.package() != writer.package()) {
      report("package changed from '{}' to '{}'", writer.package(), reader.package());
    }
    // A schema without a message type has no data to read.
    if (writer.message_type_count() == 0) return std::move(found_);
    const gpb::Descriptor& w = *writer.message_type(0);
    if (reader.message_type_count() == 0) {
      report("message '{}' was removed (the reader has no message)", w.full_name());
    } else if (local_name(*reader.message_type(0)) != local_name(w)) {
      report("message '{}' was removed (the reader's first message is '{}')", w.full_name(),
             reader.message_type(0)->full_name());
    } else {
      messages(*reader.message_type(0), w);
    }
    // The other types are matched by name: a schema that references this
    // one may use any of them, so each keeps what its readers need.
    for (int i = 1; i < writer.message_type_count(); ++i) {
      const gpb::Descriptor& other = *writer.message_type(i);
      same_named(reader.FindMessageTypeByName(other.name()), other);
    }
    return std::move(found_);
  }

 private:
  template <typename... Args>
  void report(fmt::format_string<Args...> format, Args&&... args) {
    found_.push_back(fmt::format(format, std::forward<Args>(args)...));
  }

  void messages(const gpb::Descriptor& reader, const gpb::Descriptor& writer) {
    // Each pair once: recursive types would otherwise never end, and a
    // type used by several fields would repeat its findings.
    if (!compared_.emplace(&reader, &writer).second) return;
    for (int i = 0; i < writer.field_count(); ++i) {
      const PbField& w = *writer.field(i);
      if (const PbField* r = reader.FindFieldByNumber(w.number())) {
        fields(field_text(reader, *r), *r, w);
      } else {
        removed_field(reader, w);
      }
    }
    required_fields(reader, writer);
    oneofs(reader, writer);
    // Nested types, by name, whether a field uses them or not (map entry
    // types are compared through their fields).
    for (int i = 0; i < writer.nested_type_count(); ++i) {
      const gpb::Descriptor& nested = *writer.nested_type(i);
      if (nested.options().map_entry()) continue;
      same_named(reader.FindNestedTypeByName(nested.name()), nested);
    }
  }

  // A writer type the reader has under the same name (or null: it is gone).
  void same_named(const gpb::Descriptor* reader, const gpb::Descriptor& writer) {
    if (reader != nullptr) {
      messages(*reader, writer);
    } else {
      report("message '{}' was removed", writer.full_name());
    }
  }

  void fields(const std::string& where, const PbField& reader, const PbField& writer) {
    if (reader.is_map() && writer.is_map()) {
      // Entry types are named after their field: compare what they hold.
      const gpb::Descriptor& r = *reader.message_type();
      const gpb::Descriptor& w = *writer.message_type();
      fields(where + " key", *r.map_key(), *w.map_key());
      fields(where + " value", *r.map_value(), *w.map_value());
      return;
    }
    const WireKind kind = wire_kind(reader);
    if (kind != wire_kind(writer)) {
      report("{}: type changed from {} to {}", where, type_text(writer), type_text(reader));
      return;
    }
    if (kind == WireKind::kMessage || kind == WireKind::kGroup) {
      const gpb::Descriptor& r = *reader.message_type();
      const gpb::Descriptor& w = *writer.message_type();
      if (local_name(r) != local_name(w) || reader.is_map() != writer.is_map()) {
        report("{}: type changed from {} to {}", where, type_text(writer), type_text(reader));
        return;
      }
      messages(r, w);
    }
    if (reader.is_repeated() != writer.is_repeated() && is_numeric(kind)) {
      report("{}: changed from {} to {}", where, writer.is_repeated() ? "repeated" : "singular",
             reader.is_repeated() ? "repeated" : "singular");
    }
  }

  // A reader that lacks one field of a oneof it still has would take a
  // message with that field set for one with the oneof unset.
  void removed_field(const gpb::Descriptor& reader, const PbField& writer) {
    const gpb::OneofDescriptor* oneof = writer.real_containing_oneof();
    if (oneof == nullptr) return;
    for (int i = 0; i < oneof->field_count(); ++i) {
      const PbField* r = reader.FindFieldByNumber(oneof->field(i)->number());
      if (r != nullptr && r->real_containing_oneof() != nullptr) {
        report("{}: removed from oneof '{}'", field_text(reader, writer), oneof->name());
        return;
      }
    }
  }

  // A proto2 reader refuses a message without one of its required fields.
  void required_fields(const gpb::Descriptor& reader, const gpb::Descriptor& writer) {
    for (int i = 0; i < reader.field_count(); ++i) {
      const PbField& r = *reader.field(i);
      if (!r.is_required()) continue;
      const PbField* w = writer.FindFieldByNumber(r.number());
      if (w == nullptr) {
        report("{}: required by the reader, unknown to the writer", field_text(reader, r));
      } else if (!w->is_required()) {
        report("{}: required by the reader, optional in the writer", field_text(reader, r));
      }
    }
  }

  // A reader keeps one field of a oneof, the last on the wire. The writer
  // sets at most one field of each of its oneofs but any number of plain
  // fields, so a reader's oneof must not take fields from two places.
  void oneofs(const gpb::Descriptor& reader, const gpb::Descriptor& writer) {
    // Real oneofs come first; proto3 `optional` adds the others.
    for (int i = 0; i < reader.real_oneof_decl_count(); ++i) {
      const gpb::OneofDescriptor& oneof = *reader.oneof_decl(i);
      std::set<const void*> sources;  // a writer oneof, or a plain writer field
      std::string written;
      for (int j = 0; j < oneof.field_count(); ++j) {
        const PbField& r = *oneof.field(j);
        const PbField* w = writer.FindFieldByNumber(r.number());
        if (w == nullptr) continue;
        const gpb::OneofDescriptor* source = w->real_containing_oneof();
        sources.insert(source != nullptr ? static_cast<const void*>(source) : w);
        written += fmt::format("{}{} ('{}')", written.empty() ? "" : ", ", r.number(), r.name());
      }
      if (sources.size() > 1) {
        report("message '{}' oneof '{}': the writer may set more than one of fields {}",
               reader.full_name(), oneof.name(), written);
      }
    }
  }

  std::set<std::pair<const gpb::Descriptor*, const gpb::Descriptor*>> compared_;
  std::vector<std::string> found_;
};

}  // namespace

std::vector<std::string> protobuf_read_incompatibilities(const gpb::FileDescriptor& reader,
                                                         const gpb::FileDescriptor& writer) {
  return Comparison().run(reader, writer);
}

}  // namespace strata::registry
