// redis-streams: the strata-bench driver for Redis Streams, over hiredis.
//
// Mapping of the workload (see driver.h):
//   - partition p of topic T is the stream key "T-p"; topics are named
//     "<prefix>-<i>", so "bench-0-3" is partition 3 of topic "bench-0";
//   - an entry is {"k": key, "v": value}, "k" only when the key is not
//     empty; partition -1 goes round robin over the topic's streams;
//   - a workload group is a Redis consumer group created on every stream of
//     the topic at id 0, so it reads each stream from its beginning. Redis
//     does not spread streams over a group's consumers, so member m of M
//     statically reads the partitions p with p % M == m, as consumer "c<m>";
//     a member beyond the partition count reads nothing, and nothing is
//     rebalanced when a member leaves.
//
// Acks, for one XADD:
//   "0"   the producer's connection runs CLIENT REPLY OFF: Redis sends no
//         reply, and a message counts as acknowledged once it is written to
//         the socket (as with Kafka's acks=0, a refusal goes unnoticed);
//   "1"   acknowledged when XADD's reply arrives: Redis applied it in memory;
//   "all" the same as "1": Redis 7.0 offers nothing stronger for one write
//         on one server. Persistence is server configuration (appendonly,
//         appendfsync; with the usual everysec no write waits for fsync),
//         not a request option, and WAIT only counts replicas (WAITAOF
//         comes with Redis 7.2).
//
// Throughput as Redis's docs recommend, by pipelining. A producer appends
// XADDs to its connection's buffer and writes the buffer when a send finds
// it holding batch_bytes or a command older than linger_ms, and before it
// waits for anything (poll, flush, a full window), so the runner's calls
// drive the writes. At most `pipeline` messages are in flight; replies come
// in order, so they are matched to a queue of send times. A consumer reads
// all its streams with one XREADGROUP ... COUNT n BLOCK ms, then XACKs what
// it delivered, one command per stream, and reads those replies with its
// next command's.
//
// Settings (-D key=value):
//   pipeline    in-flight XADDs per producer (1000)
//   count       entries read per stream by one XREADGROUP (1000)
//   maxlen      XADD MAXLEN ~ cap (none); an entry trimmed before it was
//               read counts as lost
//   timeout_ms  connect and I/O timeout (10000)
#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <climits>
#include <deque>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include <hiredis/hiredis.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include "bench/strata_bench/driver.h"
#include "bench/strata_bench/message.h"

namespace strata::bench {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::string_view kName = "redis-streams";
// prepare() and cleanup() pipeline at most this many commands before reading
// their replies, so that many streams need no more memory than a few.
constexpr size_t kAdminBatch = 1000;

Error fail(Errc code, const std::string& message) {
  return Error(code, std::string(kName) + ": " + message);
}

// `d` from now, capped so that a caller's "forever" cannot overflow.
Clock::time_point after(milliseconds d) {
  return Clock::now() + std::clamp(d, milliseconds(0), milliseconds(std::chrono::hours(24)));
}

// Milliseconds left until `deadline`, rounded up so a wait never spins.
int ms_until(Clock::time_point deadline) {
  auto left = deadline - Clock::now();
  if (left <= Clock::duration::zero()) return 0;
  auto ms = std::chrono::ceil<milliseconds>(left).count();
  return static_cast<int>(std::min<int64_t>(ms, INT_MAX));
}

struct Endpoint {
  std::string host = "127.0.0.1";
  int port = 6379;
};

std::string to_string(const Endpoint& at) {
  return at.host + ":" + std::to_string(at.port);
}

// Accepts "redis://host:port", "host:port", either without ":port", or "".
Result<Endpoint> parse_url(std::string_view url) {
  Endpoint at;
  if (url.empty()) return at;
  std::string_view rest = url;
  if (auto scheme = rest.find("://"); scheme != std::string_view::npos) {
    if (rest.substr(0, scheme) != "redis")
      return fail(Errc::kInvalidArgument,
                  "url '" + std::string(url) + "': scheme must be redis:// (or none)");
    rest.remove_prefix(scheme + 3);
  }
  auto bad = [&](std::string_view why) {
    return fail(Errc::kInvalidArgument, "url '" + std::string(url) + "': " + std::string(why) +
                                            " (want redis://host:port or host:port)");
  };
  if (rest.find_first_of("/@?[]") != std::string_view::npos)
    return bad("paths, credentials and IPv6 literals are not supported");
  std::string_view host = rest;
  if (auto colon = rest.find(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    std::string_view port = rest.substr(colon + 1);
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), at.port);
    if (ec != std::errc() || end != port.data() + port.size() || at.port < 1 || at.port > 65535)
      return bad("port must be a number in [1, 65535]");
  }
  if (host.empty()) return bad("no host");
  at.host = std::string(host);
  return at;
}

