// WireCodes: the error codes of the replication RPC are Kafka's numbers
// (replication.proto), which the server owns (server/kafka/error_code.h);
// replication/ speaks Errc and is handed the two mappings.
#pragma once

#include <cstdint>

#include "base/error.h"

namespace strata::replication {

struct WireCodes {
  int32_t (*encode)(Errc) = nullptr;  // an answer's error, as sent
  Errc (*decode)(int32_t) = nullptr;  // a received code (kInternal for one it does not know)
};

}  // namespace strata::replication
