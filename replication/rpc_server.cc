#include "replication/rpc_server.h"

#include <deque>

#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "io/tcp_listen.h"
#include "replication/fan_out.h"
#include "replication/replication.pb.h"
#include "replication/rpc_frame.h"

namespace strata::replication {
namespace {

namespace asio = boost::asio;

constexpr int32_t kLongestFetchWaitMs = 30000;
constexpr int32_t kDefaultPartitionBytes = 1 << 20;

// One follower connection: frames in, answers out in completion order.
class RpcConnection : public std::enable_shared_from_this<RpcConnection> {
 public:
  RpcConnection(RpcServices services, unsigned shard, asio::ip::tcp::socket socket)
      : services_(services), shard_(shard), socket_(std::move(socket)) {}

  void start() { read_header(); }

  ShardSeam& shards() { return services_.shards; }
  const RpcServices& services() const { return services_; }
  int32_t code(Errc e) const { return services_.codes.encode(e); }
  unsigned shard() const { return shard_; }
  asio::io_context& io() { return services_.shards.shard(shard_).io(); }

  void send(const rpc::Response& resp) {
    queue_.push_back({replication::encode_frame(resp)});
    write_next();
  }
  // With `attachment` after the message, not copied (rpc_frame.h).
  void send(const rpc::Response& resp, std::vector<SharedBytes> attachment) {
    queue_.push_back(replication::encode_frame(resp, std::move(attachment)));
    write_next();
  }

 private:
  void read_header() {
    asio::async_read(
        socket_, asio::buffer(header_, sizeof(header_)),
        [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
          if (ec) return;  // the follower went away
          auto n = replication::frame_length(
              std::span<const std::byte, replication::kFrameHeaderBytes>(self->header_),
              replication::kMaxRequestFrame);
          if (!n) {
            spdlog::warn("rpc: closing a connection: {}", n.error().to_string());
            return self->close();
          }
          self->read_body(*n);
        });
  }

  void read_body(uint32_t n) {
    body_ = SharedBytes::allocate(n);
    asio::async_read(socket_, asio::buffer(body_.data(), body_.size()),
                     [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                       if (ec) return;
                       auto req = replication::decode_message<rpc::Request>(self->body_.span());
                       if (!req) {
                         spdlog::warn("rpc: closing a connection: {}", req.error().to_string());
                         return self->close();
                       }
                       self->handle(std::move(req).value());
                       self->read_header();
                     });
  }

  void handle(rpc::Request req);

  void write_next() {
    if (writing_ || queue_.empty()) return;
    writing_ = true;
    auto frame = std::make_shared<std::vector<SharedBytes>>(std::move(queue_.front()));
    queue_.pop_front();
    std::vector<asio::const_buffer> buffers;
    buffers.reserve(frame->size());
    for (const auto& part : *frame)
      buffers.emplace_back(part.data(), part.size());
    asio::async_write(
        socket_, buffers,
        [self = shared_from_this(), frame](const boost::system::error_code& ec, size_t) {
          self->writing_ = false;
          if (ec) return self->close();
          self->write_next();
        });
  }

  void close() {
    boost::system::error_code ignored;
    socket_.close(ignored);
  }

