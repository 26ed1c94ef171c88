#include "registry/compatibility.h"

#include <array>
#include <utility>

#include <fmt/format.h>

namespace strata::registry {
namespace {

constexpr std::array<std::pair<CompatibilityLevel, std::string_view>, 7> kNames = {{
    {CompatibilityLevel::kNone, "NONE"},
    {CompatibilityLevel::kBackward, "BACKWARD"},
    {CompatibilityLevel::kBackwardTransitive, "BACKWARD_TRANSITIVE"},
    {CompatibilityLevel::kForward, "FORWARD"},
    {CompatibilityLevel::kForwardTransitive, "FORWARD_TRANSITIVE"},
    {CompatibilityLevel::kFull, "FULL"},
    {CompatibilityLevel::kFullTransitive, "FULL_TRANSITIVE"},
}};

bool transitive(CompatibilityLevel l) {
  return l == CompatibilityLevel::kBackwardTransitive ||
         l == CompatibilityLevel::kForwardTransitive || l == CompatibilityLevel::kFullTransitive;
}

bool checks_backward(CompatibilityLevel l) {
  return l == CompatibilityLevel::kBackward || l == CompatibilityLevel::kBackwardTransitive ||
         l == CompatibilityLevel::kFull || l == CompatibilityLevel::kFullTransitive;
}

bool checks_forward(CompatibilityLevel l) {
  return l == CompatibilityLevel::kForward || l == CompatibilityLevel::kForwardTransitive ||
         l == CompatibilityLevel::kFull || l == CompatibilityLevel::kFullTransitive;
}

// `messages` of one direction against one earlier version, each prefixed
// with which it is.
void add(std::vector<std::string>& out, std::string_view direction, size_t version_index,
         size_t count, const std::vector<std::string>& messages) {
  for (const auto& m : messages) {
    out.push_back(fmt::format("{} (against {}): {}", direction,
                              version_index + 1 == count
                                  ? std::string("the latest version")
                                  : fmt::format("earlier version #{}", version_index + 1),
                              m));
  }
}

}  // namespace

std::string_view compatibility_name(CompatibilityLevel level) {
  for (const auto& [l, name] : kNames)
    if (l == level) return name;
  return "BACKWARD";
}

std::optional<CompatibilityLevel> parse_compatibility(std::string_view name) {
  for (const auto& [l, n] : kNames)
    if (n == name) return l;
  return std::nullopt;
}

Result<std::vector<std::string>> incompatibilities(const SchemaFormat& format,
                                                   CompatibilityLevel level,
                                                   const SchemaText& candidate,
                                                   const std::vector<SchemaText>& earlier) {
  std::vector<std::string> out;
  if (level == CompatibilityLevel::kNone || earlier.empty()) return out;
  size_t first = transitive(level) ? 0 : earlier.size() - 1;
  for (size_t i = first; i < earlier.size(); ++i) {
    if (checks_backward(level)) {
      STRATA_ASSIGN_OR_RETURN(auto why, format.read_incompatibilities(candidate, earlier[i]));
      add(out, "the new schema cannot read data written", i, earlier.size(), why);
    }
    if (checks_forward(level)) {
      STRATA_ASSIGN_OR_RETURN(auto why, format.read_incompatibilities(earlier[i], candidate));
      add(out, "data written with the new schema cannot be read", i, earlier.size(), why);
    }
  }
  return out;
}

}  // namespace strata::registry
