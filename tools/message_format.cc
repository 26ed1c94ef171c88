#include "tools/message_format.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tools/output.h"
#include "tools/time_spec.h"

namespace strata::tools {

Result<Format> parse_format(const std::string& name, bool json_flag) {
  if (name.empty()) return json_flag ? Format::kJson : Format::kText;
  if (name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  if (name == "raw") return Format::kRaw;
  return Error(Errc::kInvalidArgument,
               fmt::format("--format must be text, json or raw, not '{}'", name));
}

void print_message(const rd_kafka_message_t* m, Format format, std::FILE* out) {
  rd_kafka_timestamp_type_t tstype;
  int64_t ts = rd_kafka_message_timestamp(m, &tstype);
  if (format == Format::kRaw) {
    if (m->payload) std::fwrite(m->payload, 1, m->len, out);
    std::fputc('\n', out);
    return;
  }
  rd_kafka_headers_t* hdrs = nullptr;
  rd_kafka_message_headers(m, &hdrs);
  if (format == Format::kJson) {
    nlohmann::json j;
    j["topic"] = rd_kafka_topic_name(m->rkt);
    j["partition"] = m->partition;
    j["offset"] = m->offset;
    j["timestamp"] = ts;
    j["key"] = m->key ? nlohmann::json(printable(m->key, m->key_len)) : nlohmann::json(nullptr);
    j["value"] =
        m->payload ? nlohmann::json(printable(m->payload, m->len)) : nlohmann::json(nullptr);
    nlohmann::json h = nlohmann::json::array();
    const char* name;
    const void* val;
    size_t size;
    for (size_t i = 0;
         hdrs && rd_kafka_header_get_all(hdrs, i, &name, &val, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      h.push_back({name, val ? nlohmann::json(printable(val, size)) : nlohmann::json(nullptr)});
    }
    j["headers"] = h;
    print_json(j, out);
    return;
  }
  std::string headers;
  const char* name;
  const void* val;
  size_t size;
  for (size_t i = 0;
       hdrs && rd_kafka_header_get_all(hdrs, i, &name, &val, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
       ++i) {
    headers += fmt::format("{}{}={}", headers.empty() ? "" : ",", name,
                           val ? printable(val, size) : std::string("<null>"));
  }
  std::string line = fmt::format("{}\t{}\t{}\t{}\t{}\t{}", m->partition, m->offset,
                                 ts >= 0 ? format_time(ts) : "-",
                                 m->key ? printable(m->key, m->key_len) : "<null>", headers,
                                 m->payload ? printable(m->payload, m->len) : "<null>");
  std::fprintf(out, "%s\n", line.c_str());
}

}  // namespace strata::tools
