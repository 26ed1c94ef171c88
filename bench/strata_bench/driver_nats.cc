// The nats-jetstream driver: strata-bench over NATS JetStream, through the
// NATS C client (libnats).
//
// Mapping of the workload:
//   - topic T is a JetStream stream named "T" with subjects "T.*", file
//     storage, limits retention; partition p of T is the subject "T.<p>".
//     JetStream orders a stream as a whole, so "T.<p>" only routes messages;
//     it is not a separate log as a Kafka partition is.
//   - prepare() deletes each stream and adds it fresh (which also drops the
//     durable consumers it had), then creates one durable pull consumer per
//     (topic, group), named after the group: DeliverAll, AckExplicit,
//     AckWait 30 s, MaxAckPending 65536. consumer() creates that durable too
//     if it is missing (idempotently: a member that loses the race finds it).
//     All members of a group bind to the same durable and the server spreads
//     the messages they pull among them; `member`/`members` are unused.
//   - cleanup() deletes the streams.
//   - keys: ignored. The runner already turns a key into a partition, and
//     nothing downstream reads keys back, so a header per message would only
//     cost bytes.
//
// Acks:
//   - "0": core NATS publish, no PubAck is requested. The producer publishes
//     a marker to its own inbox every max_pending/16 messages (and in poll
//     and flush); the server handles one connection's messages in order, so
//     when the marker comes back every message before it has been read and
//     routed by the server (not necessarily stored yet). Those messages are
//     then reported acked.
//   - "1" and "all": js_PublishAsync; a message is acked when its JetStream
//     PubAck arrives, which the server sends after the stream stored it (for
//     a replicated stream, see `replicas`, after a quorum of replicas stored
//     it). File storage writes to the OS and is fsynced by the server on an
//     interval, not per message, unless the server is configured otherwise;
//     JetStream has nothing stronger per publish, so "1" and "all" are the
//     same here.
//   At most `max_pending` messages are unacknowledged per producer; send()
//   serves acknowledgements while the window is full. PubAcks arrive on
//   libnats threads and are queued; the sink only ever sees them inside
//   send/poll/flush on the producer's thread.
//
// Consumers are pull consumers on the group's durable, speaking the pull
// protocol themselves: a request to $JS.API.CONSUMER.MSG.NEXT.<stream>.<durable>
// for `fetch_batch` messages, answered on the member's own inbox; the next
// request goes out as soon as the previous one is filled or ends (a 408 or
// 409 status), so the server always has one waiting. Every message is acked
// individually ("+ACK" to its reply subject, not waiting for a reply). AckAll
// on the last message of a batch would be cheaper but wrong here: with
// several members on one durable it would also ack messages delivered to
// the other members and not yet handed over.
//
// natsSubscription_Fetch is not used: in libnats 3.4.1 (Debian 12) it
// compares its count with the request's batch after reducing that batch by
// the messages it took from earlier, late deliveries, so once more than half
// a batch is waiting it writes past the array it allocated (seen as heap
// corruption under the mission workload, where consumers fall behind).
//
// Settings (-D key=value): max_pending (4096), fetch_batch (1000),
// ack_timeout_ms (30000: a PubAck missing this long fails the message),
// connect_timeout_ms (2000), replicas (1).
//
// libnats is opened once per process and never closed: nats_Close() is
// process-global, and several drivers may live in one process.
#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nats/nats.h>

#include "bench/strata_bench/driver.h"
#include "bench/strata_bench/message.h"
#include "bench/strata_bench/nats_jetstream.h"

namespace strata::bench {
namespace {

using namespace nats;

// ---------------------------------------------------------------------------
// Producer.

// Acknowledgements handed over from libnats threads to the producer's
// thread. Each callback's last action is push_*, under the mutex, so once
// callbacks() reaches what the producer expects no callback touches the
// queue again.
class AckQueue {
 public:
  struct Event {
    int64_t send_ns = 0;
    bool ok = true;
    std::string error;  // when !ok
  };

