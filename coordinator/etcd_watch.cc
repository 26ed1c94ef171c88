#include "coordinator/etcd_watch.h"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include <spdlog/spdlog.h>

#include "coordinator/etcd_client.h"
#include "coordinator/etcd_codec.h"
#include "coordinator/watch_tracker.h"

namespace strata::coordinator {
namespace {

class EtcdWatch : public std::enable_shared_from_this<EtcdWatch> {
 public:
  EtcdWatch(std::shared_ptr<EtcdClient> client, std::string prefix, int64_t start_revision,
            const std::optional<Listing>& seed, WatchCallback cb, EtcdWatchOptions options)
      : client_(std::move(client)),
        prefix_(std::move(prefix)),
        start_revision_(start_revision),
        cb_(std::move(cb)),
        options_(options) {
    if (seed) start_tracker(*seed);
  }

  void start() {
    thread_ = std::thread([self = shared_from_this()] { self->run(); });
  }

  void cancel() {
    {
      std::lock_guard lock(mu_);
      cancelled_ = true;
      if (stream_ctx_ != nullptr) stream_ctx_->TryCancel();
    }
    cv_.notify_all();
    if (std::this_thread::get_id() == thread_.get_id()) {
      thread_.detach();  // the thread ends when the callback returns
    } else if (thread_.joinable()) {
      thread_.join();
    }
  }

 private:
  bool cancelled() {
    std::lock_guard lock(mu_);
    return cancelled_;
  }

  // Waits `ms` unless cancelled first; false when cancelled.
  bool pause(int64_t ms) {
    std::unique_lock lock(mu_);
    return !cv_.wait_for(lock, std::chrono::milliseconds(ms), [&] { return cancelled_; });
  }

  Result<Listing> read() { return read_prefix(*client_, prefix_, "Range of watched prefix"); }

  void deliver(const std::vector<WatchEvent>& events) {
    if (events.empty() || cancelled()) return;
    cb_(events);
  }

  void start_tracker(const Listing& listing) {
    tracker_.emplace(start_revision_ == 0 ? listing.revision + 1 : start_revision_);
    tracker_->seed(listing.entries);
  }

  enum class StreamEnd { kBroken, kCompacted, kCancelled };

  // One Watch stream from the tracker's next revision, until it ends.
  StreamEnd stream(size_t index, grpc::Status& status) {
    const auto& stubs = client_->stubs(index);
    if (!client_->wait_connected(index,
                                 std::chrono::system_clock::now() +
                                     std::chrono::milliseconds(client_->call_timeout_ms()))) {
      status = grpc::Status(grpc::StatusCode::UNAVAILABLE, "not connected");
      return StreamEnd::kBroken;
    }
    grpc::ClientContext ctx;
    {
      std::lock_guard lock(mu_);
      if (cancelled_) return StreamEnd::kCancelled;
      stream_ctx_ = &ctx;
    }
    auto rw = stubs.watch->Watch(&ctx);
    etcdserverpb::WatchRequest req;
    auto* create = req.mutable_create_request();
    set_prefix_range(prefix_, create->mutable_key(), create->mutable_range_end());
    create->set_start_revision(tracker_->next_revision());
    StreamEnd end = StreamEnd::kBroken;
    etcdserverpb::WatchResponse resp;
    if (rw->Write(req)) {
      while (rw->Read(&resp)) {
        if (resp.compact_revision() != 0) {
          end = StreamEnd::kCompacted;
          break;
        }
        if (resp.canceled()) {
          spdlog::warn("etcd at {} cancelled the watch on {}: {}", stubs.endpoint, prefix_,
                       resp.cancel_reason());
          break;
        }
        if (resp.created()) backoff_ms_ = options_.retry_min_ms;
        if (resp.events_size() == 0) continue;
        std::vector<WatchEvent> events;
        events.reserve(resp.events_size());
        for (const auto& ev : resp.events())
          events.push_back(to_event(ev));
        deliver(tracker_->deliver(events));
      }
    }
    ctx.TryCancel();
    while (rw->Read(&resp)) {
    }
    status = rw->Finish();
    {
      std::lock_guard lock(mu_);
      stream_ctx_ = nullptr;
      if (cancelled_) return StreamEnd::kCancelled;
    }
    return end;
  }

  void run() {
    bool resync = false;
    backoff_ms_ = options_.retry_min_ms;
    while (!cancelled()) {
      if (!tracker_ || resync) {
        auto listing = read();
        if (!listing) {
          spdlog::warn("watch on {}: {}; retrying in {} ms", prefix_, listing.error().to_string(),
                       backoff_ms_);
          if (!pause(backoff_ms_)) return;
          backoff_ms_ = std::min(backoff_ms_ * 2, options_.retry_max_ms);
          continue;
        }
        if (!tracker_) {
          start_tracker(*listing);
        } else {
          deliver(tracker_->resync(*listing));
          resync = false;
        }
      }
      const size_t index = client_->current();
      grpc::Status status;
      switch (stream(index, status)) {
        case StreamEnd::kCancelled: return;
        case StreamEnd::kCompacted:
          spdlog::info("etcd compacted revision {} of the watch on {}; re-reading it",
                       tracker_->next_revision(), prefix_);
          resync = true;
          continue;
        case StreamEnd::kBroken: break;
      }
      spdlog::warn("{}; resuming from revision {} in {} ms",
                   EtcdClient::to_error(status, client_->stubs(index).endpoint,
                                        "the watch on " + prefix_ + " broke")
                       .message(),
                   tracker_->next_revision(), backoff_ms_);
      client_->failed(index);
      if (!pause(backoff_ms_)) return;
      backoff_ms_ = std::min(backoff_ms_ * 2, options_.retry_max_ms);
    }
  }

  const std::shared_ptr<EtcdClient> client_;
  const std::string prefix_;
  const int64_t start_revision_;
  const WatchCallback cb_;
  const EtcdWatchOptions options_;
  std::optional<WatchTracker> tracker_;  // the watch thread's
  int64_t backoff_ms_ = 0;               // the watch thread's

  std::mutex mu_;
  std::condition_variable cv_;
  bool cancelled_ = false;
  grpc::ClientContext* stream_ctx_ = nullptr;
  std::thread thread_;
};

}  // namespace

WatchHandle start_etcd_watch(std::shared_ptr<EtcdClient> client, std::string prefix,
                             int64_t start_revision, const std::optional<Listing>& seed,
                             WatchCallback cb, EtcdWatchOptions options) {
  auto w = std::make_shared<EtcdWatch>(std::move(client), std::move(prefix), start_revision, seed,
                                       std::move(cb), options);
  w->start();
  return WatchHandle([w] { w->cancel(); });
}

}  // namespace strata::coordinator
