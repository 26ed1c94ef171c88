#include "bench/strata_bench/process_stats.h"

#include <cerrno>
#include <charconv>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace strata::bench {
namespace {

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error::io(errno, "open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "VmHWM:	  123456 kB" -> bytes; 0 if the field is absent (kernel threads).
uint64_t status_kb_field(const std::string& status, const std::string& name) {
  size_t at = status.find(name + ":");
  if (at == std::string::npos) return 0;
  std::istringstream line(status.substr(at + name.size() + 1));
  uint64_t kb = 0;
  line >> kb;
  return kb * 1024;
}

}  // namespace

Result<ProcessSample> sample_process(pid_t pid) {
  std::string dir = "/proc/" + std::to_string(pid);
  STRATA_ASSIGN_OR_RETURN(auto stat, read_file(dir + "/stat"));
  // The command name may hold spaces and parentheses; fields resume after
  // the last ')'. utime and stime are fields 14 and 15 overall, so the 12th
  // and 13th after the state field.
  size_t close = stat.rfind(')');
  if (close == std::string::npos)
    return Error(Errc::kInvalidArgument, "unexpected format of " + dir + "/stat");
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) std::from_chars(field.data(), field.data() + field.size(), utime);
    if (i == 15) std::from_chars(field.data(), field.data() + field.size(), stime);
  }
  STRATA_ASSIGN_OR_RETURN(auto status, read_file(dir + "/status"));
  ProcessSample s;
  s.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  s.rss_bytes = status_kb_field(status, "VmRSS");
  s.peak_rss_bytes = status_kb_field(status, "VmHWM");
  return s;
}

Result<std::string> process_name(pid_t pid) {
  STRATA_ASSIGN_OR_RETURN(auto comm, read_file("/proc/" + std::to_string(pid) + "/comm"));
  while (!comm.empty() && (comm.back() == '\n' || comm.back() == ' '))
    comm.pop_back();
  return comm;
}

}  // namespace strata::bench
