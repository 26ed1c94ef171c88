#include "registry/protobuf_schema.h"

#include <array>
#include <climits>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <google/protobuf/any.pb.h>
#include <google/protobuf/api.pb.h>
#include <google/protobuf/compiler/parser.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/duration.pb.h>
#include <google/protobuf/empty.pb.h>
#include <google/protobuf/field_mask.pb.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/source_context.pb.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/type.pb.h>
#include <google/protobuf/wrappers.pb.h>

namespace strata::registry {
namespace {

namespace gpb = google::protobuf;

// The pool's name for the schema itself. Only the references' names are
// import paths, so giving the schema a name no sane import uses keeps the
// two apart; should a reference take it anyway, the cycle check refuses it.
constexpr std::string_view kSchemaFile = "<schema>";

Error invalid(std::string_view detail) {
  return Error(Errc::kInvalidArgument, fmt::format("Invalid schema: {}", detail));
}

// Where a problem is, for a message: nothing for the schema itself, the
// import path for a referenced file.
std::string in_file(const std::string& file) {
  return file == kSchemaFile ? std::string() : fmt::format("import '{}': ", file);
}

// Keeps the first error of the tokenizer and the parser. Later ones tend to
// follow from it, so the first is the one worth showing.
class ParseErrors final : public gpb::io::ErrorCollector {
 public:
  void AddError(int line, gpb::io::ColumnNumber column, const std::string& message) override {
    // The parser counts from zero; editors and people count from one.
    if (first_.empty()) first_ = fmt::format("{}:{}: {}", line + 1, column + 1, message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

// Keeps the first error of building a file into the pool, with the element
// (message, field, ...) it is about.
class BuildErrors final : public gpb::DescriptorPool::ErrorCollector {
 public:
  void AddError(const std::string& /*filename*/, const std::string& element_name,
                const gpb::Message* /*descriptor*/, ErrorLocation /*location*/,
                const std::string& message) override {
    if (!first_.empty()) return;
    first_ = element_name.empty() ? message : fmt::format("{}: {}", element_name, message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

// The well-known types' files, which libprotobuf carries compiled in.
// Reaching each through one of its message types keeps it linked into a
// static binary too, where nothing else would name it.
const gpb::FileDescriptor* well_known_file(const std::string& path) {
  static const std::array<const gpb::FileDescriptor*, 11> kFiles = {
      gpb::Any::descriptor()->file(),
      gpb::Api::descriptor()->file(),
      gpb::Duration::descriptor()->file(),
      gpb::Empty::descriptor()->file(),
      gpb::FieldMask::descriptor()->file(),
      gpb::SourceContext::descriptor()->file(),
      gpb::Struct::descriptor()->file(),
      gpb::Timestamp::descriptor()->file(),
      gpb::Type::descriptor()->file(),
      gpb::DoubleValue::descriptor()->file(),
      gpb::FileDescriptorProto::descriptor()->file(),
  };
  for (const gpb::FileDescriptor* file : kFiles) {
    if (file->name() == path) return file;
  }
  return nullptr;
}

// Standard base64 (RFC 4648, padded) decoded; nullopt if `text` is not that.
std::optional<std::string> from_base64(std::string_view text) {
  if (text.empty() || text.size() % 4 != 0) return std::nullopt;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '=') {
      // Padding only at the end: one or two of them.
      if (i + 2 < text.size() || (i + 1 < text.size() && text[i + 1] != '=')) return std::nullopt;
      break;
    }
    int v = value(text[i]);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    if (++count == 4) {
      out.push_back(static_cast<char>((bits >> 16) & 0xff));
      out.push_back(static_cast<char>((bits >> 8) & 0xff));
      out.push_back(static_cast<char>(bits & 0xff));
      bits = 0;
      count = 0;
    }
  }
  if (count == 2) out.push_back(static_cast<char>((bits >> 4) & 0xff));
  if (count == 3) {
    out.push_back(static_cast<char>((bits >> 10) & 0xff));
    out.push_back(static_cast<char>((bits >> 2) & 0xff));
  }
  return out;
}

Result<gpb::FileDescriptorProto> parse(const std::string& name, std::string_view text) {
  // Confluent's clients may send a schema as a serialized
  // FileDescriptorProto in base64 (confluent-kafka-python does): .proto
  // text always has characters base64 lacks, so the two cannot be confused.
  if (auto bytes = from_base64(text)) {
    gpb::FileDescriptorProto proto;
    if (proto.ParseFromString(*bytes) && !proto.message_type().empty()) {
      proto.set_name(name);
      return proto;
    }
  }
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    return invalid(fmt::format("{}{} bytes is too large", in_file(name), text.size()));
  }
  gpb::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  ParseErrors errors;
  gpb::io::Tokenizer tokenizer(&input, &errors);
  gpb::compiler::Parser parser;
  parser.RecordErrorsTo(&errors);
  gpb::FileDescriptorProto proto;
  // A file without a `syntax` line is proto2, as Confluent takes it; the
  // parser says so on stderr each time, which a registry must not.
  const gpb::LogSilencer quiet;
  if (!parser.Parse(&tokenizer, &proto) || !errors.first().empty()) {
    return invalid(in_file(name) + (errors.first().empty() ? "does not parse" : errors.first()));
  }
  proto.set_name(name);
  return proto;
}

// Builds files into a pool, each after the files it imports (protobuf
// builds a file only against imports already in its pool).
class PoolBuilder {
 public:
  PoolBuilder(const SchemaText& s, gpb::DescriptorPool& pool) : s_(s), pool_(pool) {}

  Result<const gpb::FileDescriptor*> add_text(const std::string& name, std::string_view text) {
    STRATA_ASSIGN_OR_RETURN(gpb::FileDescriptorProto proto, parse(name, text));
    return add(proto);
  }

 private:
  Result<const gpb::FileDescriptor*> add(const gpb::FileDescriptorProto& proto) {
    // A file is in progress from here until it is built; meeting it again
    // among its own imports means the imports go round in a circle.
    building_.insert(proto.name());
    for (const std::string& dependency : proto.dependency()) {
      STRATA_TRY(add_import(proto.name(), dependency));
    }
    building_.erase(proto.name());
    BuildErrors errors;
    const gpb::FileDescriptor* file = pool_.BuildFileCollectingErrors(proto, &errors);
    if (file == nullptr) {
      return invalid(in_file(proto.name()) +
                     (errors.first().empty() ? "does not build" : errors.first()));
    }
    return file;
  }

  Status add_import(const std::string& importer, const std::string& path) {
    if (pool_.FindFileByName(path) != nullptr) return ok_status();
    if (building_.contains(path)) {
      return invalid(
          fmt::format("{}import '{}' is part of an import cycle", in_file(importer), path));
    }
    // A reference wins over a well-known file of the same path: the
    // registry resolved it on purpose.
    for (const auto& [name, text] : s_.references) {
      if (name != path) continue;
      STRATA_TRY(add_text(name, text));
      return ok_status();
    }
    if (const gpb::FileDescriptor* known = well_known_file(path)) {
      gpb::FileDescriptorProto proto;
      known->CopyTo(&proto);
      STRATA_TRY(add(proto));
      return ok_status();
    }
    return invalid(fmt::format("{}import '{}' is neither a reference nor a well-known file",
                               in_file(importer), path));
  }

  const SchemaText& s_;
  gpb::DescriptorPool& pool_;
  std::set<std::string> building_;
};

}  // namespace

Result<ProtobufSchema> build_protobuf_schema(const SchemaText& s) {
  ProtobufSchema built{.pool = std::make_unique<gpb::DescriptorPool>()};
  PoolBuilder builder(s, *built.pool);
  STRATA_ASSIGN_OR_RETURN(built.file, builder.add_text(std::string(kSchemaFile), s.schema));
  return built;
}

}  // namespace strata::registry
