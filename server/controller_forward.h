// Forwarding to the controller: the cluster changes only the controller
// makes (CreateTopics, DeleteTopics, CreatePartitions, topic AlterConfigs,
// ElectLeaders) are accepted by every broker; one that is not the
// controller relays the request, as it came, to the controller's listener
// and relays the answer back, as it came (same correlation id, same
// version: every broker runs the same code).
//
//   if (forward_to_controller(ctx, frame, reply, [=] { handle_here(); })) return;
//
// A relayed request carries the client id kForwardedClientId, and a broker
// never relays such a request again: if the controller moved meanwhile the
// receiver answers it itself (NOT_CONTROLLER), and the client retries.
//
// Thread-safety: the connection's shard; the relay runs on its io_context.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/shared_bytes.h"
#include "server/dispatch.h"
#include "server/services.h"

namespace strata::server {

inline constexpr std::string_view kForwardedClientId = "strata-controller-forward";

// Relays `frame` (a request, without its size prefix) to the controller if
// this broker is not the controller and the request was not relayed
// already; `reply` then gets the controller's answer. While no controller
// can be reached (none known, or a dead one still named) it is tried again
// for up to 30 s; then, or if this broker became the controller meanwhile,
// `fallback` runs instead. Returns false (and does nothing) when the
// request is to be handled here.
bool forward_to_controller(const RequestContext& ctx, const SharedBytes& frame, ReplyFn reply,
                           std::function<void()> fallback);

// Sends `request` (a whole frame, size prefix included) to the controller
// and returns its response frame (without the size prefix, from the
// correlation id on). kNotController when no live controller is known or
// the one known refuses connections (nothing was sent), kUnavailable when
// it did not answer within the timeout.
void call_controller(const ClusterView& cluster, ShardState& shard,
                     std::vector<SharedBytes> request,
                     std::function<void(Result<SharedBytes>)> done);

// Sends `request` (a whole frame) to broker `node_id`'s listener and
// returns its response frame, like call_controller; kUnavailable when the
// broker is not live or did not answer within the timeout.
void call_broker(const ClusterView& cluster, ShardState& shard, int32_t node_id,
                 std::vector<SharedBytes> request, std::function<void(Result<SharedBytes>)> done);

// Asks the controller to create `topics` (CreateTopics under the relay's
// client id); `done` with the first failure other than "already exists".
void create_topics_at_controller(const ClusterView& cluster, ShardState& shard,
                                 std::vector<NewTopic> topics, std::function<void(Status)> done);

}  // namespace strata::server
