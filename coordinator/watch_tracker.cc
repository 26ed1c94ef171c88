#include "coordinator/watch_tracker.h"

#include <algorithm>

namespace strata::coordinator {

void WatchTracker::seed(const std::vector<Entry>& entries) {
  known_.clear();
  for (const auto& e : entries)
    known_[e.key] = e.mod_revision;
}

std::vector<WatchEvent> WatchTracker::deliver(const std::vector<WatchEvent>& events) {
  std::vector<WatchEvent> out;
  int64_t last = next_ - 1;
  for (const auto& ev : events) {
    if (ev.revision < next_) continue;
    if (ev.type == WatchEvent::Type::kPut) {
      known_[ev.entry.key] = ev.entry.mod_revision;
    } else {
      known_.erase(ev.entry.key);
    }
    last = std::max(last, ev.revision);
    out.push_back(ev);
  }
  next_ = last + 1;
  return out;
}

std::vector<WatchEvent> WatchTracker::resync(const Listing& listing) {
  std::vector<WatchEvent> out;
  std::map<std::string, int64_t> now;
  for (const auto& e : listing.entries) {
    now[e.key] = e.mod_revision;
    auto it = known_.find(e.key);
    if (it == known_.end() || it->second != e.mod_revision) {
      out.push_back(WatchEvent{WatchEvent::Type::kPut, e, e.mod_revision});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const WatchEvent& a, const WatchEvent& b) {
    return a.revision < b.revision;
  });
  for (const auto& [key, mod] : known_) {
    if (now.count(key) != 0) continue;
    Entry gone;
    gone.key = key;
    gone.mod_revision = listing.revision;
    out.push_back(WatchEvent{WatchEvent::Type::kErase, gone, listing.revision});
  }
  known_ = std::move(now);
  next_ = std::max(next_, listing.revision + 1);
  return out;
}

void WatchTracker::advance_to(int64_t revision) {
  next_ = std::max(next_, revision);
}

}  // namespace strata::coordinator
