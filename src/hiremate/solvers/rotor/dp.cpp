#include "hiremate/solvers/rotor/dp.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "hiremate/common/error.h"

namespace hiremate::rotor {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr size_t kMaxEntries = size_t{1} << 25;

int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

// Every byte count the DP adds, and their sum (a bound on any requirement).
std::vector<int64_t> quantities(const Chain& c, int64_t* sum) {
  std::vector<int64_t> q{c.loss_extra};
  *sum = c.loss_extra;
  for (const Block& b : c.blocks) {
    for (int64_t v : {b.out_bytes, b.grad_out_bytes, b.grad_in_bytes, b.ff_peak}) q.push_back(v);
    *sum += b.out_bytes + b.grad_out_bytes + b.grad_in_bytes + b.ff_peak;
    int64_t most = 0;
    for (const BlockOption& o : b.options) {
      for (int64_t v : {o.mem, o.fwd_peak, o.bwd_peak}) q.push_back(v);
      most = std::max(most, o.fwd_peak + o.bwd_peak);
    }
    *sum += most;
  }
  return q;
}
}  // namespace

Discretization choose_unit(const Chain& chain, int64_t max_slots) {
  const size_t n = chain.blocks.size() + 1;
  const int64_t pairs = static_cast<int64_t>(n * (n + 1) / 2);
  max_slots = std::max<int64_t>(8, std::min<int64_t>(max_slots, static_cast<int64_t>(kMaxEntries) / pairs - 1));
  int64_t sum = 0, g = 0;
  for (int64_t v : quantities(chain, &sum)) g = std::gcd(g, v);
  Discretization d;
  d.unit = std::max<int64_t>(1, g);
  if (ceil_div(sum, d.unit) > max_slots) d.unit = std::max<int64_t>(1, ceil_div(sum, max_slots));
  d.slots = std::max<int64_t>(1, ceil_div(sum, d.unit));
  return d;
}

Table::Table(const Chain& chain, int64_t unit, int64_t m_max, std::chrono::steady_clock::time_point deadline)
    : chain_(&chain), L_(static_cast<int>(chain.blocks.size())), m_max_(std::max<int64_t>(0, m_max)) {
  HM_ASSERT(unit > 0 && L_ > 0, "a chain of blocks and a positive unit");
  auto u = [&](int64_t bytes) { return ceil_div(bytes, unit); };
  for (const Block& b : chain.blocks) {
    x_.push_back(u(b.out_bytes));
    gout_.push_back(u(b.grad_out_bytes));
    gin_.push_back(u(b.grad_in_bytes));
    ff_.push_back(u(b.ff_peak));
    fwd_.emplace_back();
    bwd_.emplace_back();
    mem_.emplace_back();
    for (const BlockOption& o : b.options) {
      fwd_.back().push_back(u(o.fwd_peak));
      bwd_.back().push_back(u(o.bwd_peak));
      mem_.back().push_back(u(o.mem));
    }
  }
  loss_need_ = x_[L_ - 1] + u(chain.loss_extra);
  const int n = L_ + 1;
  offset_.assign(n, 0);
  for (int a = 1; a < n; ++a) offset_[a] = offset_[a - 1] + static_cast<size_t>(n - (a - 1));
  const size_t entries = (offset_[n - 1] + 1) * static_cast<size_t>(m_max_ + 1);
  value_.assign(entries, kInf);
  choice_.assign(entries, 0);
  for (int d = 0; d < n && !timed_out_; ++d)
    for (int a = 0; a + d < n; ++a) {
      fill(a, a + d);
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out_ = true;
        break;
      }
    }
}

