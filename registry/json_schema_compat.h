// Whether a consumer expecting one JSON Schema can read every document valid
// under another: the question behind the registry's compatibility levels for
// JSON Schema.
//
//   std::vector<std::string> why = json_schema_read_incompatibilities(reader, writer);
//   if (why.empty()) { /* all that `writer` admits, `reader` admits too */ }
//
// The check is structural and errs towards "incompatible": when it cannot
// prove that the writer's documents all satisfy the reader, it says why not.
// Each message starts with the JSON pointer of the reader's schema it is
// about, e.g. "#/properties/age: type narrowed from [...] to [...]".
//
// Thread-safety: a pure function of its arguments.
#pragma once

#include <string>
#include <vector>

#include "registry/json_schema_set.h"

namespace strata::registry {

std::vector<std::string> json_schema_read_incompatibilities(const JsonSchemaSet& reader,
                                                            const JsonSchemaSet& writer);

}  // namespace strata::registry
