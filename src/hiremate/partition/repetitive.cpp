#include "hiremate/partition/repetitive.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "hiremate/common/error.h"

namespace hiremate::partition {

void RepetitiveConfig::set(const std::string& key, const std::string& value) {
  if (key == "strict_max_number_of_top_level_nodes") strict_max_number_of_top_level_nodes = parse_int_param(key, value);
  else if (key == "max_number_of_patterns") max_number_of_patterns = parse_int_param(key, value);
  else if (key == "min_number_of_patterns") min_number_of_patterns = parse_int_param(key, value);
  else if (key == "min_percentage_covered_required") min_percentage_covered_required = parse_number_param(key, value);
  else if (key == "put_intermediates_with_preceding_block")
    put_intermediates_with_preceding_block = parse_bool_param(key, value);
  else if (key == "exhaustive_up_to") exhaustive_up_to = parse_int_param(key, value);
  else {
    std::string known;
    for (const auto& k : keys()) known += (known.empty() ? "" : ", ") + k;
    throw BadInput("unknown repetitive parameter '" + key + "'; known: " + known);
  }
  if (strict_max_number_of_top_level_nodes < 2 || max_number_of_patterns < 1 || min_number_of_patterns < 2)
    throw BadInput("repetitive: strict_max_number_of_top_level_nodes and min_number_of_patterns must be at "
                   "least 2, max_number_of_patterns at least 1");
  if (!(min_percentage_covered_required > 0 && min_percentage_covered_required <= 1))
    throw BadInput("repetitive: min_percentage_covered_required must be in (0, 1]");
}

std::vector<std::string> RepetitiveConfig::keys() {
  return {"strict_max_number_of_top_level_nodes", "max_number_of_patterns", "min_number_of_patterns",
          "min_percentage_covered_required", "put_intermediates_with_preceding_block", "exhaustive_up_to"};
}

namespace {

constexpr uint64_t kBase = 0x100000001b3ULL;  // odd: powers never vanish modulo 2^64

// Window lengths to try, ascending.
std::vector<int> candidate_lengths(const std::vector<uint64_t>& h, int lo, int hi, int exhaustive_up_to) {
  std::vector<int> out;
  const int n = static_cast<int>(h.size());
  if (lo > hi) return out;
  if (n <= exhaustive_up_to) {
    for (int L = lo; L <= hi; ++L) out.push_back(L);
    return out;
  }
  std::unordered_map<uint64_t, int> last;
  std::unordered_map<int, int> count;  // distance between consecutive equal hashes -> occurrences
  for (int i = 0; i < n; ++i) {
    auto [it, fresh] = last.emplace(h[i], i);
    if (!fresh) {
      ++count[i - it->second];
      it->second = i;
    }
  }
  std::vector<std::pair<int, int>> by_count;  // (-occurrences, distance): most frequent first
  for (auto [d, c] : count) by_count.emplace_back(-c, d);
  std::sort(by_count.begin(), by_count.end());
  // A period d, its first multiples, and the first multiples of it at or above lo (the shortest
  // windows that may qualify: they repeat the most).
  for (size_t k = 0; k < by_count.size() && k < 8; ++k) {
    const int d = by_count[k].second, above = (lo + d - 1) / d;
    for (int m : {1, 2, 3, 4, above, above + 1, above + 2, above + 3}) {
      int64_t L = static_cast<int64_t>(d) * m;
      if (L >= lo && L <= hi) out.push_back(static_cast<int>(L));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

Repeats find_repeats(const ClusterGraph& cg, const RepetitiveConfig& cfg) {
  const int n = cg.size();
  Repeats best;
  if (n < 2) return best;
  std::vector<uint64_t> h(n);
  for (int i = 0; i < n; ++i) h[i] = cg.unit_hash(i);
  // prefix[i] = hash of h[0..i); window(i, L) = prefix[i+L] - prefix[i] * base^L (mod 2^64)
  std::vector<uint64_t> prefix(n + 1, 0), power(n + 1, 1);
  for (int i = 0; i < n; ++i) {
    prefix[i + 1] = prefix[i] * kBase + h[i];
    power[i + 1] = power[i] * kBase;
  }
  const double coverage = cfg.min_percentage_covered_required;
  const double fewest = n / static_cast<double>(cfg.max_number_of_patterns) * coverage;
  const int lo = std::max(1, static_cast<int>(std::ceil(fewest)));
  const int hi = n / 2;
  std::vector<std::pair<uint64_t, int>> windows;
  for (int L : candidate_lengths(h, lo, hi, cfg.exhaustive_up_to)) {
    if (n / L < static_cast<int>(best.starts.size())) break;  // cannot beat the best any more
    windows.clear();
    for (int i = 0; i + L <= n; ++i) windows.emplace_back(prefix[i + L] - prefix[i] * power[L], i);
    std::sort(windows.begin(), windows.end());
    std::vector<int> chosen, starts;
    for (size_t a = 0; a < windows.size();) {
      size_t b = a;
      starts.clear();
      int free_from = 0;
      for (; b < windows.size() && windows[b].first == windows[a].first; ++b)
        if (windows[b].second >= free_from) {
          // A hash match is checked unit by unit against the first repeat.
          if (!starts.empty() && !std::equal(h.begin() + starts[0], h.begin() + starts[0] + L,
                                             h.begin() + windows[b].second))
            continue;
          starts.push_back(windows[b].second);
          free_from = windows[b].second + L;
        }
      if (starts.size() > chosen.size() || (starts.size() == chosen.size() && !starts.empty() && starts[0] < chosen[0]))
        chosen = starts;
      a = b;
    }
    const int count = static_cast<int>(chosen.size());
    if (count < cfg.min_number_of_patterns || count * static_cast<double>(L) < coverage * n) continue;
    int blocks = count + (chosen.front() > 0) + (chosen.back() + L < n);
    if (blocks > cfg.strict_max_number_of_top_level_nodes) continue;
    // Most repeats; on ties the longer window, which covers more (upstream keeps the first).
    if (count >= static_cast<int>(best.starts.size())) best = {L, chosen};
  }
  return best;
}

static BottomToTopConfig as_any_other(BottomToTopConfig cfg) {
  cfg.main_graph_as_any_other = true;
  return cfg;
}

Repetitive::Repetitive(RepetitiveConfig cfg, BottomToTopConfig sub) : cfg_(cfg), sub_(as_any_other(sub)) {}

std::optional<Draft> Repetitive::split(const ForwardGraph& fg, const std::vector<int>& units, bool) const {
  ClusterGraph cg(fg, units);
  Repeats r = find_repeats(cg, cfg_);
  if (r.starts.empty()) return std::nullopt;
  const int n = cg.size(), L = r.length, count = static_cast<int>(r.starts.size());
  std::vector<int> cuts;  // block starts
  if (r.starts[0] > 0) cuts.push_back(0);
  for (int i = 0; i < count; ++i) {
    if (cfg_.put_intermediates_with_preceding_block || i == 0) cuts.push_back(r.starts[i]);
    else cuts.push_back(r.starts[i - 1] + L);
  }
  if (r.starts.back() + L < n) cuts.push_back(r.starts.back() + L);
  cuts.push_back(n);
  Draft d;
  d.units = units;
  d.limit = 2 * cfg_.strict_max_number_of_top_level_nodes;  // at most that many parts, 2 each
  for (size_t k = 0; k + 1 < cuts.size(); ++k)
    d.parts.push_back({{units.begin() + cuts[k], units.begin() + cuts[k + 1]}, {}, 0});
  return d;
}

}  // namespace hiremate::partition
