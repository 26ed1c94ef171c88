#include "bench/strata_bench/report.h"

#include <fmt/format.h>

namespace strata::bench {
namespace {

double ms(int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

nlohmann::json latency_json(const LatencyHistogram& h) {
  return {{"count", h.count()},
          {"p50_ms", ms(h.quantile(0.50))},
          {"p99_ms", ms(h.quantile(0.99))},
          {"p999_ms", ms(h.quantile(0.999))},
          {"max_ms", ms(h.max())},
          {"mean_ms", h.mean() / 1e6}};
}

nlohmann::json process_json(const ProcessResult& p) {
  return {{"pid", p.pid},
          {"name", p.name},
          {"cpu_seconds", p.cpu_seconds},
          {"cpu_cores", p.cpu_cores},
          {"rss_mib", static_cast<double>(p.rss_bytes) / (1 << 20)},
          {"peak_rss_mib", static_cast<double>(p.peak_rss_bytes) / (1 << 20)}};
}

std::string latency_line(std::string_view what, const LatencyHistogram& h) {
  if (h.count() == 0) return fmt::format("  {:<22} (none in the window)\n", what);
  return fmt::format(
      "  {:<22} p50 {:8.2f}  p99 {:8.2f}  p99.9 {:8.2f}  max {:8.2f} ms ({} samples)\n", what,
      ms(h.quantile(0.5)), ms(h.quantile(0.99)), ms(h.quantile(0.999)), ms(h.max()), h.count());
}

std::string process_line(const ProcessResult& p) {
  return fmt::format("  {:<22} cpu {:6.2f} cores  rss {:7.1f} MiB  peak {:7.1f} MiB (pid {})\n",
                     p.name, p.cpu_cores, static_cast<double>(p.rss_bytes) / (1 << 20),
                     static_cast<double>(p.peak_rss_bytes) / (1 << 20), p.pid);
}

nlohmann::json timeline_json(const Timeline& t) {
  auto brief = [](const LatencyHistogram& h) -> nlohmann::json {
    return {{"count", h.count()},
            {"p50_ms", ms(h.quantile(0.50))},
            {"p99_ms", ms(h.quantile(0.99))},
            {"max_ms", ms(h.max())}};
  };
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < t.seconds().size(); ++i) {
    const auto& s = t.seconds()[i];
    out.push_back({{"second", i},
                   {"publish", brief(s.publish)},
                   {"e2e", brief(s.e2e)},
                   {"dirty_mib", static_cast<double>(s.dirty_bytes) / (1 << 20)},
                   {"writeback_mib", static_cast<double>(s.writeback_bytes) / (1 << 20)},
                   {"cached_mib", static_cast<double>(s.cached_bytes) / (1 << 20)},
                   {"wall_ms", s.wall_ms},
                   {"cpu_cores", s.cpu_cores}});
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const RunResult& r) {
  const Workload& w = r.workload;
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : r.groups) {
    groups.push_back({{"name", g.name},
                      {"received", g.received},
                      {"received_in_window", g.received_in_window},
                      {"msgs_per_s", g.msgs_per_s},
                      {"mb_per_s", g.mb_per_s},
                      {"unique", g.unique},
                      {"duplicates", g.duplicates},
                      {"foreign", g.foreign},
                      {"missing", g.missing},
                      {"lag_at_window_end", g.lag_at_window_end},
                      {"drained", g.drained},
                      {"drain_seconds", g.drain_seconds}});
  }
  nlohmann::json processes = nlohmann::json::array();
  for (const auto& p : r.processes)
    processes.push_back(process_json(p));
  return {{"driver", r.driver},
          {"workload",
           {{"name", w.name},
            {"topics", w.topics},
            {"partitions", w.partitions},
            {"replication_factor", w.replication_factor},
            {"message_size", w.message_size},
            {"keys", key_distribution_name(w.keys)},
            {"producers", w.producers},
            {"rate", w.rate},
            {"acks", w.acks},
            {"linger_ms", w.linger_ms},
            {"batch_bytes", w.batch_bytes},
            {"groups", w.groups},
            {"consumers_per_group", w.consumers_per_group},
            {"warmup_s", w.warmup_s},
            {"duration_s", w.duration_s}}},
          {"window_seconds", r.window_seconds},
          {"produce",
           {{"sent", r.sent},
            {"acked", r.acked},
            {"failed", r.failed},
            {"acked_in_window", r.acked_in_window},
            {"msgs_per_s", r.produce_msgs_per_s},
            {"mb_per_s", r.produce_mb_per_s}}},
          {"publish_latency", latency_json(r.publish_latency)},
          {"e2e_latency", latency_json(r.e2e_latency)},
          {"groups", groups},
          {"processes", processes},
          {"client", process_json(r.client)},
          {"errors", r.errors},
          {"accounting_ok", r.accounting_ok()},
          {"timeline", timeline_json(r.timeline)}};
}

std::string format_table(const RunResult& r) {
  const Workload& w = r.workload;
  std::string out = fmt::format(
      "{} on {}: {} topic(s) x {} partition(s), {} B messages, {} producer(s) at {}, acks={}, "
      "{} group(s) x {} consumer(s); {:.0f} s window after {:.0f} s warm-up\n",
      w.name, r.driver, w.topics, w.partitions, w.message_size, w.producers,
      w.rate > 0 ? fmt::format("{:.0f} msg/s", w.rate) : std::string("full speed"), w.acks,
      w.groups, w.consumers_per_group, r.window_seconds, w.warmup_s);
  out +=
      fmt::format("  {:<22} {:10.0f} msg/s  {:8.1f} MB/s   (sent {}, acked {}, failed {})\n",
                  "produce", r.produce_msgs_per_s, r.produce_mb_per_s, r.sent, r.acked, r.failed);
  for (const auto& g : r.groups) {
    out += fmt::format(
        "  {:<22} {:10.0f} msg/s  {:8.1f} MB/s   lag at window end {}, {} in {:.1f} s; "
        "unique {}, missing {}, duplicates {}\n",
        "consume " + g.name, g.msgs_per_s, g.mb_per_s, g.lag_at_window_end,
        g.drained ? "drained" : "NOT drained", g.drain_seconds, g.unique, g.missing, g.duplicates);
  }
  out += latency_line("publish latency", r.publish_latency);
  out += latency_line("end-to-end latency", r.e2e_latency);
  for (const auto& p : r.processes)
    out += process_line(p);
  out += process_line(r.client);
  for (const auto& e : r.errors)
    out += "  error: " + e + "\n";
  out += r.accounting_ok()
             ? "  accounting: every acknowledged message was consumed by every group\n"
             : "  accounting: FAILED (see missing/foreign above)\n";
  return out;
}

}  // namespace strata::bench