  RpcServices services_;
  unsigned shard_;
  asio::ip::tcp::socket socket_;
  std::byte header_[4];
  SharedBytes body_;
  std::deque<std::vector<SharedBytes>> queue_;  // frames, each in parts
  bool writing_ = false;
};

// The partitions of a request this broker serves, and the errors of the rest.
template <typename Entry, typename Out>
std::vector<PartitionUid> route_all(const RpcServices& services,
                                    const google::protobuf::RepeatedPtrField<Entry>& in,
                                    google::protobuf::RepeatedPtrField<Out>& out,
                                    std::vector<int>& served) {
  std::vector<LeaderRoutes::Ask> asks;
  asks.reserve(static_cast<size_t>(in.size()));
  for (const auto& p : in)
    asks.push_back({p.topic(), p.partition(), p.current_leader_epoch()});
  auto routes = services.routes.route(asks);
  std::vector<PartitionUid> uids;
  for (int i = 0; i < in.size(); ++i) {
    const auto& p = in[i];
    auto* o = out.Add();
    o->set_topic(p.topic());
    o->set_partition(p.partition());
    const auto& route = routes[static_cast<size_t>(i)];
    if (!route) {
      o->set_error_code(services.codes.encode(route.error().code()));
      continue;
    }
    uids.push_back(*route);
    served.push_back(i);
  }
  return uids;
}

void epoch_end(std::shared_ptr<RpcConnection> conn, rpc::Request req) {
  auto resp = std::make_shared<rpc::Response>();
  resp->set_correlation_id(req.correlation_id());
  auto& in = req.epoch_end().partitions();
  auto* out = resp->mutable_epoch_end()->mutable_partitions();
  std::vector<int> served;
  auto uids = route_all(conn->services(), in, *out, served);
  std::vector<int32_t> epochs;
  for (int i : served)
    epochs.push_back(in[i].leader_epoch());
  struct Answer {
    Errc error = Errc::kOk;
    engine::EpochEnd end;
  };
  run_on_owners<Answer>(
      conn->shards(), conn->shard(), uids,
      [epochs](Partition* p, size_t i, std::function<void(Answer)> done) {
        if (p == nullptr) return done(Answer{Errc::kNotHosted, {}});
        if (p->role() != Role::kLeader) return done(Answer{Errc::kNotLeader, {}});
        done(Answer{Errc::kOk, p->log().end_offset_for_epoch(LeaderEpoch(epochs[i]))});
      },
      [conn, resp, served](std::vector<Answer> answers) {
        auto* out = resp->mutable_epoch_end()->mutable_partitions();
        for (size_t i = 0; i < answers.size(); ++i) {
          auto* o = out->Mutable(served[i]);
          o->set_error_code(conn->code(answers[i].error));
          o->set_leader_epoch(answers[i].end.epoch.value());
          o->set_end_offset(answers[i].end.end_offset.value());
        }
        conn->send(*resp);
      });
}

// A follower's fetch: read every partition from its fetch offset; if none
// has bytes, wait until one's log end moves or max_wait_ms passes, then
// read once more.
class FetchOp : public std::enable_shared_from_this<FetchOp> {
 public:
  FetchOp(std::shared_ptr<RpcConnection> conn, rpc::Request req)
      : conn_(std::move(conn)), req_(std::move(req)), poll_(conn_->io()) {}

  void start() {
    resp_.set_correlation_id(req_.correlation_id());
    auto& in = req_.fetch().partitions();
    uids_ = route_all(conn_->services(), in, *resp_.mutable_fetch()->mutable_partitions(), served_);
    for (int i : served_) {
      offsets_.push_back(Offset(in[i].fetch_offset()));
      durables_.push_back(Offset(in[i].durable_offset()));
    }
    int32_t wait = std::clamp(req_.fetch().max_wait_ms(), 0, kLongestFetchWaitMs);
    deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait);
    attempt();
  }

 private:
  struct Read {
    Result<replication::ReadResult> read = Error(Errc::kInternal, "not read");
    Offset log_end{-1};
    Offset log_start{-1};  // sent with an error too: a follower below it starts there
  };