  void push(Event e) {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(e));
    ++callbacks_;
    cv_.notify_all();
  }
  // Marker `id` came back: every core publish before it was handled.
  void push_marker(uint64_t id) {
    std::lock_guard lock(mu_);
    marker_ = std::max(marker_, id);
    ++callbacks_;
    cv_.notify_all();
  }
  // Moves the queued events into `out` (cleared first); returns the highest
  // marker seen.
  uint64_t take(std::vector<Event>& out) {
    out.clear();
    std::lock_guard lock(mu_);
    out.swap(events_);
    return marker_;
  }
  // Waits until the callback count differs from `seen` or `deadline`
  // passes; returns the count.
  uint64_t wait_past(uint64_t seen, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mu_);
    cv_.wait_until(lock, deadline, [&] { return callbacks_ != seen; });
    return callbacks_;
  }
  uint64_t callbacks() {
    std::lock_guard lock(mu_);
    return callbacks_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Event> events_;
  uint64_t marker_ = 0;
  uint64_t callbacks_ = 0;
};

// jsPubAckHandler: one call per successful js_PublishAsync, on a libnats
// thread, with the original message (ours to destroy).
void on_pub_ack(jsCtx*, natsMsg* msg, jsPubAck* pa, jsPubAckErr* pae, void* closure) {
  AckQueue::Event e;
  std::optional<Stamp> stamp =
      read_stamp(std::string_view(natsMsg_GetData(msg), natsMsg_GetDataLength(msg)));
  e.send_ns = stamp ? stamp->send_ns : 0;
  if (pa == nullptr) {
    e.ok = false;
    const char* subject = natsMsg_GetSubject(msg);
    natsStatus err = pae != nullptr ? pae->Err : NATS_ERR;
    const char* text = pae != nullptr && pae->ErrText != nullptr ? pae->ErrText : "";
    std::string_view status_text = natsStatus_GetText(err);
    bool extra = *text != '\0' && status_text != text;
    e.error =
        fmt::format("JetStream publish to '{}' failed: {}{}{}", subject != nullptr ? subject : "",
                    status_text, extra ? ": " : "", extra ? text : "");
    if (pae != nullptr && pae->ErrCode != 0) {
      e.error += fmt::format(" [JetStream error {}]", static_cast<int>(pae->ErrCode));
    }
  }
  natsMsg_Destroy(msg);
  static_cast<AckQueue*>(closure)->push(std::move(e));
}

// natsMsgHandler of the acks=0 marker subscription; the payload is the id.
void on_marker(natsConnection*, natsSubscription*, natsMsg* msg, void* closure) {
  uint64_t id = 0;
  const char* data = natsMsg_GetData(msg);
  (void)std::from_chars(data, data + natsMsg_GetDataLength(msg), id);
  natsMsg_Destroy(msg);
  static_cast<AckQueue*>(closure)->push_marker(id);
}

class NatsProducer final : public Producer {
 public:
  NatsProducer(const Config& c, const std::string& topic, int partitions, int index, bool core,
               AckSink& sink)
      : config_(c), topic_(topic), core_(core), sink_(sink), next_partition_(index % partitions) {
    for (int p = 0; p < partitions; ++p)
      subjects_.push_back(fmt::format("{}.{}", topic, p));
    marker_every_ = std::max(1, config_.max_pending / 16);
  }

  ~NatsProducer() override {
    // Callbacks may still be on their way to the queue; wait for them (each
    // PubAck is bounded by MaxWait), and if some never come, leave the
    // queue allocated so that a late callback cannot touch freed memory.
    uint64_t expected = core_ ? markers_sent_ : published_;
    auto deadline = std::chrono::steady_clock::now() + ack_deadline();
    uint64_t seen = queue_->callbacks();
    while (seen < expected && std::chrono::steady_clock::now() < deadline)
      seen = queue_->wait_past(seen, deadline);
    marker_sub_.reset();
    js_.reset();
    nc_.reset();
    if (seen < expected) (void)queue_.release();
  }

  Status init(ConnPtr nc) {
    nc_ = std::move(nc);
    if (core_) {
      natsInbox* raw_inbox = nullptr;
      natsStatus s = natsInbox_Create(&raw_inbox);
      if (s != NATS_OK) return nats_error("nats-jetstream: creating marker inbox", s);
      InboxPtr inbox(raw_inbox);
      marker_subject_ = raw_inbox;
      natsSubscription* raw_sub = nullptr;
      s = natsConnection_Subscribe(&raw_sub, nc_.get(), marker_subject_.c_str(), on_marker,
                                   queue_.get());
      if (s != NATS_OK) return nats_error("nats-jetstream: subscribing to marker inbox", s);
      marker_sub_.reset(raw_sub);
      natsSubscription_SetPendingLimits(raw_sub, -1, -1);
      return ok_status();
    }
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.Wait = kApiWaitMs;
    // Our own window (send() waits on it) keeps the library under its limit;
    // the library's is a backstop.
    jo.PublishAsync.MaxPending = config_.max_pending;
    jo.PublishAsync.StallWait = config_.ack_timeout_ms;
    jo.PublishAsync.AckHandler = on_pub_ack;
    jo.PublishAsync.AckHandlerClosure = queue_.get();
    STRATA_ASSIGN_OR_RETURN(js_, jetstream(nc_.get(), &jo));
    jsPubOptions_Init(&pub_opts_);
    pub_opts_.MaxWait = config_.ack_timeout_ms;
    return ok_status();
  }

