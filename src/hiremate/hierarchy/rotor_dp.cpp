#include "hiremate/hierarchy/rotor_dp.h"

// The table's inner loops (a min over memory slots) vectorize; -O2 alone does not (25 % faster).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

#include <algorithm>
#include <limits>
#include <numeric>

#include "hiremate/common/error.h"

namespace hiremate::hierarchy {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr size_t kMaxEntries = size_t{1} << 25;

int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

// Every byte count the DP adds, and `*enough`: what keeping everything needs at most (every output
// and the most any option saves, plus the largest local peak), past which more memory changes nothing.
std::vector<int64_t> quantities(const Chain& c, int64_t* enough) {
  std::vector<int64_t> q{c.loss_extra};
  int64_t held = 0, local = c.loss_extra;
  for (const Block& b : c.blocks) {
    for (int64_t v : {b.out_bytes, b.grad_out_bytes, b.grad_in_bytes, b.ff_peak}) q.push_back(v);
    int64_t most_saved = 0, most_peak = 0;
    for (const BlockOption& o : b.options) {
      for (int64_t v : {o.mem, o.fwd_peak, o.bwd_peak}) q.push_back(v);
      most_saved = std::max(most_saved, o.mem);
      most_peak = std::max({most_peak, o.fwd_peak, o.bwd_peak});
    }
    held += b.out_bytes + most_saved;
    local = std::max(local, b.out_bytes + b.grad_out_bytes + b.grad_in_bytes + b.ff_peak + most_peak);
  }
  *enough = held + local;
  return q;
}
}  // namespace

Discretization choose_unit(const Chain& chain, int64_t max_slots) {
  const size_t n = chain.blocks.size() + 1;
  const int64_t pairs = static_cast<int64_t>(n * (n + 1) / 2);
  max_slots = std::max<int64_t>(8, std::min<int64_t>(max_slots, static_cast<int64_t>(kMaxEntries) / pairs - 1));
  int64_t sum = 0, g = 0;  // sum: enough memory for anything
  for (int64_t v : quantities(chain, &sum)) g = std::gcd(g, v);
  Discretization d;
  d.unit = std::max<int64_t>(1, g);
  if (ceil_div(sum, d.unit) > max_slots) d.unit = std::max<int64_t>(1, ceil_div(sum, max_slots));
  d.slots = std::max<int64_t>(1, ceil_div(sum, d.unit));
  return d;
}

RotorTable::RotorTable(const Chain& chain, int64_t unit, int64_t m_max, std::chrono::steady_clock::time_point deadline)
    : chain_(&chain), L_(static_cast<int>(chain.blocks.size())), m_max_(std::max<int64_t>(0, m_max)) {
  HM_ASSERT(unit > 0 && L_ > 0, "a chain of blocks and a positive unit");
  auto u = [&](int64_t bytes) { return ceil_div(bytes, unit); };
  for (const Block& b : chain.blocks) {
    x_.push_back(u(b.out_bytes));
    gout_.push_back(u(b.grad_out_bytes));
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
  for (int d = 0; d < n && !timed_out_; ++d)
    for (int a = 0; a + d < n; ++a) {
      fill(a, a + d);
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out_ = true;
        break;
      }
    }
}

// The candidates of state (a, b) at memory m, in a fixed order: full save with each option, then
// checkpoints at j = a+1..b. fill() takes their minimum for every m at once; expand() re-evaluates
// them for one m and takes the first equal to the stored minimum (same arithmetic, same bits), so no
// arg-min table is kept.
void RotorTable::fill(int a, int b) {
  double* val = &value_[row(a, b)];
  const int64_t M = m_max_;
  if (a == L_) {  // the loss
    for (int64_t m = loss_need_; m <= M; ++m) val[m] = chain_->loss_time;
    return;
  }
  for (size_t k = 0; k < chain_->blocks[a].options.size(); ++k) {
    const FullSave f = full_save(a, b, k);
    if (a < b) {
      const double* sub = &value_[row(a + 1, b)];
      for (int64_t m = f.lo; m <= M; ++m) val[m] = std::min(val[m], f.time + sub[m - f.held]);
    } else {
      for (int64_t m = f.lo; m <= M; ++m) val[m] = std::min(val[m], f.time);
    }
  }
  Checkpoint cp;
  for (int j = a + 1; j <= b; ++j) {
    next_checkpoint(a, b, j, cp);
    const double* right = &value_[row(j, b)];
    const double* left = &value_[row(a, j - 1)];
    for (int64_t m = cp.lo; m <= M; ++m) val[m] = std::min(val[m], cp.time + right[m - cp.xa] + left[m]);
  }
}

