// InitProducerId: ids for idempotent producers (transactions are issue 14's
// second half; a transactional id is refused until then).
#include <spdlog/spdlog.h>

#include "server/broker.h"
#include "server/handlers/handlers.h"
#include "server/kafka/error_code.h"

namespace strata::server::handlers {

void init_producer_id(const RequestContext& ctx, kafka::InitProducerIdRequest req,
                      Responder<kafka::InitProducerIdResponse> out) {
  using kafka::ErrorCode;
  if (req.transactional_id) {
    // An empty id is invalid (as in Kafka); any other has no transaction
    // coordinator yet: a clear refusal, not a retry loop.
    if (!req.transactional_id->empty()) {
      spdlog::info(
          "InitProducerId from {} with transactional.id '{}': transactions are not "
          "supported yet",
          ctx.peer, *req.transactional_id);
    }
    kafka::InitProducerIdResponse resp;
    resp.error_code = kafka::code(ErrorCode::kInvalidRequest);
    resp.producer_epoch = -1;
    return out.send(resp);
  }
  // Without a transactional id Kafka always hands out a new id at epoch 0,
  // whatever id and epoch a v3+ request names.
  ctx.broker.allocate_producer_id(ctx.shard.id(), [out](Result<int64_t> id) {
    kafka::InitProducerIdResponse resp;
    if (!id) {
      resp.error_code = kafka::code(ErrorCode::kCoordinatorNotAvailable);  // retriable
      resp.producer_epoch = -1;
    } else {
      resp.producer_id = *id;
      resp.producer_epoch = 0;
    }
    out.send(resp);
  });
}

}  // namespace strata::server::handlers
