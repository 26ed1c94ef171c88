#include "tools/time_spec.h"

#include <charconv>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

namespace strata::tools {
namespace {

bool digits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

Error bad_time(std::string_view s, std::string_view why) {
  return Error(Errc::kInvalidArgument,
               fmt::format("bad time '{}': {} (use RFC 3339 like 2026-11-29T08:00:00Z, or epoch "
                           "milliseconds)",
                           s, why));
}

}  // namespace

Result<int64_t> parse_rfc3339(std::string_view s) {
  int y, mo, d, h, mi, sec;
  if (!digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
      !digits(s, 11, 2, h) || s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' ||
      !digits(s, 17, 2, sec)) {
    return bad_time(s, "expected YYYY-MM-DDTHH:MM:SS");
  }
  using namespace std::chrono;
  year_month_day ymd{year(y), month(static_cast<unsigned>(mo)), day(static_cast<unsigned>(d))};
  if (!ymd.ok() || h > 23 || mi > 59 || sec > 60) return bad_time(s, "no such date or time");
  size_t pos = 19;
  int64_t millis = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int64_t scale = 100;
    size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      millis += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) return bad_time(s, "empty fraction");
  }
  int64_t offset_min = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !digits(s, pos + 4, 2, om)) {
      return bad_time(s, "bad UTC offset");
    }
    offset_min = (s[pos] == '-' ? -1 : 1) * (oh * 60 + om);
    pos += 6;
  } else {
    return bad_time(s, "missing time zone (Z or +hh:mm)");
  }
  if (pos != s.size()) return bad_time(s, "trailing characters");
  auto days = sys_days(ymd).time_since_epoch().count();
  int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60;
  return secs * 1000 + millis;
}

Result<int64_t> parse_time(std::string_view s) {
  if (!s.empty() && s[0] == '@') s.remove_prefix(1);  // "@<epoch ms>" as replay takes it
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (!s.empty() && ec == std::errc() && ptr == s.data() + s.size()) {
    if (v < 0) return bad_time(s, "negative");
    return v;
  }
  return parse_rfc3339(s);
}

Result<Position> parse_position(std::string_view s) {
  if (s.empty()) return Error(Errc::kInvalidArgument, "empty position");
  if (s[0] == '@') {
    STRATA_ASSIGN_OR_RETURN(int64_t t, parse_time(s.substr(1)));
    return Position{Position::Kind::kTime, t};
  }
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && ptr == s.data() + s.size()) {
    if (v < 0) return Error(Errc::kInvalidArgument, fmt::format("negative offset {}", v));
    return Position{Position::Kind::kOffset, v};
  }
  STRATA_ASSIGN_OR_RETURN(int64_t t, parse_rfc3339(s));
  return Position{Position::Kind::kTime, t};
}

std::string format_time(int64_t epoch_ms) {
  using namespace std::chrono;
  auto tp = sys_time<milliseconds>(milliseconds(epoch_ms));
  auto day_point = floor<days>(tp);
  year_month_day ymd(day_point);
  hh_mm_ss hms(tp - day_point);
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z",
                     static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                     static_cast<unsigned>(ymd.day()), hms.hours().count(), hms.minutes().count(),
                     hms.seconds().count(), hms.subseconds().count());
}

}  // namespace strata::tools
