#include "bench/strata_bench/timeline.h"

#include <cstdio>
#include <cstring>

namespace strata::bench {

LatencyHistogram& TimelineRecorder::at(Seconds& s, int64_t t_ns) {
  if (t_ns < start_ns_) return discard_;
  auto i = static_cast<size_t>((t_ns - start_ns_) / 1'000'000'000);
  if (i >= static_cast<size_t>(seconds_)) return discard_;
  if (s.size() <= i) s.resize(i + 1);
  if (!s[i]) s[i] = std::make_unique<LatencyHistogram>();
  return *s[i];
}

void Timeline::merge(const TimelineRecorder& r) {
  for (size_t i = 0; i < r.publish_.size() && i < seconds_.size(); ++i) {
    if (r.publish_[i]) seconds_[i].publish.merge(*r.publish_[i]);
  }
  for (size_t i = 0; i < r.e2e_.size() && i < seconds_.size(); ++i) {
    if (r.e2e_[i]) seconds_[i].e2e.merge(*r.e2e_[i]);
  }
}

Result<PageCacheSample> sample_page_cache() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (f == nullptr) return Error(Errc::kIoError, "cannot read /proc/meminfo");
  PageCacheSample s;
  int found = 0;
  char line[256];
  while (std::fgets(line, sizeof line, f) != nullptr) {
    unsigned long long kib = 0;
    if (std::sscanf(line, "Dirty: %llu kB", &kib) == 1) {
      s.dirty_bytes = kib * 1024;
      ++found;
    } else if (std::sscanf(line, "Writeback: %llu kB", &kib) == 1) {
      s.writeback_bytes = kib * 1024;
      ++found;
    } else if (std::sscanf(line, "Cached: %llu kB", &kib) == 1) {
      s.cached_bytes = kib * 1024;
      ++found;
    }
  }
  std::fclose(f);
  if (found != 3) return Error(Errc::kIoError, "/proc/meminfo lacks Dirty, Writeback or Cached");
  return s;
}

}  // namespace strata::bench
