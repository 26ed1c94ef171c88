// The REST API's routes: one HTTP request (method, target, body) to the
// Registry operation it names, answered with its Reply; unknown paths 404,
// known paths with another method 405, unparseable JSON bodies 422.
//
//   serve_request(registry, {"GET", "/subjects?deleted=true", ""}, send);
//
// Thread-safety: the Registry's thread.
#pragma once

#include <functional>
#include <string>

#include "registry/registry.h"
#include "registry/reply.h"

namespace strata::registry {

void serve_request(Registry& registry, const HttpRequest& request, Done done);

// Whether the request changes the registry (in a cluster it goes to the
// leader of _schemas).
bool is_write(const HttpRequest& request);

}  // namespace strata::registry
