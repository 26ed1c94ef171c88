// strata offsets: per partition the earliest and latest offsets, and the
// offset for a time.
#include <fmt/format.h>

#include "tools/commands.h"
#include "tools/output.h"
#include "tools/time_spec.h"

namespace strata::tools {
namespace {

Status offsets(const Globals& g, const std::string& topic_name, const std::string& time) {
  std::optional<int64_t> at;
  if (!time.empty()) {
    STRATA_ASSIGN_OR_RETURN(int64_t t, parse_time(time));
    at = t;
  }
  STRATA_ASSIGN_OR_RETURN(auto k,
                          Kafka::create(g, Kafka::Kind::kConsumer, {{"group.id", "strata-cli"}}));
  STRATA_ASSIGN_OR_RETURN(auto topic, k->topic(topic_name));
  std::vector<int32_t> parts;
  for (const auto& p : topic.partitions)
    parts.push_back(p.id);
  std::vector<int64_t> for_time;
  if (at) {
    STRATA_ASSIGN_OR_RETURN(for_time, k->offsets_for_times(topic_name, parts, *at));
  }
  nlohmann::json j = nlohmann::json::array();
  std::vector<std::string> headers = {"PARTITION", "EARLIEST", "LATEST"};
  if (at) headers.push_back("AT " + format_time(*at));
  Table t(headers);
  for (size_t i = 0; i < parts.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(auto wm, k->watermarks(topic_name, parts[i]));
    nlohmann::json row = {{"partition", parts[i]}, {"earliest", wm.first}, {"latest", wm.second}};
    std::vector<std::string> cells = {std::to_string(parts[i]), std::to_string(wm.first),
                                      std::to_string(wm.second)};
    if (at) {
      row["offset_for_time"] = for_time[i];
      cells.push_back(std::to_string(for_time[i]));
    }
    j.push_back(row);
    t.add(cells);
  }
  if (g.json) {
    print_json({{"topic", topic_name}, {"partitions", j}});
  } else {
    t.print();
  }
  return ok_status();
}

}  // namespace

void add_offsets_command(CLI::App& app, Globals& g, Action& action) {
  auto topic = std::make_shared<std::string>();
  auto time = std::make_shared<std::string>();
  auto* o = app.add_subcommand(
      "offsets", "Earliest and latest offsets per partition, and the offset for a time");
  o->add_option("-t,--topic", *topic, "Topic")->required();
  o->add_option("--time", *time,
                "Also show the first offset at or after this time (RFC 3339 or epoch ms)");
  o->callback(
      [&, topic, time] { action = [&g, topic, time] { return offsets(g, *topic, *time); }; });
}

}  // namespace strata::tools
