// Reports of a run: an aligned table for people, JSON for scripts (the
// comparison script in bench/ builds BENCHMARKS.md tables from the JSON).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "bench/strata_bench/runner.h"

namespace strata::bench {

nlohmann::json to_json(const RunResult& r);
std::string format_table(const RunResult& r);

}  // namespace strata::bench
