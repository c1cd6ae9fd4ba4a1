#include "hiremate/common/units.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "hiremate/common/error.h"

namespace hiremate {

int64_t ceil_fraction(int64_t peak, int64_t numerator, int scale) {
  __int128 den = 1;
  for (int i = 0; i < scale; ++i) den *= 10;
  __int128 num = static_cast<__int128>(peak) * numerator;
  __int128 q = num / den + (num % den != 0 ? 1 : 0);
  if (q > INT64_MAX) throw BadInput("the budget overflows a 64-bit byte count");
  return static_cast<int64_t>(q);
}

namespace {

[[noreturn]] void bad(const std::string& text, const std::string& why) {
  throw BadInput(fmt::format("bad budget '{}': {}; write bytes (41688), a size with a unit (1.5GiB, "
                             "800MB), a fraction of the baseline peak (0.8) or a percentage (80%)",
                             text, why));
}

// A non-negative decimal number "12", "1.5", ".5": digits without the point, and digits after it.
bool parse_decimal(const std::string& s, int64_t& digits, int& scale) {
  digits = 0;
  scale = -1;
  bool any = false;
  for (char ch : s) {
    if (ch == '.') {
      if (scale >= 0) return false;
      scale = 0;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
    if (digits > (INT64_MAX - 9) / 10) return false;
    digits = digits * 10 + (ch - '0');
    if (scale >= 0) ++scale;
    any = true;
  }
  return any;
}

}  // namespace

int64_t parse_budget(const std::string& raw, int64_t baseline_peak) {
  std::string text;
  for (char ch : raw)
    if (!std::isspace(static_cast<unsigned char>(ch))) text += ch;
  if (text.empty()) bad(raw, "it is empty");
  if (text[0] == '-') bad(raw, "a budget cannot be negative");
  size_t unit_at = 0;
  while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) || text[unit_at] == '.'))
    ++unit_at;
  std::string number = text.substr(0, unit_at), unit = text.substr(unit_at);
  int64_t digits;
  int scale;
  if (!parse_decimal(number, digits, scale)) bad(raw, "it does not start with a number");
  if (digits == 0) bad(raw, "a budget must be positive");
  if (unit.empty() && scale < 0) return digits;  // plain bytes
  if (unit.empty() || unit == "%") {
    int s = std::max(scale, 0) + (unit == "%" ? 2 : 0);
    __int128 one = 1;
    for (int i = 0; i < s; ++i) one *= 10;
    if (digits > one) bad(raw, "a fraction of the baseline peak must be at most 1 (100%); write bytes with a unit for more");
    return ceil_fraction(baseline_peak, digits, s);
  }
  static const struct { const char* name; double factor; } units[] = {
      {"B", 1},           {"KB", 1e3},         {"MB", 1e6},         {"GB", 1e9},
      {"TB", 1e12},       {"KiB", 1024.0},     {"MiB", 1048576.0},  {"GiB", 1073741824.0},
      {"TiB", 1099511627776.0}, {"k", 1e3},    {"K", 1e3},          {"M", 1e6},  {"G", 1e9}};
  auto lower = [](std::string t) {
    for (char& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return t;
  };
  for (const auto& u : units)
    if (lower(unit) == lower(u.name)) {  // 1.5gb, 800mb, 64kib: units are case-insensitive
      long double value = static_cast<long double>(digits);
      for (int i = 0; i < std::max(scale, 0); ++i) value /= 10;
      long double bytes = std::ceil(value * u.factor - 1e-9L);
      if (bytes > 9.2e18L) bad(raw, "it overflows a 64-bit byte count");
      return static_cast<int64_t>(bytes);
    }
  bad(raw, "unknown unit '" + unit + "'");
}

std::string format_bytes(int64_t bytes) {
  const char* names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int i = 0;
  while (std::fabs(v) >= 1024 && i < 6) {
    v /= 1024;
    ++i;
  }
  return i == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.2f} {}", v, names[i]);
}

std::string group_digits(int64_t n) {
  const uint64_t magnitude = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  const std::string digits = std::to_string(magnitude);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string format_seconds(double s) {
  if (!(s == s)) return "nan s";
  if (s >= 100) return fmt::format("{:.0f} s", s);
  if (s >= 1) return fmt::format("{:.1f} s", s);
  if (s >= 0.01) return fmt::format("{:.2f} s", s);
  if (s >= 0.001) return fmt::format("{:.2g} ms", s * 1e3);
  return fmt::format("{:.0f} µs", s * 1e6);
}

std::string format_quantity(double v) {
  if (std::isfinite(v) && std::fabs(v) >= 1e6 && std::fabs(v) < 9e18)
    return group_digits(static_cast<int64_t>(std::llround(v)));
  return fmt::format("{:.6g}", v);
}

std::string tidy_numbers(const std::string& text) {
  static const std::regex number(R"(\d+\.\d{5,}(?:e[+-]?\d+)?|\d+(?:\.\d+)?e[+-]?\d+|\b\d{5,}(?= bytes))");
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), number), end; it != end; ++it) {
    out.append(last, (*it)[0].first);
    const double v = std::strtod(it->str().c_str(), nullptr);
    if (it->str().find_first_of(".e") == std::string::npos)  // a byte count: "49,283,072 bytes"
      out += group_digits(std::stoll(it->str()));
    else
      out += std::fabs(v) >= 1e6 ? format_quantity(v) : fmt::format("{:.4g}", v);
    last = (*it)[0].second;
  }
  out.append(last, text.cend());
  return out;
}

}  // namespace hiremate
