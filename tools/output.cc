#include "tools/output.h"

#include <algorithm>

namespace strata::tools {
namespace {

bool numeric(const std::string& s) {
  if (s.empty()) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  return i < s.size() && std::all_of(s.begin() + static_cast<long>(i), s.end(),
                                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

void Table::print(std::FILE* out) const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c)
    width[c] = headers_[c].size();
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string s;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < cells.size() ? cells[c] : std::string();
      size_t pad = width[c] - cell.size();
      bool right = !header && numeric(cell);
      if (right) s.append(pad, ' ');
      s += cell;
      if (!right && c + 1 < width.size()) s.append(pad, ' ');
      if (c + 1 < width.size()) s += "  ";
    }
    while (!s.empty() && s.back() == ' ')
      s.pop_back();
    std::fprintf(out, "%s\n", s.c_str());
  };
  line(headers_, true);
  for (const auto& row : rows_)
    line(row, false);
}

void print_json(const nlohmann::json& j, std::FILE* out) {
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::fprintf(out, "%s\n", s.c_str());
}

std::string printable(const void* data, size_t size) {
  return std::string(static_cast<const char*>(data), size);
}

}  // namespace strata::tools
