// How consumed messages are printed: text (tab-separated: partition, offset,
// timestamp, key, headers, value), json (one object per line) or raw (the
// value alone).
#pragma once

#include <cstdio>
#include <string>

#include <librdkafka/rdkafka.h>

#include "base/result.h"

namespace strata::tools {

enum class Format { kText, kJson, kRaw };

Result<Format> parse_format(const std::string& name, bool json_flag);
void print_message(const rd_kafka_message_t* m, Format format, std::FILE* out = stdout);

}  // namespace strata::tools