struct Settings {
  size_t pipeline = 1000;
  size_t count = 1000;
  std::optional<std::string> maxlen;  // decimal, as XADD takes it
  milliseconds timeout{10000};
};

Result<int64_t> positive_setting(const std::string& key, const std::string& value) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < 1)
    return fail(Errc::kInvalidConfig,
                "setting '" + key + "' must be a positive integer, got '" + value + "'");
  return n;
}

Result<Settings> parse_settings(const std::map<std::string, std::string>& in) {
  Settings s;
  for (const auto& [key, value] : in) {
    STRATA_ASSIGN_OR_RETURN(int64_t n, positive_setting(key, value));
    if (key == "pipeline") {
      s.pipeline = static_cast<size_t>(n);
    } else if (key == "count") {
      s.count = static_cast<size_t>(n);
    } else if (key == "maxlen") {
      s.maxlen = std::to_string(n);
    } else if (key == "timeout_ms") {
      s.timeout = milliseconds(n);
    } else {
      return fail(Errc::kInvalidConfig,
                  "unknown setting '" + key + "' (known: pipeline, count, maxlen, timeout_ms)");
    }
  }
  return s;
}

std::string stream_key(const std::string& topic, int partition) {
  return topic + "-" + std::to_string(partition);
}

struct ReplyFree {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyFree>;

struct ContextFree {
  void operator()(redisContext* c) const { redisFree(c); }
};

std::string_view text(const redisReply& r) {
  return std::string_view(r.str, r.len);
}

// hiredis writes with write(2), which raises SIGPIPE once Redis has closed
// the connection, and the default action would end the whole bench. While
// a guard lives, SIGPIPE is blocked on this thread, so the write fails with
// EPIPE instead; a SIGPIPE it raised is discarded before unblocking.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    was_pending_ = pending();
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeGuard() {
    if (!was_pending_ && pending()) {
      timespec zero{};
      sigtimedwait(&pipe_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  static bool pending() {
    sigset_t set;
    sigpending(&set);
    return sigismember(&set, SIGPIPE) == 1;
  }
  sigset_t pipe_;
  sigset_t old_;
  bool was_pending_ = false;
};

// One blocking hiredis connection, read only when poll(2) says the socket
// has data, so waits are bounded by deadlines instead of socket timeouts
// (which would leave the context unusable).
class Connection {
 public:
  static Result<Connection> open(const Endpoint& at, milliseconds timeout) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>(timeout.count() % 1000 * 1000);
    Connection c(redisConnectWithTimeout(at.host.c_str(), at.port, tv), timeout);
    if (c.ctx_ == nullptr)
      return fail(Errc::kIoError, "cannot connect to " + to_string(at) + ": out of memory");
    if (c.ctx_->err != 0)
      return fail(Errc::kIoError, "cannot connect to " + to_string(at) + ": " + c.ctx_->errstr);
    // Bounds blocking writes to a server that stopped reading.
    if (redisSetTimeout(c.ctx_.get(), tv) != REDIS_OK) return c.error("setting the I/O timeout");
    return c;
  }

  milliseconds timeout() const { return timeout_; }

  // Adds one command to the output buffer; nothing is sent yet.
  Status append(std::span<const std::string_view> args) {
    argv_.clear();
    lens_.clear();
    for (auto a : args) {
      argv_.push_back(a.data());
      lens_.push_back(a.size());
    }
    if (redisAppendCommandArgv(ctx_.get(), static_cast<int>(args.size()), argv_.data(),
                               lens_.data()) != REDIS_OK)
      return error("appending a command");
    return ok_status();
  }

  size_t unwritten_bytes() const { return sdslen(ctx_->obuf); }

  // Sends everything appended so far.
  Status write() {
    if (unwritten_bytes() == 0) return ok_status();
    SigpipeGuard guard;
    int done = 0;
    while (done == 0) {
      if (redisBufferWrite(ctx_.get(), &done) != REDIS_OK) return error("writing");
    }
    return ok_status();
  }

  // The next reply, waiting until `deadline`; null once it has passed.
  Result<Reply> read(Clock::time_point deadline) {
    for (;;) {
      void* reply = nullptr;
      if (redisGetReplyFromReader(ctx_.get(), &reply) != REDIS_OK) return error("reading");
      if (reply != nullptr) return Reply(static_cast<redisReply*>(reply));
      pollfd p{ctx_->fd, POLLIN, 0};
      int wait_ms = ms_until(deadline);
      int n = ::poll(&p, 1, wait_ms);
      if (n < 0 && errno != EINTR) return Error::io(errno, "redis-streams: poll");
      if (n == 0 && wait_ms == 0) return Reply();
      if (n > 0 && redisBufferRead(ctx_.get()) != REDIS_OK) return error("reading");
    }
  }

  // Sends one command and waits for its reply; an error reply is an Error.
  Result<Reply> command(std::span<const std::string_view> args) {
    STRATA_TRY(append(args));
    STRATA_TRY(write());
    STRATA_ASSIGN_OR_RETURN(Reply r, read(after(timeout_)));
    if (!r) return no_reply(args[0]);
    if (r->type == REDIS_REPLY_ERROR)
      return fail(Errc::kIoError, std::string(args[0]) + ": " + std::string(text(*r)));
    return r;
  }

  Error no_reply(std::string_view what) const {
    return fail(Errc::kIoError, "no reply to " + std::string(what) + " within " +
                                    std::to_string(timeout_.count()) + " ms");
  }

 private:
  Connection(redisContext* c, milliseconds timeout) : ctx_(c), timeout_(timeout) {}

  Error error(std::string_view doing) const {
    return fail(Errc::kIoError, std::string(doing) + ": " + ctx_->errstr);
  }

  std::unique_ptr<redisContext, ContextFree> ctx_;
  milliseconds timeout_;
  std::vector<const char*> argv_;  // reused by append()
  std::vector<size_t> lens_;
};

// Pipelines administrative commands in bounded batches and reports the
// first error reply.
class AdminBatch {
 public:
  explicit AdminBatch(Connection& c) : c_(c) {}

  Status add(std::span<const std::string_view> args) {
    STRATA_TRY(c_.append(args));
    names_.push_back(std::string(args[0]));
    if (names_.size() == kAdminBatch) return finish();
    return ok_status();
  }

  Status finish() {
    STRATA_TRY(c_.write());
    std::optional<Error> first;
    for (const auto& name : names_) {
      STRATA_ASSIGN_OR_RETURN(Reply r, c_.read(after(c_.timeout())));
      if (!r) return c_.no_reply(name);
      if (r->type == REDIS_REPLY_ERROR && !first)
        first = fail(Errc::kIoError, name + ": " + std::string(text(*r)));
    }
    names_.clear();
    if (first) return *first;
    return ok_status();
  }

 private:
  Connection& c_;
  std::vector<std::string> names_;  // of the commands awaiting replies
};

class RedisProducer final : public Producer {
 public:
  RedisProducer(Connection c, std::vector<std::string> keys, const Settings& s, const Workload& w,
                AckSink& sink)
      : c_(std::move(c)),
        keys_(std::move(keys)),
        sink_(sink),
        window_(s.pipeline),
        maxlen_(s.maxlen),
        fire_and_forget_(w.acks == "0"),
        batch_bytes_(static_cast<size_t>(w.batch_bytes)),
        linger_(w.linger_ms) {}

  Status send(int partition, std::string_view key, std::string_view value) override {
    if (broken_) return *broken_;
    if (partition < -1 || partition >= static_cast<int>(keys_.size()))
      return fail(Errc::kInvalidArgument, "partition " + std::to_string(partition) +
                                              " outside [0, " + std::to_string(keys_.size()) + ")");
    auto stamp = read_stamp(value);
    if (!stamp)
      return fail(Errc::kInvalidArgument,
                  "a value of " + std::to_string(value.size()) + " bytes has no stamp");
    if (queue_.size() >= window_) STRATA_TRY(make_room());
    size_t p = partition >= 0 ? static_cast<size_t>(partition) : next_++ % keys_.size();
    STRATA_TRY(append_xadd(keys_[p], key, value));
    queue_.push_back(stamp->send_ns);
    if (!oldest_unwritten_) oldest_unwritten_ = Clock::now();
    // The message is queued now: a write failure reaches the sink, this
    // message included, so the send itself has succeeded either way.
    if (c_.unwritten_bytes() >= batch_bytes_ || Clock::now() - *oldest_unwritten_ >= linger_) {
      (void)write_out();
    }
    return ok_status();
  }

  void poll(milliseconds timeout) override {
    auto deadline = after(timeout);
    uint64_t reported = reported_;
    if (!broken_ && write_out().ok() && !fire_and_forget_ && !queue_.empty())
      (void)serve(deadline, queue_.size() - 1);
    // Nothing was served (none in flight, or none answered): wait out the
    // timeout so that a caller pacing itself with poll does not spin.
    if (reported_ == reported) std::this_thread::sleep_until(deadline);
  }

  Status flush(milliseconds timeout) override {
    auto deadline = after(timeout);
    if (!broken_ && write_out().ok() && !fire_and_forget_) (void)serve(deadline, 0);
    // Messages the broken connection failed have their fate, as the
    // contract asks; only those still waiting make flush fail.
    if (!queue_.empty())
      return fail(Errc::kIoError, std::to_string(queue_.size()) +
                                      " messages still unacknowledged after " +
                                      std::to_string(timeout.count()) + " ms");
    return ok_status();
  }

 private:
  Status append_xadd(const std::string& stream, std::string_view key, std::string_view value) {
    std::array<std::string_view, 10> args;
    size_t n = 0;
    args[n++] = "XADD";
    args[n++] = stream;
    if (maxlen_) {
      args[n++] = "MAXLEN";
      args[n++] = "~";
      args[n++] = *maxlen_;
    }
    args[n++] = "*";
    if (!key.empty()) {
      args[n++] = "k";
      args[n++] = key;
    }
    args[n++] = "v";
    args[n++] = value;
    return c_.append(std::span(args.data(), n));
  }

  // Sends buffered commands; without replies to wait for, that is the ack.
  Status write_out() {
    oldest_unwritten_.reset();
    if (auto s = c_.write(); !s.ok()) return break_connection(std::move(s).error());
    if (fire_and_forget_) {
      for (int64_t send_ns : queue_)
        sink_.acked(send_ns);
      reported_ += queue_.size();
      queue_.clear();
    }
    return ok_status();
  }

  // Called with the window full: frees one slot at least. A server that
  // answers nothing within the timeout is treated as gone.
  Status make_room() {
    STRATA_TRY(write_out());
    if (queue_.size() < window_) return ok_status();
    STRATA_TRY(serve(after(c_.timeout()), window_ - 1));
    if (queue_.size() >= window_) return break_connection(c_.no_reply("XADD"));
    return ok_status();
  }

  // Handles replies until at most `target` messages are in flight or
  // `deadline` passes, then those already received, without waiting.
  Status serve(Clock::time_point deadline, size_t target) {
    while (queue_.size() > target) {
      auto r = c_.read(deadline);
      if (!r) return break_connection(std::move(r).error());
      if (!*r) return ok_status();
      report(**r);
    }
    while (!queue_.empty()) {
      auto r = c_.read(Clock::time_point());
      if (!r) return break_connection(std::move(r).error());
      if (!*r) break;
      report(**r);
    }
    return ok_status();
  }

  void report(const redisReply& r) {
    int64_t send_ns = queue_.front();
    queue_.pop_front();
    ++reported_;
    if (r.type == REDIS_REPLY_ERROR) {
      sink_.failed(text(r));
    } else {
      sink_.acked(send_ns);
    }
  }

  // A hiredis context is unusable after an I/O error: every message in
  // flight fails and later sends return the error.
  Error break_connection(Error e) {
    for (size_t i = 0; i < queue_.size(); ++i)
      sink_.failed(e.message());
    reported_ += queue_.size();
    queue_.clear();
    broken_ = e;
    return e;
  }

  Connection c_;
  std::vector<std::string> keys_;  // stream of each partition
  AckSink& sink_;
  size_t window_;
  std::optional<std::string> maxlen_;
  bool fire_and_forget_;  // acks=0: CLIENT REPLY OFF
  size_t batch_bytes_;
  milliseconds linger_;
  std::deque<int64_t> queue_;  // send times of messages not yet reported, in send order
  std::optional<Clock::time_point> oldest_unwritten_;
  size_t next_ = 0;        // round robin for partition -1
  uint64_t reported_ = 0;  // acked + failed, to tell whether poll served any
  std::optional<Error> broken_;
};

class RedisConsumer final : public Consumer {
 public:
  RedisConsumer(Connection c, std::string group, int member, std::vector<std::string> keys,
                const Settings& s)
      : c_(std::move(c)),
        group_(std::move(group)),
        name_("c" + std::to_string(member)),
        keys_(std::move(keys)),
        count_(std::to_string(s.count)) {}

  Result<size_t> poll(milliseconds timeout, MessageSink& sink) override {
    if (broken_) return *broken_;
    if (keys_.empty()) {
      std::this_thread::sleep_for(timeout);
      return size_t{0};
    }
    auto delivered = read_and_deliver(timeout, sink);
    if (!delivered) broken_ = delivered.error();
    return delivered;
  }

  Status close() override {
    if (closed_) return ok_status();
    closed_ = true;
    if (broken_) return *broken_;
    if (keys_.empty()) return ok_status();
    STRATA_TRY(read_xack_replies(after(c_.timeout())));
    AdminBatch batch(c_);
    for (const auto& key : keys_) {
      std::array<std::string_view, 5> args{"XGROUP", "DELCONSUMER", key, group_, name_};
      STRATA_TRY(batch.add(args));
    }
    return batch.finish();
  }

 private:
  Result<size_t> read_and_deliver(milliseconds timeout, MessageSink& sink) {
    STRATA_TRY(append_xreadgroup(timeout));
    STRATA_TRY(c_.write());
    auto deadline = after(timeout) + c_.timeout();
    STRATA_TRY(read_xack_replies(deadline));
    STRATA_ASSIGN_OR_RETURN(Reply r, c_.read(deadline));
    if (!r) return c_.no_reply("XREADGROUP");
    if (r->type == REDIS_REPLY_NIL) return size_t{0};  // BLOCK ran out
    if (r->type == REDIS_REPLY_ERROR)
      return fail(Errc::kIoError, "XREADGROUP: " + std::string(text(*r)));
    if (r->type != REDIS_REPLY_ARRAY) return unexpected("XREADGROUP reply");
    size_t delivered = 0;
    for (size_t i = 0; i < r->elements; ++i) {
      STRATA_ASSIGN_OR_RETURN(size_t n, deliver_stream(*r->element[i], sink));
      delivered += n;
    }
    STRATA_TRY(c_.write());
    return delivered;
  }

  // XREADGROUP GROUP g c<m> COUNT n [BLOCK ms] STREAMS k1 k2 ... > > ...
  // (BLOCK 0 would mean forever, so a zero timeout leaves it out).
  Status append_xreadgroup(milliseconds timeout) {
    auto block_ms = std::clamp(timeout, milliseconds(0), milliseconds(std::chrono::hours(24)));
    std::string block = std::to_string(block_ms.count());
    args_.assign({"XREADGROUP", "GROUP", group_, name_, "COUNT", count_});
    if (block_ms.count() > 0) args_.insert(args_.end(), {"BLOCK", block});
    args_.push_back("STREAMS");
    args_.insert(args_.end(), keys_.begin(), keys_.end());
    args_.insert(args_.end(), keys_.size(), ">");
    return c_.append(args_);
  }

  // One stream's part of the reply: [key, [[id, [field, value, ...]], ...]].
  // Hands each value to the sink, then appends one XACK for the stream.
  Result<size_t> deliver_stream(const redisReply& stream, MessageSink& sink) {
    if (stream.type != REDIS_REPLY_ARRAY || stream.elements != 2 ||
        stream.element[0]->type != REDIS_REPLY_STRING ||
        stream.element[1]->type != REDIS_REPLY_ARRAY)
      return unexpected("stream in an XREADGROUP reply");
    std::string_view key = text(*stream.element[0]);
    const redisReply& entries = *stream.element[1];
    args_.assign({"XACK", key, group_});
    for (size_t i = 0; i < entries.elements; ++i) {
      const redisReply& e = *entries.element[i];
      if (e.type != REDIS_REPLY_ARRAY || e.elements != 2 ||
          e.element[0]->type != REDIS_REPLY_STRING)
        return unexpected("entry in an XREADGROUP reply");
      auto value = field_v(*e.element[1]);
      if (!value)
        return fail(Errc::kInternal, "entry " + std::string(text(*e.element[0])) + " of " +
                                         std::string(key) + " has no \"v\" field");
      sink.received(*value);
      args_.push_back(text(*e.element[0]));
    }
    if (entries.elements == 0) return size_t{0};
    STRATA_TRY(c_.append(args_));
    ++xacks_unread_;
    return entries.elements;
  }

  static std::optional<std::string_view> field_v(const redisReply& fields) {
    if (fields.type != REDIS_REPLY_ARRAY) return std::nullopt;
    for (size_t i = 0; i + 1 < fields.elements; i += 2) {
      if (text(*fields.element[i]) == "v") return text(*fields.element[i + 1]);
    }
    return std::nullopt;
  }

  Status read_xack_replies(Clock::time_point deadline) {
    for (; xacks_unread_ > 0; --xacks_unread_) {
      STRATA_ASSIGN_OR_RETURN(Reply r, c_.read(deadline));
      if (!r) return c_.no_reply("XACK");
      if (r->type == REDIS_REPLY_ERROR)
        return fail(Errc::kIoError, "XACK: " + std::string(text(*r)));
    }
    return ok_status();
  }

  static Error unexpected(std::string_view what) {
    return fail(Errc::kInternal, "unexpected shape of " + std::string(what));
  }

  Connection c_;
  std::string group_;
  std::string name_;
  std::vector<std::string> keys_;  // streams of the owned partitions
  std::string count_;
  std::vector<std::string_view> args_;  // reused to build commands
  size_t xacks_unread_ = 0;             // XACKs sent whose replies are not read yet
  std::optional<Error> broken_;         // after an error the reply stream is out of step
  bool closed_ = false;
};

class RedisDriver final : public Driver {
 public:
  RedisDriver(Endpoint at, Settings s) : at_(std::move(at)), s_(std::move(s)) {}

  std::string_view name() const override { return kName; }

  // Deleting a stream also deletes its consumer groups.
  Status prepare(const Workload& w) override {
    STRATA_ASSIGN_OR_RETURN(Connection c, Connection::open(at_, s_.timeout));
    STRATA_TRY(delete_streams(c, w));
    AdminBatch batch(c);
    for (const auto& topic : w.topic_names()) {
      for (int p = 0; p < w.partitions; ++p) {
        std::string key = stream_key(topic, p);
        for (const auto& group : w.group_names()) {
          std::array<std::string_view, 6> args{"XGROUP", "CREATE", key, group, "0", "MKSTREAM"};
          STRATA_TRY(batch.add(args));
        }
      }
    }
    return batch.finish();
  }

  Result<std::unique_ptr<Producer>> producer(const Workload& w, const std::string& topic, int,
                                             AckSink& sink) override {
    STRATA_ASSIGN_OR_RETURN(Connection c, Connection::open(at_, s_.timeout));
    if (w.acks == "0") {
      // Redis sends no reply to this command either.
      std::array<std::string_view, 3> args{"CLIENT", "REPLY", "OFF"};
      STRATA_TRY(c.append(args));
    }
    std::vector<std::string> keys;
    for (int p = 0; p < w.partitions; ++p)
      keys.push_back(stream_key(topic, p));
    return std::unique_ptr<Producer>(
        std::make_unique<RedisProducer>(std::move(c), std::move(keys), s_, w, sink));
  }

  Result<std::unique_ptr<Consumer>> consumer(const Workload& w, const std::string& topic,
                                             const std::string& group, int member,
                                             int members) override {
    if (members < 1 || member < 0 || member >= members)
      return fail(Errc::kInvalidArgument, "member " + std::to_string(member) + " of " +
                                              std::to_string(members) + " does not exist");
    STRATA_ASSIGN_OR_RETURN(Connection c, Connection::open(at_, s_.timeout));
    std::vector<std::string> keys;
    for (int p = member; p < w.partitions; p += members)
      keys.push_back(stream_key(topic, p));
    return std::unique_ptr<Consumer>(
        std::make_unique<RedisConsumer>(std::move(c), group, member, std::move(keys), s_));
  }

  Status cleanup(const Workload& w) override {
    STRATA_ASSIGN_OR_RETURN(Connection c, Connection::open(at_, s_.timeout));
    return delete_streams(c, w);
  }

  // Connects once, so an unreachable server is reported at creation.
  Status ping() {
    STRATA_ASSIGN_OR_RETURN(Connection c, Connection::open(at_, s_.timeout));
    std::array<std::string_view, 1> args{"PING"};
    STRATA_TRY(c.command(args));
    return ok_status();
  }

 private:
  Status delete_streams(Connection& c, const Workload& w) {
    AdminBatch batch(c);
    std::vector<std::string> keys;
    std::vector<std::string_view> args;
    for (const auto& topic : w.topic_names()) {
      for (int p = 0; p < w.partitions; ++p)
        keys.push_back(stream_key(topic, p));
      args.assign({"DEL"});
      args.insert(args.end(), keys.begin(), keys.end());
      STRATA_TRY(batch.add(args));
      // The batch keeps no views into `keys`: the command is already encoded.
      keys.clear();
    }
    return batch.finish();
  }

  Endpoint at_;
  Settings s_;
};

}  // namespace

Result<std::unique_ptr<Driver>> make_redis_driver(const DriverOptions& options) {
  STRATA_ASSIGN_OR_RETURN(Endpoint at, parse_url(options.url));
  STRATA_ASSIGN_OR_RETURN(Settings s, parse_settings(options.settings));
  auto driver = std::make_unique<RedisDriver>(std::move(at), std::move(s));
  STRATA_TRY(driver->ping());
  return std::unique_ptr<Driver>(std::move(driver));
}

}  // namespace strata::bench