  Status send(int partition, std::string_view, std::string_view value) override {
    if (partition < -1 || partition >= static_cast<int>(subjects_.size())) {
      return Error(Errc::kInvalidArgument,
                   fmt::format("nats-jetstream: partition {} out of range for topic '{}' ({})",
                               partition, topic_, subjects_.size()));
    }
    if (value.size() > static_cast<size_t>(INT32_MAX)) {
      return Error(Errc::kInvalidArgument, "nats-jetstream: message too large");
    }
    if (partition == -1) {
      partition = next_partition_;
      next_partition_ = (next_partition_ + 1) % static_cast<int>(subjects_.size());
    }
    serve();
    if (outstanding() >= static_cast<uint64_t>(config_.max_pending)) {
      if (core_ && !unmarked_.empty()) STRATA_TRY(send_marker());
      auto deadline = std::chrono::steady_clock::now() + ack_deadline();
      while (outstanding() >= static_cast<uint64_t>(config_.max_pending)) {
        if (std::chrono::steady_clock::now() >= deadline) {
          return Error(Errc::kIoError,
                       fmt::format("nats-jetstream: no acknowledgement from {} for {} ms with {} "
                                   "messages outstanding",
                                   config_.url, config_.ack_timeout_ms, outstanding()));
        }
        wait_and_serve(deadline);
      }
    }
    const std::string& subject = subjects_[static_cast<size_t>(partition)];
    int len = static_cast<int>(value.size());
    if (core_) {
      natsStatus s = natsConnection_Publish(nc_.get(), subject.c_str(), value.data(), len);
      if (s != NATS_OK)
        return nats_error(fmt::format("nats-jetstream: publish to '{}'", subject), s);
      std::optional<Stamp> stamp = read_stamp(value);
      unmarked_.push_back(stamp ? stamp->send_ns : 0);
      ++published_;
      if (unmarked_.size() >= static_cast<size_t>(marker_every_)) STRATA_TRY(send_marker());
      return ok_status();
    }
    natsStatus s = js_PublishAsync(js_.get(), subject.c_str(), value.data(), len, &pub_opts_);
    if (s != NATS_OK) {
      return nats_error(fmt::format("nats-jetstream: async publish to '{}'", subject), s);
    }
    ++published_;
    return ok_status();
  }

  void poll(std::chrono::milliseconds timeout) override {
    if (core_ && !unmarked_.empty()) (void)send_marker();
    if (serve() > 0 || outstanding() == 0) return;
    wait_and_serve(std::chrono::steady_clock::now() + timeout);
  }

  Status flush(std::chrono::milliseconds timeout) override {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    if (core_ && !unmarked_.empty()) STRATA_TRY(send_marker());
    serve();
    while (outstanding() > 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        return Error(Errc::kIoError,
                     fmt::format("nats-jetstream: flush timed out after {} ms with {} messages "
                                 "unacknowledged",
                                 timeout.count(), outstanding()));
      }
      wait_and_serve(deadline);
    }
    return ok_status();
  }

 private:
  struct MarkedBatch {
    uint64_t id;
    std::vector<int64_t> send_ns;
  };

  std::chrono::milliseconds ack_deadline() const {
    return std::chrono::milliseconds(config_.ack_timeout_ms) + std::chrono::seconds(1);
  }
  uint64_t outstanding() const { return published_ - handed_; }

  // acks=0: publishes a marker behind the unmarked messages.
  Status send_marker() {
    uint64_t id = markers_sent_ + 1;
    std::string payload = std::to_string(id);
    natsStatus s = natsConnection_Publish(nc_.get(), marker_subject_.c_str(), payload.data(),
                                          static_cast<int>(payload.size()));
    if (s != NATS_OK) {
      // Those messages can no longer be confirmed.
      Error e = nats_error("nats-jetstream: publishing a flush marker", s);
      for (size_t i = 0; i < unmarked_.size(); ++i)
        sink_.failed(e.message());
      handed_ += unmarked_.size();
      unmarked_.clear();
      return e;
    }
    markers_sent_ = id;
    batches_.push_back(MarkedBatch{id, std::move(unmarked_)});
    unmarked_ = {};
    return ok_status();
  }

