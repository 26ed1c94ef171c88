// The runner: drives one workload against one driver and measures it.
//
// Timeline of a run (all on the steady clock):
//
//   prepare | consumers join (until every group holds every partition) |
//   producers start | warm-up | measured window | drain
//
// Producers are paced open-loop at rate / producers each (or unthrottled)
// and stop at the end of the measured window, then flush. Consumers read
// until every group has seen every message that was sent and not refused,
// or the drain timeout passes. Only messages sent inside the measured window
// feed the latency histograms; throughput counts what was acknowledged
// (produce) or received (each group) inside the window. Accounting covers
// the whole run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <sys/types.h>

#include "base/result.h"
#include "bench/strata_bench/driver.h"
#include "bench/strata_bench/histogram.h"
#include "bench/strata_bench/timeline.h"
#include "bench/strata_bench/workload.h"

namespace strata::bench {

struct RunOptions {
  std::vector<pid_t> watch_pids;  // the system under test: CPU and memory are reported
  bool progress = false;          // one line a second on stderr
};

struct GroupResult {
  std::string name;
  uint64_t received = 0;            // all messages received, duplicates included
  uint64_t received_in_window = 0;  // received while the window was open
  double msgs_per_s = 0;
  double mb_per_s = 0;
  uint64_t unique = 0;
  uint64_t duplicates = 0;
  uint64_t foreign = 0;           // stamps that did not come from this run
  uint64_t missing = 0;           // sent, not refused, never received
  int64_t lag_at_window_end = 0;  // messages sent by then minus received by then
  bool drained = false;           // saw everything before the drain timeout
  double drain_seconds = 0;       // from the producers' stop until it had everything
};

struct ProcessResult {
  pid_t pid = 0;
  std::string name;
  double cpu_seconds = 0;  // spent inside the measured window
  double cpu_cores = 0;    // cpu_seconds / window length
  uint64_t rss_bytes = 0;  // at the end of the run
  uint64_t peak_rss_bytes = 0;
};

struct RunResult {
  Workload workload;
  std::string driver;
  double window_seconds = 0;
  uint64_t sent = 0;    // handed to the driver
  uint64_t acked = 0;   // acknowledged by the system
  uint64_t failed = 0;  // refused, timed out, or not sent
  uint64_t acked_in_window = 0;
  double produce_msgs_per_s = 0;
  double produce_mb_per_s = 0;
  LatencyHistogram publish_latency;  // send to acknowledgement
  LatencyHistogram e2e_latency;      // send to receipt, over every group
  std::vector<GroupResult> groups;
  std::vector<ProcessResult> processes;  // the watched pids
  ProcessResult client;                  // strata-bench itself
  std::vector<std::string> errors;       // the first few error messages
  Timeline timeline{0};                  // each second of the measured window

  // Every group saw every message that was acknowledged, nothing foreign,
  // and the producers flushed.
  bool accounting_ok() const;
};

// Runs `w` against `driver`. An error means the run could not start
// (prepare failed, a client could not be created); failures during the run
// are counted in the result instead.
Result<RunResult> run_workload(Driver& driver, const Workload& w, const RunOptions& options);

}  // namespace strata::bench
