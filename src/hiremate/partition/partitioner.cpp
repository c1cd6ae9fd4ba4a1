#include "hiremate/partition/partitioner.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "hiremate/common/error.h"
#include "hiremate/partition/bottom_to_top.h"
#include "hiremate/partition/repetitive.h"
#include "hiremate/partition/sequence.h"

namespace hiremate::partition {

bool parse_bool_param(const std::string& key, const std::string& value) {
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  throw BadInput("partitioner parameter " + key + "=" + value + ": expected true or false");
}

double parse_number_param(const std::string& key, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || errno != 0 || !std::isfinite(x))
    throw BadInput("partitioner parameter " + key + "=" + value + ": expected a number");
  return x;
}

int parse_int_param(const std::string& key, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  long x = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || x < 0 || x > 1000000000)
    throw BadInput("partitioner parameter " + key + "=" + value + ": expected a non-negative integer");
  return static_cast<int>(x);
}

std::vector<std::string> partitioner_names() { return {"bottom_to_top", "sequence", "repetitive"}; }

std::unique_ptr<Partitioner> make_partitioner(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  std::vector<std::pair<std::string, std::string>> params;
  if (colon != std::string::npos) {
    std::string rest = spec.substr(colon + 1);
    size_t start = 0;
    while (start <= rest.size()) {
      size_t comma = rest.find(',', start);
      std::string item = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw BadInput("partitioner '" + spec + "': parameter '" + item + "' is not key=value");
      params.emplace_back(item.substr(0, eq), item.substr(eq + 1));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  auto is_key = [](const std::vector<std::string>& keys, const std::string& k) {
    for (const auto& x : keys)
      if (x == k) return true;
    return false;
  };
  auto unknown = [&](const std::string& key, const std::vector<std::string>& keys) {
    std::string known;
    for (const auto& k : keys) known += (known.empty() ? "" : ", ") + k;
    throw BadInput("unknown " + name + " parameter '" + key + "'; known: " + known);
  };
  BottomToTopConfig b2t;
  if (name == "bottom_to_top" || name == "sequence") {
    for (const auto& [k, v] : params) {
      if (!is_key(BottomToTopConfig::keys(), k)) unknown(k, BottomToTopConfig::keys());
      b2t.set(k, v);
    }
    if (name == "bottom_to_top") return std::make_unique<BottomToTop>(b2t);
    return std::make_unique<Sequence>(b2t);
  }
  if (name == "repetitive") {
    RepetitiveConfig rep;
    std::vector<std::string> keys = RepetitiveConfig::keys();
    for (const auto& k : BottomToTopConfig::keys()) keys.push_back(k);
    for (const auto& [k, v] : params) {
      if (is_key(RepetitiveConfig::keys(), k)) rep.set(k, v);
      else if (is_key(BottomToTopConfig::keys(), k)) b2t.set(k, v);
      else unknown(k, keys);
    }
    return std::make_unique<Repetitive>(rep, b2t);
  }
  std::string known;
  for (const auto& n : partitioner_names()) known += (known.empty() ? "" : ", ") + n;
  throw BadInput("unknown partitioner '" + name + "'; known: " + known);
}

}  // namespace hiremate::partition