  // Hands what has arrived to the sink; returns how many.
  size_t serve() {
    uint64_t marker = queue_->take(events_);
    size_t n = events_.size();
    for (const AckQueue::Event& e : events_) {
      if (e.ok) {
        sink_.acked(e.send_ns);
      } else {
        sink_.failed(e.error);
      }
    }
    while (!batches_.empty() && batches_.front().id <= marker) {
      for (int64_t ns : batches_.front().send_ns)
        sink_.acked(ns);
      n += batches_.front().send_ns.size();
      batches_.pop_front();
    }
    handed_ += n;
    return n;
  }

  void wait_and_serve(std::chrono::steady_clock::time_point deadline) {
    callbacks_seen_ = queue_->wait_past(callbacks_seen_, deadline);
    serve();
  }

  Config config_;
  std::string topic_;
  bool core_;  // acks=0
  AckSink& sink_;
  std::vector<std::string> subjects_;
  int next_partition_;
  int marker_every_;

  std::unique_ptr<AckQueue> queue_ = std::make_unique<AckQueue>();
  ConnPtr nc_;
  JsPtr js_;
  SubPtr marker_sub_;
  jsPubOptions pub_opts_{};
  std::string marker_subject_;

  uint64_t published_ = 0;       // sent successfully
  uint64_t handed_ = 0;          // reported to the sink
  uint64_t callbacks_seen_ = 0;  // queue callbacks already waited past
  std::vector<AckQueue::Event> events_;
  // acks=0 bookkeeping.
  std::vector<int64_t> unmarked_;
  std::deque<MarkedBatch> batches_;
  uint64_t markers_sent_ = 0;
};

// ---------------------------------------------------------------------------
// Consumer.

// Milliseconds left until `deadline`, never negative.
int64_t ms_until(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return std::max<int64_t>(0, left.count());
}

// The subject to ack a pulled message on; null for a status message about
// the pull request itself (404/408 no more messages, 409 the consumer's
// limits or deletion; 100 heartbeats are not asked for), which has none.
const char* ack_subject(natsMsg* m) {
  const char* reply = natsMsg_GetReply(m);
  return reply != nullptr && *reply != '\0' ? reply : nullptr;
}

class NatsConsumer final : public Consumer {
 public:
  NatsConsumer(ConnPtr nc, SubPtr sub, std::string inbox, std::string next_subject, int batch,
               std::string what)
      : nc_(std::move(nc)),
        sub_(std::move(sub)),
        inbox_(std::move(inbox)),
        next_subject_(std::move(next_subject)),
        batch_(batch),
        what_(std::move(what)) {}

  ~NatsConsumer() override {
    sub_.reset();
    nc_.reset();
  }

  Result<size_t> poll(std::chrono::milliseconds timeout, MessageSink& sink) override {
    if (!sub_) return Error(Errc::kShutdown, fmt::format("nats-jetstream: {} is closed", what_));
    auto now = std::chrono::steady_clock::now();
    // A request the server should long have ended (its 408 lost with a
    // reconnect) is given up on; late messages from it are still handled.
    if (!request_open_ || now >= request_deadline_ + kRequestGrace) STRATA_TRY(request_more());
    const auto deadline = now + timeout;
    size_t delivered = 0;
    bool asked_again = false;
    while (delivered < static_cast<size_t>(batch_)) {
      // Wait for the first message only; take the rest of what is queued.
      int64_t wait_ms = 0;
      if (delivered == 0) {
        wait_ms = ms_until(deadline);
        if (wait_ms == 0) break;
      }
      natsMsg* raw = nullptr;
      natsStatus s = natsSubscription_NextMsg(&raw, sub_.get(), wait_ms);
      if (s == NATS_TIMEOUT) break;
      if (s != NATS_OK)
        return nats_error(fmt::format("nats-jetstream: next message for {}", what_), s);
      MsgPtr m(raw);
      const char* reply = ack_subject(m.get());
      if (reply == nullptr) {
        // The request has ended. One new request per poll, so a server
        // that refuses at once (409) is not asked again in a tight loop.
        request_open_ = false;
        if (delivered == 0 && !asked_again && std::chrono::steady_clock::now() < deadline) {
          STRATA_TRY(request_more());
          asked_again = true;
        }
        continue;
      }
      sink.received(std::string_view(natsMsg_GetData(m.get()), natsMsg_GetDataLength(m.get())));
      ++delivered;
      s = natsConnection_Publish(nc_.get(), reply, "+ACK", 4);
      if (s != NATS_OK) return nats_error(fmt::format("nats-jetstream: ack for {}", what_), s);
      if (--remaining_ <= 0) {
        request_open_ = false;
        STRATA_TRY(request_more());
      }
    }
    return delivered;
  }