  void attempt() {
    auto self = shared_from_this();
    size_t max_bytes = req_.fetch().max_bytes() > 0 ? static_cast<size_t>(req_.fetch().max_bytes())
                                                    : static_cast<size_t>(kDefaultPartitionBytes);
    auto offsets = offsets_;
    auto durables = durables_;
    int32_t follower = req_.broker_id();
    run_on_owners<Read>(
        conn_->shards(), conn_->shard(), uids_,
        [offsets, durables, follower, max_bytes](Partition* p, size_t i,
                                                 std::function<void(Read)> done) {
          if (p == nullptr) return done(Read{replication::not_hosted()});
          // What the follower holds moves the watermark (and the ISR).
          p->on_follower_fetch(follower, offsets[i], durables[i]);
          Offset end = p->log().log_end_offset();
          Offset start = p->log().log_start_offset();
          if (offsets[i] == end) {
            // Nothing new: an empty answer without touching the log.
            replication::ReadResult empty;
            empty.high_watermark = p->high_watermark();
            empty.log_start_offset = start;
            return done(Read{std::move(empty), end, start});
          }
          p->read_for_follower(offsets[i], max_bytes,
                               [done, end, start](Result<replication::ReadResult> r) {
                                 done(Read{std::move(r), end, start});
                               });
        },
        [self](std::vector<Read> reads) { self->on_reads(std::move(reads)); });
  }

  void on_reads(std::vector<Read> reads) {
    size_t bytes = 0;
    bool errors = false;
    for (const auto& r : reads) {
      if (r.read.ok())
        bytes += r.read->bytes;
      else
        errors = true;
    }
    if (bytes > 0 || errors || uids_.empty() || waited_ || conn_->shards().stopping() ||
        std::chrono::steady_clock::now() >= deadline_) {
      return respond(std::move(reads));
    }
    wait();
  }

  void wait() {
    waited_ = true;
    auto self = shared_from_this();
    poll_.arm(conn_->shards(), conn_->shard(), uids_, offsets_, /*log_end=*/true, deadline_, self,
              [weak = std::weak_ptr(self)] {
                if (auto op = weak.lock()) op->attempt();
              });
  }

  void respond(std::vector<Read> reads) {
    auto* out = resp_.mutable_fetch()->mutable_partitions();
    // 0 (an older follower): no budget beyond what one frame can carry.
    const size_t budget = req_.fetch().response_max_bytes() > 0
                              ? static_cast<size_t>(req_.fetch().response_max_bytes())
                              : replication::kMaxResponseFrame;
    const bool attach = req_.fetch().records_attached();
    std::vector<SharedBytes> attachment;
    size_t total = 0;
    for (size_t i = 0; i < reads.size(); ++i) {
      auto* o = out->Mutable(served_[i]);
      const auto& r = reads[i];
      if (!r.read) {
        o->set_error_code(conn_->code(r.read.error().code()));
        o->set_log_start_offset(r.log_start.value());
        o->set_log_end_offset(r.log_end.value());
        continue;
      }
      o->set_high_watermark(r.read->high_watermark.value());
      o->set_log_start_offset(r.read->log_start_offset.value());
      o->set_log_end_offset(r.log_end.value());
      // Over the response's budget: this partition's records wait for the
      // follower's next fetch (which starts its list elsewhere).
      if (total > 0 && total + r.read->bytes > budget) continue;
      total += r.read->bytes;
      if (attach) {
        size_t n = 0;
        for (const auto& s : r.read->slices) {
          n += s.size();
          attachment.push_back(s);
        }
        o->set_attached_bytes(static_cast<int64_t>(n));
        continue;
      }
      std::string records;
      records.reserve(r.read->bytes);
      for (const auto& s : r.read->slices)
        records.append(reinterpret_cast<const char*>(s.data()), s.size());
      o->set_records(std::move(records));
    }
    if (attach) return conn_->send(resp_, std::move(attachment));
    conn_->send(resp_);
  }

