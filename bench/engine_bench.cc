// Engine micro-benchmarks: append to the page cache, append with
// group-committed fdatasync, sequential reads, index lookups, and the
// recovery scan. Run by bench/engine_vs_disk.sh next to dd on the same disk;
// figures in BENCHMARKS.md.
//
//   build/bench/engine_bench --benchmark_repetitions=3
//   STRATA_BENCH_DIR=/var/tmp build/bench/engine_bench   # where files go
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/logging.h"
#include "engine/batch_builder.h"
#include "engine/log.h"
#include "index/index_store.h"
#include "io/disk_file_system.h"
#include "io/testing/loop.h"

namespace strata::engine {
namespace {

constexpr size_t kRecordBytes = 1024;
constexpr int kRecordsPerBatch = 16;  // 16 KiB batches
constexpr size_t kWindow = 256;       // appends in flight
constexpr size_t kPerTurn = 8;        // appends per loop turn, as produce requests arrive

std::filesystem::path bench_root() {
  const char* dir = std::getenv("STRATA_BENCH_DIR");
  return dir != nullptr ? dir : std::filesystem::temp_directory_path();
}

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// Latency percentiles in microseconds from raw samples (nanoseconds).
void report_percentiles(benchmark::State& state, std::vector<int64_t>& ns, const char* prefix) {
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) {
    return static_cast<double>(ns[std::min(ns.size() - 1, static_cast<size_t>(q * ns.size()))]) /
           1000.0;
  };
  state.counters[std::string(prefix) + "p50_us"] = at(0.50);
  state.counters[std::string(prefix) + "p99_us"] = at(0.99);
  state.counters[std::string(prefix) + "p999_us"] = at(0.999);
  state.counters[std::string(prefix) + "max_us"] = static_cast<double>(ns.back()) / 1000.0;
}

std::vector<std::byte> make_batch(int n, TimestampMs ts) {
  BatchBuilder b;
  for (int i = 0; i < n; ++i) {
    b.add({.key = "key-" + std::to_string(i),
           .value = std::string(kRecordBytes - 16, 'x'),
           .timestamp = ts + i});
  }
  return b.build().value();
}

// A log in a fresh directory, driven by this thread.
class BenchLog {
 public:
  explicit BenchLog(TopicConfig config = {}) : config_(config) {
    dir_ = bench_root() /
           ("strata-bench-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    open(false);
  }
  ~BenchLog() {
    log_.reset();
    index_.reset();
    std::filesystem::remove_all(dir_);
  }

  void open(bool clean) {
    index_ = index::IndexStore::open(dir_ / "index").value();
    LogOptions o{PartitionUid(1),          dir_ / "p-0", config_, &fs_, index_.get(),
                 &SystemClock::instance(), &loop_.io(),  clean};
    log_ = Log::open(o).value();
  }
  void drop_index() {
    log_.reset();
    index_.reset();
    std::filesystem::remove_all(dir_ / "index");
  }

  // Appends `total_bytes` in 16 KiB batches with kWindow appends in flight;
  // `flush_each` makes every append wait for a flush (8 appenders).
  void append_bytes(uint64_t total_bytes, bool flush_each, size_t appenders = kWindow) {
    if (pool_.empty()) {
      for (size_t i = 0; i < kWindow + 2 * kPerTurn; ++i) {
        pool_.push_back(SharedBytes::copy_of(make_batch(kRecordsPerBatch, 1'700'000'000'000)));
      }
    }
    uint64_t sent = 0;
    size_t in_flight = 0, next = 0;
    std::function<void()> send_one = [&] {
      auto& batch = pool_[next++ % pool_.size()];
      set_base_offset(batch.data(), Offset(0));  // as it arrives from a client
      sent += batch.size();
      ++in_flight;
      auto st = log_->append(batch, {}, [&, flush_each](Result<AppendResult> r) {
        if (!r.ok()) std::abort();
        if (!flush_each) {
          --in_flight;
          return;
        }
        log_->flush([&](Status s) {
          if (!s.ok()) std::abort();
          --in_flight;
        });
      });
      if (!st.ok()) std::abort();
    };
    while (sent < total_bytes || in_flight > 0) {
      for (size_t i = 0; i < kPerTurn && sent < total_bytes && in_flight < appenders; ++i) {
        send_one();
      }
      loop_.run_one();
    }
  }

  strata::testing::Loop& loop() { return loop_; }
  Log& log() { return *log_; }
  index::IndexStore& index() { return *index_; }

 private:
  static inline int counter_ = 0;
  TopicConfig config_;
  std::filesystem::path dir_;
  strata::testing::Loop loop_;
  io::DiskFileSystem fs_{&loop_.ring()};
  std::unique_ptr<index::IndexStore> index_;
  std::unique_ptr<Log> log_;
  std::vector<SharedBytes> pool_;
};

TopicConfig bench_config() {
  TopicConfig c;
  c.segment_bytes = 256 << 20;
  return c;
}

void BM_AppendPageCache(benchmark::State& state) {
  const uint64_t total = static_cast<uint64_t>(state.range(0)) << 20;
  for (auto _ : state) {
    BenchLog log(bench_config());
    auto start = std::chrono::steady_clock::now();
    log.append_bytes(total, false);
    auto elapsed = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(std::chrono::duration<double>(elapsed).count());
  }
  state.SetBytesProcessed(static_cast<int64_t>(total * state.iterations()));
  state.counters["peak_rss_mib"] = peak_rss_mib();
}
BENCHMARK(BM_AppendPageCache)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_AppendGroupCommit8(benchmark::State& state) {
  const uint64_t total = static_cast<uint64_t>(state.range(0)) << 20;
  uint64_t syncs = 0;
  for (auto _ : state) {
    BenchLog log(bench_config());
    auto start = std::chrono::steady_clock::now();
    log.append_bytes(total, true, 8);
    auto elapsed = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(std::chrono::duration<double>(elapsed).count());
    syncs += log.log().fsync_count();
  }
  state.SetBytesProcessed(static_cast<int64_t>(total * state.iterations()));
  state.counters["fdatasyncs"] =
      static_cast<double>(syncs) / static_cast<double>(state.iterations());
  state.counters["peak_rss_mib"] = peak_rss_mib();
}
BENCHMARK(BM_AppendGroupCommit8)->Arg(256)->UseManualTime()->Unit(benchmark::kMillisecond);

// One producer with acks=all and nothing else in flight: each 1 KiB batch is
// appended, flushed, and only then is the next one sent. The latency of one
// durable append through the engine (io_uring write, then io_uring
// fdatasync), next to BM_RawWriteFdatasync doing the same with plain
// syscalls on the same disk.
void BM_DurableAppendLatency(benchmark::State& state) {
  BenchLog log(bench_config());
  auto batch = SharedBytes::copy_of(make_batch(1, 1'700'000'000'000));
  std::vector<int64_t> ns;
  for (auto _ : state) {
    set_base_offset(batch.data(), Offset(0));
    bool done = false;
    auto t0 = std::chrono::steady_clock::now();
    auto st = log.log().append(batch, {}, [&](Result<AppendResult> r) {
      if (!r.ok()) std::abort();
      log.log().flush([&](const Status& s) {
        if (!s.ok()) std::abort();
        done = true;
      });
    });
    if (!st.ok()) std::abort();
    log.loop().run_until([&] { return done; });
    auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  }
  report_percentiles(state, ns, "");
}
BENCHMARK(BM_DurableAppendLatency)->Iterations(5000);

void BM_RawWriteFdatasync(benchmark::State& state) {
  auto path = bench_root() / ("strata-bench-raw-" + std::to_string(::getpid()));
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (fd < 0) std::abort();
  auto batch = make_batch(1, 1'700'000'000'000);
  std::vector<int64_t> ns;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    if (::write(fd, batch.data(), batch.size()) != static_cast<ssize_t>(batch.size())) std::abort();
    if (::fdatasync(fd) != 0) std::abort();
    auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  }
  ::close(fd);
  std::filesystem::remove(path);
  report_percentiles(state, ns, "");
}
BENCHMARK(BM_RawWriteFdatasync)->Iterations(5000);

// One 1 GiB log shared by the read-side benchmarks.
BenchLog& shared_log() {
  static BenchLog* log = [] {
    auto* l = new BenchLog(bench_config());
    l->append_bytes(uint64_t{1} << 30, false);
    return l;
  }();
  return *log;
}

void BM_SequentialRead(benchmark::State& state) {
  auto& bl = shared_log();
  auto& log = bl.log();
  uint64_t bytes = 0;
  for (auto _ : state) {
    Offset at = log.log_start_offset();
    while (at < log.log_end_offset()) {
      bool done = false;
      log.read(at, 1 << 20, [&](Result<ReadResult> r) {
        if (!r.ok()) std::abort();
        bytes += r->bytes;
        const auto& last = r->slices.back();
        // The next read starts after the last batch returned.
        size_t pos = 0, end = last.size();
        Offset next = at;
        while (pos < end) {
          auto h = read_batch_header(last.data() + pos);
          next = h.next_offset();
          pos += h.total_size();
        }
        at = next;
        done = true;
      });
      while (!done)
        bl.loop().run_one();
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["peak_rss_mib"] = peak_rss_mib();
}
BENCHMARK(BM_SequentialRead)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_IndexOffsetLookup(benchmark::State& state) {
  auto& bl = shared_log();
  std::mt19937_64 rng(1);
  int64_t end = bl.log().log_end_offset().value();
  std::vector<int64_t> ns;
  for (auto _ : state) {
    Offset o(static_cast<int64_t>(rng() % static_cast<uint64_t>(end)));
    auto t0 = std::chrono::steady_clock::now();
    auto e = bl.index().offset_floor(PartitionUid(1), o);
    auto t1 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(e);
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  }
  report_percentiles(state, ns, "");
}
BENCHMARK(BM_IndexOffsetLookup)->Iterations(200000);

void BM_IndexTimeLookup(benchmark::State& state) {
  auto& bl = shared_log();
  std::mt19937_64 rng(2);
  std::vector<int64_t> ns;
  for (auto _ : state) {
    TimestampMs ts = 1'700'000'000'000 + static_cast<TimestampMs>(rng() % kRecordsPerBatch);
    auto t0 = std::chrono::steady_clock::now();
    auto e = bl.index().time_floor(PartitionUid(1), ts);
    auto t1 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(e);
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  }
  report_percentiles(state, ns, "");
}
BENCHMARK(BM_IndexTimeLookup)->Iterations(200000);

// What every completed append costs the index, as a busy broker writes it:
// 16 partitions taking turns, each write the applied marker and the
// segment's metadata, and one write in four an offset and a time entry (a
// 1 KiB-record batch per write, an entry every 4 KiB).
void BM_IndexWriteAfterAppend(benchmark::State& state) {
  constexpr int kPartitions = 16;
  auto dir = bench_root() / "strata-engine-bench-index-write";
  std::filesystem::remove_all(dir);
  auto store = index::IndexStore::open(dir);
  STRATA_CHECK(store.ok(), "open: {}", store.ok() ? "" : store.error().to_string());
  std::vector<int64_t> next(kPartitions, 0);
  int64_t now = 1'700'000'000'000;
  uint64_t i = 0;
  for (auto _ : state) {
    int p = static_cast<int>(i % kPartitions);
    PartitionUid uid(static_cast<uint64_t>(p + 1));
    index::IndexStore::Update u(uid);
    Offset at(next[p]);
    if ((i / kPartitions) % 4 == 0) {
      u.add(index::IndexEntry{at, Offset(0), FilePos(static_cast<uint64_t>(next[p]) * 1100), now});
    }
    next[p] += 1;
    u.set_applied(index::LogPoint{Offset(next[p]), Offset(0),
                                  FilePos(static_cast<uint64_t>(next[p]) * 1100), now, 1100});
    u.set_segment(Offset(0), index::SegmentMeta{now, now});
    auto st = (*store)->write(u);
    STRATA_CHECK(st.ok(), "write");
    ++i;
    ++now;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
  store->reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_IndexWriteAfterAppend)->Iterations(2000000);

// A read of one batch at a random offset, end to end (index + io_uring read).
void BM_ReadOneBatchAtRandomOffset(benchmark::State& state) {
  auto& bl = shared_log();
  std::mt19937_64 rng(3);
  int64_t end = bl.log().log_end_offset().value();
  std::vector<int64_t> ns;
  for (auto _ : state) {
    Offset o(static_cast<int64_t>(rng() % static_cast<uint64_t>(end)));
    bool done = false;
    auto t0 = std::chrono::steady_clock::now();
    bl.log().read(o, 1, [&](Result<ReadResult> r) {
      if (!r.ok()) std::abort();
      done = true;
    });
    while (!done)
      bl.loop().run_one();
    auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  }
  report_percentiles(state, ns, "");
}
BENCHMARK(BM_ReadOneBatchAtRandomOffset)->Iterations(20000);

void BM_RecoveryScan(benchmark::State& state) {
  const uint64_t total = static_cast<uint64_t>(state.range(0)) << 20;
  BenchLog log(bench_config());
  log.append_bytes(total, false);
  uint64_t scanned = 0;
  for (auto _ : state) {
    log.drop_index();  // no markers: the whole log is validated and re-indexed
    auto start = std::chrono::steady_clock::now();
    log.open(false);
    auto elapsed = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(std::chrono::duration<double>(elapsed).count());
    scanned += log.log().recovery().bytes_scanned;
  }
  state.SetBytesProcessed(static_cast<int64_t>(scanned));
  state.counters["peak_rss_mib"] = peak_rss_mib();
}
BENCHMARK(BM_RecoveryScan)
    ->Arg(1024)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace strata::engine

int main(int argc, char** argv) {
  if (!strata::init_logging("warn").ok()) return 2;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
