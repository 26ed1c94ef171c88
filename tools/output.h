// Output for people (aligned tables) and for scripts (JSON).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace strata::tools {

class Table {
 public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  // Columns padded to their widest cell; numbers right-aligned.
  void print(std::FILE* out = stdout) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

void print_json(const nlohmann::json& j, std::FILE* out = stdout);

// Bytes as text: printable UTF-8 as-is; null as the given marker.
std::string printable(const void* data, size_t size);

}  // namespace strata::tools