RotorTable::FullSave RotorTable::full_save(int a, int b, size_t k) const {
  const BlockOption& o = chain_->blocks[a].options[k];
  const int64_t xa = a > 0 ? x_[a - 1] : 0;  // x_{a-1}
  const int64_t gb = b < L_ ? gout_[b] : 0;  // g_b, resident from the start when b < L
  const int64_t fwd_need = fwd_[a][k] + gb;
  const int64_t bwd_need = bwd_[a][k];
  FullSave f;
  f.held = xa + mem_[a][k];
  // With nothing left to the right, a forward that hands its backward nothing (no internal bytes,
  // no output read) is useless: the backward runs alone.
  f.skip_forward = forward_useless(a, b, static_cast<int>(k));
  f.lo = f.skip_forward ? bwd_need : std::max({fwd_need, bwd_need, f.held});
  f.time = f.skip_forward ? o.bwd_time : o.fwd_time + o.bwd_time;
  return f;
}

void RotorTable::next_checkpoint(int a, int b, int j, Checkpoint& cp) const {
  const int l = j - 1;  // the block fast-forwarded last
  cp.xa = a > 0 ? x_[a - 1] : 0;
  const int64_t gb = b < L_ ? gout_[b] : 0;
  cp.need = std::max(cp.need, (l > a ? cp.xa : 0) + ff_[l] + gb);
  cp.lo = std::max(cp.need, cp.xa);
  cp.time += chain_->blocks[l].ff_time;
}

bool RotorTable::forward_useless(int a, int b, int k) const {
  return a == b && mem_[a][k] == 0 && chain_->blocks[a].options[k].mem == 0 &&
         !chain_->blocks[a].options[k].needs_output;
}

double RotorTable::time(int64_t m) const {
  if (m < 0) return kInf;
  return value_[row(0, L_) + static_cast<size_t>(std::min(m, m_max_))];
}

std::optional<int64_t> RotorTable::least_feasible() const {
  for (int64_t m = 0; m <= m_max_; ++m)
    if (time(m) < kInf) return m;
  return std::nullopt;
}

void RotorTable::expand(int a, int b, int64_t m, std::vector<ChainStep>& out) const {
  const double v = value_[row(a, b) + static_cast<size_t>(m)];
  HM_ASSERT(v < kInf, "expanding an infeasible state");
  if (a == L_) {
    out.push_back({ChainStep::Kind::Loss, -1, -1});
    return;
  }
  for (size_t k = 0; k < chain_->blocks[a].options.size(); ++k) {
    const FullSave f = full_save(a, b, k);
    if (m < f.lo) continue;
    double c = a < b ? f.time + value_[row(a + 1, b) + static_cast<size_t>(m - f.held)] : f.time;
    if (c != v) continue;
    const int opt = static_cast<int>(k);
    if (!f.skip_forward) out.push_back({ChainStep::Kind::Forward, a, opt});
    if (a < b) expand(a + 1, b, m - f.held, out);
    out.push_back({ChainStep::Kind::Backward, a, opt});
    return;
  }
  Checkpoint cp;
  for (int j = a + 1; j <= b; ++j) {
    next_checkpoint(a, b, j, cp);
    if (m < cp.lo) continue;
    double c = cp.time + value_[row(j, b) + static_cast<size_t>(m - cp.xa)] + value_[row(a, j - 1) + static_cast<size_t>(m)];
    if (c != v) continue;
    for (int l = a; l < j; ++l) out.push_back({ChainStep::Kind::FastForward, l, -1});
    expand(j, b, m - cp.xa, out);
    expand(a, j - 1, m, out);
    return;
  }
  HM_ASSERT(false, "no candidate reproduces the table's minimum");
}

std::vector<ChainStep> RotorTable::sequence(int64_t m) const {
  m = std::min(m, m_max_);
  std::vector<ChainStep> out;
  expand(0, L_, m, out);
  return out;
}

Schedule to_schedule(const Graph& g, const Chain& chain, const std::vector<ChainStep>& items) {
  std::vector<Op> ops;
  for (const ChainStep& it : items) {
    switch (it.kind) {
      case ChainStep::Kind::Loss: ops.push_back(Op::loss_marker(chain.loss)); break;
      case ChainStep::Kind::FastForward: {
        const auto& v = chain.blocks.at(it.block).ff_ops;
        ops.insert(ops.end(), v.begin(), v.end());
        break;
      }
      case ChainStep::Kind::Forward:
      case ChainStep::Kind::Backward: {
        const BlockOption& o = chain.blocks.at(it.block).options.at(it.option);
        const auto& v = it.kind == ChainStep::Kind::Forward ? o.fwd_ops : o.bwd_ops;
        ops.insert(ops.end(), v.begin(), v.end());
        break;
      }
    }
  }
  return insert_frees(g, ops);
}

}  // namespace hiremate::hierarchy
