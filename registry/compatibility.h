// Compatibility levels: which earlier versions of a subject a new schema is
// checked against, and in which direction. A format answers one question —
// can a reader schema read what a writer schema wrote — and the level turns
// it into the registry's verdict:
//   BACKWARD  the new schema reads data written with the latest version
//   FORWARD   the latest version reads data written with the new schema
//   FULL      both
//   *_TRANSITIVE  the same against every earlier version, not only the latest
//   NONE      no check
//
//   auto why = incompatibilities(*format, CompatibilityLevel::kBackward, fresh, {v1, v2});
//   if (why && why->empty()) { /* register */ }
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "registry/schema_format.h"

namespace strata::registry {

enum class CompatibilityLevel {
  kNone,
  kBackward,
  kBackwardTransitive,
  kForward,
  kForwardTransitive,
  kFull,
  kFullTransitive,
};

// "BACKWARD", "FULL_TRANSITIVE", …: the REST API's names.
std::string_view compatibility_name(CompatibilityLevel level);
std::optional<CompatibilityLevel> parse_compatibility(std::string_view name);

// Why `candidate` may not follow `earlier` (oldest first, the subject's
// live versions) under `level`: one message per problem, each naming the
// version it concerns; empty when it may. An error when a schema does not
// parse.
Result<std::vector<std::string>> incompatibilities(const SchemaFormat& format,
                                                   CompatibilityLevel level,
                                                   const SchemaText& candidate,
                                                   const std::vector<SchemaText>& earlier);

}  // namespace strata::registry