  Status close() override {
    if (!sub_) return ok_status();
    // A pull request cannot be withdrawn: until it ends, the server may send
    // it messages, which nobody would ack before AckWait. Wait for its end
    // and hand back (NAK) whatever arrives or is still queued, so the other
    // members get those messages at once.
    Status nak_status = ok_status();
    auto deadline = std::min(request_deadline_ + kRequestGrace,
                             std::chrono::steady_clock::now() + kRequestExpires + kRequestGrace);
    for (;;) {
      natsMsg* raw = nullptr;
      if (natsSubscription_NextMsg(&raw, sub_.get(), request_open_ ? ms_until(deadline) : 0) !=
          NATS_OK)
        break;
      MsgPtr m(raw);
      const char* reply = ack_subject(m.get());
      if (reply == nullptr) {
        request_open_ = false;
        continue;
      }
      natsStatus n = natsConnection_Publish(nc_.get(), reply, "-NAK", 4);
      if (n != NATS_OK && nak_status.ok())
        nak_status = nats_error(fmt::format("nats-jetstream: nak for {}", what_), n);
      if (--remaining_ <= 0) request_open_ = false;
    }
    // Acks and naks are published without waiting; push the last ones out
    // before leaving, or the server would redeliver only after AckWait.
    natsStatus s = natsConnection_FlushTimeout(nc_.get(), kCloseFlushMs);
    natsStatus u = natsSubscription_Unsubscribe(sub_.get());
    sub_.reset();
    if (s != NATS_OK)
      return nats_error(fmt::format("nats-jetstream: flushing acks of {}", what_), s);
    if (u != NATS_OK) return nats_error(fmt::format("nats-jetstream: unsubscribing {}", what_), u);
    return nak_status;
  }

 private:
  static constexpr std::chrono::milliseconds kRequestExpires{500};
  static constexpr std::chrono::milliseconds kRequestGrace{1000};

  // Asks the durable for the next `batch_` messages, delivered to our inbox.
  // The group's position is the durable's: members share it.
  Status request_more() {
    std::string body =
        fmt::format("{{\"batch\":{},\"expires\":{}}}", batch_,
                    std::chrono::duration_cast<std::chrono::nanoseconds>(kRequestExpires).count());
    natsStatus s = natsConnection_PublishRequest(nc_.get(), next_subject_.c_str(), inbox_.c_str(),
                                                 body.data(), static_cast<int>(body.size()));
    if (s != NATS_OK)
      return nats_error(fmt::format("nats-jetstream: pull request for {}", what_), s);
    request_open_ = true;
    remaining_ = batch_;
    request_deadline_ = std::chrono::steady_clock::now() + kRequestExpires;
    return ok_status();
  }

  ConnPtr nc_;
  SubPtr sub_;
  std::string inbox_;
  std::string next_subject_;
  int batch_;
  std::string what_;
  bool request_open_ = false;
  int64_t remaining_ = 0;
  std::chrono::steady_clock::time_point request_deadline_{};
};

// ---------------------------------------------------------------------------
// Driver.

class NatsDriver final : public Driver {
 public:
  NatsDriver(Config c, ConnPtr nc, JsPtr js)
      : config_(std::move(c)), nc_(std::move(nc)), js_(std::move(js)) {}
  ~NatsDriver() override {
    js_.reset();
    nc_.reset();
  }

  std::string_view name() const override { return "nats-jetstream"; }