  std::shared_ptr<RpcConnection> conn_;
  rpc::Request req_;
  rpc::Response resp_;
  std::vector<PartitionUid> uids_;
  std::vector<int> served_;
  std::vector<Offset> offsets_;
  std::vector<Offset> durables_;
  std::chrono::steady_clock::time_point deadline_;
  LongPoll poll_;
  bool waited_ = false;
};

// The whole call failed: its error on the response.
void set_error(const RpcConnection& conn, rpc::Response& resp, const Error& e) {
  resp.set_error_code(conn.code(e.code()));
  resp.set_error_message(e.message());
}

// A leader's ISR changes, for the controller (this broker, if it is).
void alter_isr(std::shared_ptr<RpcConnection> conn, rpc::Request req) {
  std::vector<IsrProposal> proposals;
  for (const auto& p : req.alter_isr().partitions()) {
    proposals.push_back({p.topic(), PartitionId(p.partition()), LeaderEpoch(p.leader_epoch()),
                         p.partition_epoch(),
                         std::vector<int32_t>(p.isr().begin(), p.isr().end())});
  }
  std::vector<std::pair<std::string, int32_t>> named;
  for (const auto& p : proposals)
    named.emplace_back(p.topic, p.partition.value());
  conn->services().controller.alter_isr(
      conn->shard(), req.broker_id(), std::move(proposals),
      [conn, named = std::move(named), id = req.correlation_id()](Result<std::vector<Status>> r) {
        rpc::Response resp;
        resp.set_correlation_id(id);
        if (!r) {
          set_error(*conn, resp, r.error());
          return conn->send(resp);
        }
        auto* out = resp.mutable_alter_isr()->mutable_partitions();
        for (size_t i = 0; i < named.size() && i < r->size(); ++i) {
          auto* o = out->Add();
          o->set_topic(named[i].first);
          o->set_partition(named[i].second);
          const Status& st = (*r)[i];
          if (!st) {
            o->set_error_code(conn->code(st.error().code()));
            o->set_error_message(st.error().to_string());
          }
        }
        conn->send(resp);
      });
}

// A broker shutting down asks the controller (this broker, if it is) to
// move its leaderships.
void controlled_shutdown(std::shared_ptr<RpcConnection> conn, rpc::Request req) {
  conn->services().controller.hand_over(
      conn->shard(), req.broker_id(), [conn, id = req.correlation_id()](Result<size_t> r) {
        rpc::Response resp;
        resp.set_correlation_id(id);
        if (!r) {
          set_error(*conn, resp, r.error());
        } else {
          resp.mutable_controlled_shutdown()->set_remaining(static_cast<int32_t>(*r));
        }
        conn->send(resp);
      });
}

void RpcConnection::handle(rpc::Request req) {
  auto self = shared_from_this();
  switch (req.call_case()) {
    case rpc::Request::kEpochEnd: return epoch_end(self, std::move(req));
    case rpc::Request::kFetch: return std::make_shared<FetchOp>(self, std::move(req))->start();
    case rpc::Request::kAlterIsr: return alter_isr(self, std::move(req));
    case rpc::Request::kControlledShutdown: return controlled_shutdown(self, std::move(req));
    case rpc::Request::CALL_NOT_SET: break;
  }
  rpc::Response resp;
  resp.set_correlation_id(req.correlation_id());
  resp.set_error_code(code(Errc::kInvalidArgument));
  resp.set_error_message("a request with no call this broker knows");
  send(resp);
}

}  // namespace

RpcServer::RpcServer(RpcServices services)
    : services_(services), acceptor_(services.shards.shard(services.home_shard).io()) {}

Result<std::unique_ptr<RpcServer>> RpcServer::open(RpcServices services, const std::string& host,
                                                   uint16_t port) {
  std::unique_ptr<RpcServer> s(new RpcServer(services));
  STRATA_ASSIGN_OR_RETURN(s->port_, io::listen_on(s->acceptor_, host, port));
  return s;
}

void RpcServer::close() {
  boost::system::error_code ec;
  acceptor_.close(ec);
}

void RpcServer::accept() {
  unsigned shard = next_shard_++ % services_.shards.shard_count();
  acceptor_.async_accept(
      services_.shards.shard(shard).io(),
      [this, shard](const boost::system::error_code& ec, asio::ip::tcp::socket socket) {
        if (ec) return;  // closed
        socket.set_option(asio::ip::tcp::no_delay(true));
        auto conn = std::make_shared<RpcConnection>(services_, shard, std::move(socket));
        services_.shards.shard(shard).post([conn] { conn->start(); });
        accept();
      });
}

}  // namespace strata::replication
