#include "coordinator/embedded_store.h"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "coordinator/embedded_store_file.h"

namespace strata::coordinator {
namespace {

std::vector<Entry> entries_under(const std::map<std::string, Entry>& entries,
                                 const std::string& prefix) {
  std::vector<Entry> out;
  for (auto it = entries.lower_bound(prefix); it != entries.end(); ++it) {
    if (!it->first.starts_with(prefix)) break;
    out.push_back(it->second);
  }
  return out;
}

WatchEvent erased_event(const std::string& key, int64_t revision) {
  Entry gone;
  gone.key = key;
  gone.mod_revision = revision;
  return WatchEvent{WatchEvent::Type::kErase, std::move(gone), revision};
}

bool covers(const TxnOp& erase, const std::string& key) {
  return erase.kind == TxnOp::Kind::kErase ? erase.key == key : key.starts_with(erase.key);
}

// etcd's rule: a branch writes each key at most once.
Status check_branch(const std::vector<TxnOp>& ops) {
  std::set<std::string> puts;
  for (const auto& op : ops) {
    if (op.kind == TxnOp::Kind::kPut && !puts.insert(op.key).second) {
      return Error(Errc::kInvalidArgument, "a transaction puts " + op.key + " twice");
    }
  }
  for (const auto& op : ops) {
    if (op.kind != TxnOp::Kind::kErase && op.kind != TxnOp::Kind::kErasePrefix) continue;
    for (const auto& key : puts) {
      if (covers(op, key)) {
        return Error(Errc::kInvalidArgument, "a transaction both puts and deletes " + key);
      }
    }
  }
  return ok_status();
}

}  // namespace

EmbeddedStore::EmbeddedStore(std::filesystem::path path, Options options)
    : path_(std::move(path)),
      options_(options),
      clock_(options.clock != nullptr ? *options.clock : SystemClock::instance()) {}

Result<std::unique_ptr<EmbeddedStore>> EmbeddedStore::open(const std::filesystem::path& path,
                                                           Options options) {
  std::unique_ptr<EmbeddedStore> store(new EmbeddedStore(path, options));
  STRATA_ASSIGN_OR_RETURN(auto file, read_store_file(path));
  if (file) {
    store->revision_ = file->revision;
    store->entries_ = std::move(file->entries);
    // Leases do not survive a restart, so neither do their keys.
    bool dropped = false;
    for (auto it = store->entries_.begin(); it != store->entries_.end();) {
      if (it->second.lease == kNoLease) {
        ++it;
        continue;
      }
      it = store->entries_.erase(it);
      dropped = true;
    }
    if (dropped) {
      ++store->revision_;
      STRATA_TRY(write_store_file(path, store->revision_, store->entries_));
    }
  }
  store->first_retained_ = store->revision_ + 1;
  store->thread_ = std::thread([s = store.get()] { s->run(); });
  return store;
}

EmbeddedStore::~EmbeddedStore() {
  {
    std::lock_guard lock(mu_);
    STRATA_CHECK(watches_.empty(), "EmbeddedStore {} destroyed with {} watches", path_.string(),
                 watches_.size());
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Result<std::optional<Entry>> EmbeddedStore::get(const std::string& key) {
  std::lock_guard lock(mu_);
  expire_leases_locked();
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::optional<Entry>();
  return std::optional<Entry>(it->second);
}

Result<Listing> EmbeddedStore::range(const std::string& prefix) {
  std::lock_guard lock(mu_);
  expire_leases_locked();
  return Listing{entries_under(entries_, prefix), revision_};
}

Result<TxnResult> EmbeddedStore::txn(const Txn& txn) {
  std::lock_guard lock(mu_);
  expire_leases_locked();
  TxnResult result;
  result.succeeded = true;
  for (const auto& c : txn.compares) {
    auto it = entries_.find(c.key);
    if (!c.holds(c.actual(it == entries_.end() ? nullptr : &it->second))) {
      result.succeeded = false;
      break;
    }
  }
  const auto& ops = result.succeeded ? txn.success : txn.failure;
  STRATA_TRY(check_branch(ops));
  bool writes = false;
  for (const auto& op : ops) {
    if (op.kind != TxnOp::Kind::kGet) writes = true;
    if (op.kind == TxnOp::Kind::kPut && op.lease != kNoLease && leases_.count(op.lease) == 0) {
      return lease_not_found(op.lease);
    }
  }
  // A writing branch works on a copy, which becomes the state only once it
  // is on disk.
  std::map<std::string, Entry> next;
  if (writes) next = entries_;
  auto& view = writes ? next : entries_;
  const int64_t rev = revision_ + 1;
  std::vector<WatchEvent> events;
  for (const auto& op : ops) {
    TxnOpResult& r = result.results.emplace_back();
    switch (op.kind) {
      case TxnOp::Kind::kPut: {
        Entry e;
        if (auto it = view.find(op.key); it != view.end()) {
          e = it->second;
          ++e.version;
        } else {
          e.key = op.key;
          e.version = 1;
          e.create_revision = rev;
        }
        e.value = op.value;
        e.mod_revision = rev;
        e.lease = op.lease;
        view[op.key] = e;
        events.push_back(WatchEvent{WatchEvent::Type::kPut, std::move(e), rev});
        break;
      }
      case TxnOp::Kind::kErase:
        if (view.erase(op.key) != 0) {
          events.push_back(erased_event(op.key, rev));
          r.erased = 1;
        }
        break;
      case TxnOp::Kind::kErasePrefix:
        for (auto it = view.lower_bound(op.key);
             it != view.end() && it->first.starts_with(op.key);) {
          events.push_back(erased_event(it->first, rev));
          ++r.erased;
          it = view.erase(it);
        }
        break;
      case TxnOp::Kind::kGet:
        if (auto it = view.find(op.key); it != view.end()) r.entry = it->second;
        break;
    }
  }
  if (!events.empty()) STRATA_TRY(commit_locked(std::move(next), std::move(events)));
  result.revision = revision_;
  return result;
}

Status EmbeddedStore::commit_locked(std::map<std::string, Entry> next,
                                    std::vector<WatchEvent> events) {
  STRATA_TRY(write_store_file(path_, revision_ + 1, next));
  apply_locked(std::move(next), std::move(events));
  return ok_status();
}

void EmbeddedStore::apply_locked(std::map<std::string, Entry> next,
                                 std::vector<WatchEvent> events) {
  // A branch writes a key at most once, so each key has at most one event.
  for (const auto& ev : events) {
    if (auto old = entries_.find(ev.entry.key); old != entries_.end()) {
      if (auto l = leases_.find(old->second.lease); l != leases_.end())
        l->second.keys.erase(old->first);
    }
    if (ev.type == WatchEvent::Type::kPut && ev.entry.lease != kNoLease) {
      leases_.at(ev.entry.lease).keys.insert(ev.entry.key);
    }
  }
  entries_ = std::move(next);
  ++revision_;
  history_.push_back(Revision{revision_, std::move(events)});
  while (history_.size() > static_cast<size_t>(std::max<int64_t>(options_.history_revisions, 0))) {
    first_retained_ = std::max(first_retained_, history_.front().revision + 1);
    history_.pop_front();
  }
  cv_.notify_all();
}

Result<Lease> EmbeddedStore::grant(int64_t ttl_ms) {
  STRATA_TRY(check_lease_ttl(ttl_ms));
  std::lock_guard lock(mu_);
  expire_leases_locked();
  LeaseId id = kNoLease;
  while (id == kNoLease || leases_.count(id) != 0) {
    id = static_cast<LeaseId>(lease_ids_() >> 1);
  }
  leases_[id] = LeaseState{ttl_ms, clock_.steady_ms() + ttl_ms, {}};
  cv_.notify_all();  // the store's thread now has a lease to watch
  return Lease{id, ttl_ms};
}

Result<int64_t> EmbeddedStore::keep_alive(LeaseId id) {
  std::lock_guard lock(mu_);
  expire_leases_locked();
  auto it = leases_.find(id);
  if (it == leases_.end()) {
    return lease_not_found(id);
  }
  it->second.deadline_ms = clock_.steady_ms() + it->second.ttl_ms;
  return it->second.ttl_ms;
}

Status EmbeddedStore::revoke(LeaseId id) {
  std::lock_guard lock(mu_);
  expire_leases_locked();
  if (leases_.count(id) == 0) {
    return lease_not_found(id);
  }
  return end_lease_locked(id);
}

void EmbeddedStore::tick() {
  std::lock_guard lock(mu_);
  expire_leases_locked();
}

void EmbeddedStore::expire_leases_locked() {
  const int64_t now = clock_.steady_ms();
  std::vector<LeaseId> due;
  for (const auto& [id, l] : leases_) {
    if (l.deadline_ms <= now) due.push_back(id);
  }
  for (LeaseId id : due) {
    if (auto st = end_lease_locked(id); !st) {
      spdlog::warn("metadata store: the expiry of lease {} is not on disk: {}", id,
                   st.error().to_string());
    }
  }
}

Status EmbeddedStore::end_lease_locked(LeaseId id) {
  auto it = leases_.find(id);
  std::set<std::string> keys = std::move(it->second.keys);
  leases_.erase(it);
  if (keys.empty()) return ok_status();  // nothing lived under it: no new revision
  std::map<std::string, Entry> next = entries_;
  std::vector<WatchEvent> events;
  for (const auto& key : keys) {
    next.erase(key);
    events.push_back(erased_event(key, revision_ + 1));
  }
  Status persisted = write_store_file(path_, revision_ + 1, next);
  apply_locked(std::move(next), std::move(events));
  return persisted;
}

Status EmbeddedStore::compact(int64_t revision) {
  std::lock_guard lock(mu_);
  if (revision > revision_) {
    return Error(
        Errc::kInvalidArgument,
        fmt::format("cannot compact to revision {}: the store is at {}", revision, revision_));
  }
  if (revision <= first_retained_) return ok_status();
  while (!history_.empty() && history_.front().revision < revision)
    history_.pop_front();
  first_retained_ = revision;
  cv_.notify_all();
  return ok_status();
}

WatchHandle EmbeddedStore::watch(const std::string& prefix, int64_t start_revision,
                                 WatchCallback cb) {
  STRATA_CHECK(start_revision >= 0, "watch of {} from revision {}", prefix, start_revision);
  uint64_t id = 0;
  {
    std::lock_guard lock(mu_);
    auto w = std::make_shared<Watch>(Watch{
        prefix, std::move(cb), WatchTracker(start_revision == 0 ? revision_ + 1 : start_revision)});
    w->tracker.seed(entries_under(entries_, prefix));
    id = next_watch_id_++;
    watches_[id] = std::move(w);
  }
  cv_.notify_all();
  return WatchHandle([this, id] { cancel(id); });
}

void EmbeddedStore::cancel(uint64_t watch_id) {
  std::unique_lock lock(mu_);
  watches_.erase(watch_id);
  if (std::this_thread::get_id() == thread_.get_id()) return;
  cv_.wait(lock, [&] { return running_watch_ != watch_id; });
}

bool EmbeddedStore::next_batch_locked(Watch& w, std::vector<WatchEvent>& out) {
  const int64_t next = w.tracker.next_revision();
  if (next > revision_) return false;
  if (next < first_retained_) {
    out = w.tracker.resync(Listing{entries_under(entries_, w.prefix), revision_});
    return !out.empty();
  }
  std::vector<WatchEvent> events;
  // The history is in revision order: start at `next`, not at its front.
  auto from = std::lower_bound(history_.begin(), history_.end(), next,
                               [](const Revision& r, int64_t rev) { return r.revision < rev; });
  for (auto rec = from; rec != history_.end(); ++rec) {
    for (const auto& ev : rec->events) {
      if (ev.entry.key.starts_with(w.prefix)) events.push_back(ev);
    }
  }
  out = w.tracker.deliver(events);
  w.tracker.advance_to(revision_ + 1);
  return !out.empty();
}

void EmbeddedStore::run() {
  std::unique_lock lock(mu_);
  uint64_t cursor = 0;  // the watch served last, for round robin
  while (!stop_) {
    if (options_.lease_check_interval_ms > 0) expire_leases_locked();
    std::shared_ptr<Watch> ready;
    uint64_t ready_id = 0;
    std::vector<WatchEvent> batch;
    for (int pass = 0; pass < 2 && !ready; ++pass) {
      auto it = pass == 0 ? watches_.upper_bound(cursor) : watches_.begin();
      auto end = pass == 0 ? watches_.end() : watches_.upper_bound(cursor);
      for (; it != end; ++it) {
        if (next_batch_locked(*it->second, batch)) {
          ready = it->second;
          ready_id = it->first;
          break;
        }
      }
    }
    if (ready) {
      cursor = ready_id;
      running_watch_ = ready_id;
      lock.unlock();
      ready->cb(batch);
      lock.lock();
      running_watch_ = 0;
      cv_.notify_all();
      continue;
    }
    // Without leases there is nothing to expire: sleep until a change.
    if (options_.lease_check_interval_ms > 0 && !leases_.empty()) {
      cv_.wait_for(lock, std::chrono::milliseconds(options_.lease_check_interval_ms));
    } else {
      cv_.wait(lock);
    }
  }
}

}  // namespace strata::coordinator