  Status prepare(const Workload& w) override {
    std::vector<std::string> topics = w.topic_names();
    std::vector<std::string> groups = w.group_names();
    for (const std::string& t : topics)
      STRATA_TRY(check_name(t, "topic"));
    for (const std::string& g : groups)
      STRATA_TRY(check_name(g, "group"));
    for (const std::string& t : topics) {
      STRATA_TRY(delete_stream(js_.get(), t));
      std::string subject = t + ".*";
      const char* subjects[] = {subject.c_str()};
      jsStreamConfig sc;
      jsStreamConfig_Init(&sc);
      sc.Name = t.c_str();
      sc.Subjects = subjects;
      sc.SubjectsLen = 1;
      sc.Storage = js_FileStorage;
      sc.Retention = js_LimitsPolicy;
      sc.Replicas = config_.replicas;
      jsErrCode jerr = static_cast<jsErrCode>(0);
      natsStatus s = js_AddStream(nullptr, js_.get(), &sc, nullptr, &jerr);
      if (s != NATS_OK) {
        return nats_error(fmt::format("nats-jetstream: creating stream '{}'", t), s, jerr);
      }
      for (const std::string& g : groups)
        STRATA_TRY(ensure_durable(js_.get(), t, g));
    }
    return ok_status();
  }

  Result<std::unique_ptr<Producer>> producer(const Workload& w, const std::string& topic, int index,
                                             AckSink& sink) override {
    bool core = false;
    if (w.acks == "0") {
      core = true;
    } else if (w.acks != "1" && w.acks != "all") {
      return config_error(
          fmt::format("nats-jetstream: acks '{}' (expected \"0\", \"1\" or \"all\")", w.acks));
    }
    if (w.partitions < 1) {
      return config_error(fmt::format("nats-jetstream: {} partitions", w.partitions));
    }
    STRATA_TRY(check_name(topic, "topic"));
    STRATA_ASSIGN_OR_RETURN(ConnPtr nc,
                            connect(config_, fmt::format("strata-bench producer {}", index)));
    auto p = std::make_unique<NatsProducer>(config_, topic, w.partitions, std::max(index, 0), core,
                                            sink);
    STRATA_TRY(p->init(std::move(nc)));
    return std::unique_ptr<Producer>(std::move(p));
  }

  Result<std::unique_ptr<Consumer>> consumer(const Workload&, const std::string& topic,
                                             const std::string& group, int member,
                                             int members) override {
    STRATA_TRY(check_name(topic, "topic"));
    STRATA_TRY(check_name(group, "group"));
    std::string what =
        fmt::format("member {}/{} of group '{}' on '{}'", member, members, group, topic);
    STRATA_ASSIGN_OR_RETURN(ConnPtr nc, connect(config_, "strata-bench " + what));
    STRATA_ASSIGN_OR_RETURN(JsPtr js, admin_jetstream(nc.get()));
    STRATA_TRY(ensure_durable(js.get(), topic, group));
    js.reset();
    natsInbox* raw_inbox = nullptr;
    natsStatus s = natsInbox_Create(&raw_inbox);
    if (s != NATS_OK) return nats_error("nats-jetstream: creating an inbox", s);
    InboxPtr inbox(raw_inbox);
    natsSubscription* raw = nullptr;
    s = natsConnection_SubscribeSync(&raw, nc.get(), raw_inbox);
    if (s != NATS_OK) {
      return nats_error(fmt::format("nats-jetstream: subscribing to the inbox of {}", what), s);
    }
    SubPtr sub(raw);
    // The server sends at most a batch per request; never drop any of it.
    natsSubscription_SetPendingLimits(raw, -1, -1);
    return std::unique_ptr<Consumer>(
        std::make_unique<NatsConsumer>(std::move(nc), std::move(sub), std::string(raw_inbox),
                                       fmt::format("$JS.API.CONSUMER.MSG.NEXT.{}.{}", topic, group),
                                       config_.fetch_batch, std::move(what)));
  }

  Status cleanup(const Workload& w) override {
    Status first;
    for (const std::string& t : w.topic_names()) {
      Status s = delete_stream(js_.get(), t);
      if (!s.ok() && first.ok()) first = std::move(s);
    }
    return first;
  }

 private:
  Config config_;
  ConnPtr nc_;  // administration: streams and durables
  JsPtr js_;
};

}  // namespace

Result<std::unique_ptr<Driver>> make_nats_driver(const DriverOptions& options) {
  STRATA_ASSIGN_OR_RETURN(Config c, parse_config(options));
  STRATA_ASSIGN_OR_RETURN(ConnPtr nc, connect(c, "strata-bench admin"));
  STRATA_ASSIGN_OR_RETURN(JsPtr js, admin_jetstream(nc.get()));
  return std::unique_ptr<Driver>(
      std::make_unique<NatsDriver>(std::move(c), std::move(nc), std::move(js)));
}

}  // namespace strata::bench
