// BrokerRegistration: this broker's record under /strata/brokers/<id>,
// held under a lease it keeps alive, and whether the broker may act as a
// leader right now.
//
//   BrokerRegistration reg(store, clock, timers, self, {.session_timeout_ms = 6000});
//   STRATA_TRY(reg.register_now());   // kAlreadyExists: a live broker holds the id
//   reg.start();                      // keep-alive every third of the TTL
//   if (!reg.lease_valid()) ...       // self-fenced: answer NOT_LEADER_OR_FOLLOWER
//
// The broker epoch is the store revision of the registration; it grows with
// every re-registration, so whoever compares epochs can tell a broker's
// incarnations apart. Safety never rests on the clock alone: the lease
// decides who is registered; lease_valid() only makes a broker that lost
// contact stop early, on its own steady clock, before the store's TTL runs
// out (a keep-alive sent at t renews the lease until at least t + TTL, so
// the broker trusts it until t + TTL - margin).
//
// Thread-safety: register_at_start, start, stop and the keep-alives run on
// the thread of `timers` (a broker gives it a thread of its own, so that no
// other work can delay a renewal past the TTL); the store calls block there,
// never on a shard. The accessors and view_read_at may be called from any
// thread: the lease, epoch and renewal time change together under a mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "base/clock.h"
#include "base/result.h"
#include "base/timers.h"
#include "coordinator/cluster_metadata.h"
#include "coordinator/metadata_store.h"

namespace strata::coordinator {

inline constexpr std::string_view kBrokersPrefix = "/strata/brokers/";

// The registration record of a broker, and back.
std::string encode_broker(const BrokerInfo& b);
Result<BrokerInfo> decode_broker(const std::string& value);

class BrokerRegistration {
 public:
  struct Options {
    int64_t session_timeout_ms = 6000;  // broker.session.timeout.ms: the lease TTL
  };

  BrokerRegistration(MetadataStore& store, const Clock& clock, Timers& timers, BrokerInfo self,
                     Options options);
  ~BrokerRegistration();
  BrokerRegistration(const BrokerRegistration&) = delete;
  BrokerRegistration& operator=(const BrokerRegistration&) = delete;

  // Grants a lease and creates the record under it, unless the key exists
  // (kAlreadyExists, naming the broker that holds it).
  Status register_now();
  // register_now() at start-up, waiting out the record of an earlier run of
  // this broker that was killed (its lease not revoked): the store drops it
  // within the TTL — a TTL after the store itself restarted, at worst. A
  // refusal that outlasts two TTLs is another live broker with this id.
  // `sleep(ms)` waits between attempts.
  Status register_at_start(const std::function<void(int64_t ms)>& sleep);
  static constexpr int64_t kRegisterRetryMs = 250;
  // Keeps the lease alive every third of the TTL; re-registers (a new
  // epoch) if the store says the lease is gone.
  void start();
  // Stops the keep-alives and revokes the lease (the record goes at once).
  void stop();

  bool registered() const;
  int64_t broker_epoch() const;
  LeaseId lease() const;
  const BrokerInfo& self() const { return self_; }
  // The lease was renewed recently enough to act as a leader now.
  bool lease_valid() const;
  // The longest a lease is trusted after its last renewal was sent.
  int64_t trust_ms() const;
  // The steady time until which the broker may act as a leader (0 while
  // it is not registered, or after a re-registration until view_read_at):
  // lease_valid() is steady_ms() < this.
  int64_t trusted_until_ms() const;
  // The broker read the cluster's state at store revision `revision`. After
  // a re-registration (a new epoch: the old lease expired, and the
  // controller may have moved every leadership away while this broker was
  // paused or cut off) the lease is trusted again only from a view read at
  // or after the new registration's revision: a leader must not act on the
  // view from before.
  void view_read_at(int64_t revision);

  // `fn` runs after every keep-alive attempt (renewed, failed, or
  // registered again as a new epoch), on the timers' thread.
  void on_keep_alive(std::function<void()> fn) { on_keep_alive_ = std::move(fn); }

 private:
  void keep_alive();
  // register_now() after the lease was lost: a new epoch, trusted only
  // from a view read after it.
  void register_again();
  // Grants a lease and creates the record; with `again`, the new epoch is
  // trusted only from a view read after it.
  Status register_lease(bool again);
  void schedule();

  MetadataStore& store_;
  const Clock& clock_;
  Timers& timers_;
  BrokerInfo self_;
  Options options_;
  mutable std::mutex mu_;
  LeaseId lease_ = kNoLease;       // guarded by mu_; written on the timers' thread only
  int64_t epoch_ = 0;              // guarded by mu_
  int64_t renewed_at_ms_ = 0;      // guarded by mu_: when the last renewal was sent
  int64_t view_needed_after_ = 0;  // guarded by mu_: see view_read_at
  TimerId timer_ = 0;
  bool running_ = false;
  std::function<void()> on_keep_alive_;
};

}  // namespace strata::coordinator