void Table::fill(int a, int b) {
  double* val = &value_[row(a, b)];
  int32_t* cho = &choice_[row(a, b)];
  const int64_t M = m_max_;
  if (a == L_) {  // the loss
    for (int64_t m = loss_need_; m <= M; ++m) val[m] = chain_->loss_time;
    return;
  }
  const Block& blk = chain_->blocks[a];
  const int64_t xa = a > 0 ? x_[a - 1] : 0;     // x_{a-1}
  const int64_t gb = b < L_ ? gout_[b] : 0;     // g_b, resident from the start when b < L
  for (size_t k = 0; k < blk.options.size(); ++k) {
    const BlockOption& o = blk.options[k];
    const int64_t fwd_need = xa + x_[a] + fwd_[a][k] + gb;
    const int64_t bwd_need = xa + bwd_[a][k] + gout_[a] + (o.needs_output ? x_[a] : 0) + gin_[a];
    const int64_t held = xa + mem_[a][k];
    // With nothing left to the right, a forward that hands its backward nothing (no internal bytes,
    // no output read) is useless: the backward runs alone.
    const bool skip = forward_useless(a, b, k);
    const int64_t lo = skip ? bwd_need : std::max({fwd_need, bwd_need, held});
    const double t = skip ? o.bwd_time : o.fwd_time + o.bwd_time;
    const double* sub = a < b ? &value_[row(a + 1, b)] : nullptr;
    for (int64_t m = lo; m <= M; ++m) {
      double c = sub ? t + sub[m - held] : t;
      if (c < val[m]) {
        val[m] = c;
        cho[m] = static_cast<int32_t>(k);
      }
    }
  }
  int64_t ff_need = 0;
  double ff_time = 0;
  for (int j = a + 1; j <= b; ++j) {
    const int l = j - 1;  // the block fast-forwarded last
    ff_need = std::max(ff_need, xa + (l > a ? x_[l - 1] : 0) + x_[l] + ff_[l] + gb);
    ff_time += chain_->blocks[l].ff_time;
    const double* right = &value_[row(j, b)];
    const double* left = &value_[row(a, j - 1)];
    for (int64_t m = std::max(ff_need, xa); m <= M; ++m) {
      double c = ff_time + right[m - xa] + left[m];
      if (c < val[m]) {
        val[m] = c;
        cho[m] = -j;
      }
    }
  }
}

bool Table::forward_useless(int a, int b, int k) const {
  return a == b && mem_[a][k] == 0 && chain_->blocks[a].options[k].mem == 0 &&
         !chain_->blocks[a].options[k].needs_output;
}

double Table::time(int64_t m) const {
  if (m < 0) return kInf;
  return value_[row(0, L_) + static_cast<size_t>(std::min(m, m_max_))];
}

std::optional<int64_t> Table::least_feasible() const {
  for (int64_t m = 0; m <= m_max_; ++m)
    if (time(m) < kInf) return m;
  return std::nullopt;
}

void Table::expand(int a, int b, int64_t m, std::vector<Item>& out) const {
  HM_ASSERT(value_[row(a, b) + static_cast<size_t>(m)] < kInf, "expanding an infeasible state");
  if (a == L_) {
    out.push_back({Item::Kind::Loss, -1, -1});
    return;
  }
  const int64_t xa = a > 0 ? x_[a - 1] : 0;
  const int32_t c = choice_[row(a, b) + static_cast<size_t>(m)];
  if (c >= 0) {
    if (!forward_useless(a, b, c)) out.push_back({Item::Kind::Forward, a, c});
    if (a < b) expand(a + 1, b, m - xa - mem_[a][c], out);
    out.push_back({Item::Kind::Backward, a, c});
    return;
  }
  const int j = -c;
  for (int l = a; l < j; ++l) out.push_back({Item::Kind::FastForward, l, -1});
  expand(j, b, m - xa, out);
  expand(a, j - 1, m, out);
}

std::vector<Item> Table::sequence(int64_t m) const {
  m = std::min(m, m_max_);
  std::vector<Item> out;
  expand(0, L_, m, out);
  return out;
}

Schedule to_schedule(const Graph& g, const Chain& chain, const std::vector<Item>& items) {
  std::vector<Op> ops;
  for (const Item& it : items) {
    switch (it.kind) {
      case Item::Kind::Loss: ops.push_back(Op::loss_marker(chain.loss)); break;
      case Item::Kind::FastForward: {
        const auto& v = chain.blocks.at(it.block).ff_ops;
        ops.insert(ops.end(), v.begin(), v.end());
        break;
      }
      case Item::Kind::Forward:
      case Item::Kind::Backward: {
        const BlockOption& o = chain.blocks.at(it.block).options.at(it.option);
        const auto& v = it.kind == Item::Kind::Forward ? o.fwd_ops : o.bwd_ops;
        ops.insert(ops.end(), v.begin(), v.end());
        break;
      }
    }
  }
  return insert_frees(g, ops);
}

}  // namespace hiremate::rotor
