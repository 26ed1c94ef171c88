// ProcessStats: CPU time and memory of a running process, read from /proc,
// so a benchmark can report what the system under test spent.
#pragma once

#include <cstdint>
#include <string>

#include <sys/types.h>

#include "base/result.h"

namespace strata::bench {

struct ProcessSample {
  double cpu_seconds = 0;       // user + system since the process started
  uint64_t rss_bytes = 0;       // VmRSS now
  uint64_t peak_rss_bytes = 0;  // VmHWM: the high-water mark since it started
};

// Reads /proc/<pid>/stat and /proc/<pid>/status.
Result<ProcessSample> sample_process(pid_t pid);

// The command name of a process (/proc/<pid>/comm), for reports.
Result<std::string> process_name(pid_t pid);

}  // namespace strata::bench
