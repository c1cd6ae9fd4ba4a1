#include "hiremate/stage_milp/stage_vars.h"

namespace hiremate::stage_milp {

StageVars::StageVars(const StageTables& tables, int64_t capacity) : tab(tables), cap(capacity) {
  const int T = tab.T;
  R.assign(T, {});
  PH.assign(T, {});
  U.assign(T, {});
  S.assign(T, {});
  s_index.assign(T, std::vector<int>(tab.mem.size(), -1));
  frees.assign(T, {});
  for (int t = 0; t < T; ++t) {
    R[t].assign(t + 1, {});
    PH[t].assign(t + 1, {});
    U[t].assign(t + 1, kAbsent);
    frees[t].resize(t + 1);
  }
}

void StageVars::build() {
  for (int t = 0; t < tab.T; ++t) {
    add_run_vars(t);
    add_residency_vars(t);
  }
  for (int t = 0; t < tab.T; ++t) {
    for (int k = 0; k <= t; ++k) {
      auto run = runs(t, k);
      if (!run.empty()) add_node_rows(t, k, run);
    }
    add_carry_rows(t);
    add_free_rows(t);
    add_memory_rows(t);
  }
}

milp::Var StageVars::s(int t, NodeId d) const {
  if (t >= tab.T) return kAbsent;
  int i = s_index[t][d];
  return i < 0 ? kAbsent : S[t][i].second;
}

milp::Var StageVars::ph(int t, int k, int c) const {
  if (t >= tab.T || PH[t][k].empty()) return kAbsent;
  return PH[t][k][c];
}

std::vector<milp::Term> StageVars::runs(int t, int k, double coef) const {
  std::vector<milp::Term> out;
  for (milp::Var v : R[t][k])
    if (v != kAbsent) out.push_back({v, coef});
  return out;
}

std::vector<milp::Term> StageVars::resident(int t, int k, double coef) const {
  std::vector<milp::Term> out;
  if (t < tab.T)
    for (milp::Var v : PH[t][k])
      if (v != kAbsent) out.push_back({v, coef});
  return out;
}

void StageVars::append(std::vector<milp::Term>& row, const std::vector<milp::Term>& more) {
  row.insert(row.end(), more.begin(), more.end());
}

void StageVars::add_residency_vars(int t) {
  for (size_t d = 0; d < tab.mem.size(); ++d)
    if (tab.producer[d] >= 0 && tab.producer[d] < t && tab.data_need(static_cast<NodeId>(d)) >= t) {
      s_index[t][d] = static_cast<int>(S[t].size());
      S[t].push_back({static_cast<NodeId>(d), model.add_var(milp::VarType::Binary, 0, 1, 0)});
    }
}

void StageVars::add_need_row(int t, const std::vector<milp::Term>& run, NodeId d) {
  std::vector<milp::Term> row = run;
  append(row, runs(t, tab.producer[d], -1));
  if (s(t, d) != kAbsent) row.push_back({s(t, d), -1});
  model.add_row(row, -milp::kInf, 0);
}

void StageVars::add_no_recompute_rows(int t, int k, const std::vector<milp::Term>& run) {
  if (k >= t || tab.kind[k] != ComputeKind::Forward) return;
  for (NodeId d : tab.data_out[k])
    if (s(t, d) != kAbsent) {
      std::vector<milp::Term> row = run;
      row.push_back({s(t, d), 1});
      model.add_row(row, -milp::kInf, 1);
    }
}

void StageVars::add_carry_rows(int t) {
  using milp::Term;
  if (t + 1 >= tab.T) return;
  for (const auto& [d, var] : S[t + 1]) {
    std::vector<Term> row{{var, 1}};
    append(row, runs(t, tab.producer[d], -1));
    if (s(t, d) != kAbsent) row.push_back({s(t, d), -1});
    model.add_row(row, -milp::kInf, 0);
  }
  for (int k = 0; k <= t; ++k)
    for (size_t c = 0; c < PH[t + 1][k].size(); ++c) {
      milp::Var next = PH[t + 1][k][c];
      if (next == kAbsent) continue;
      std::vector<Term> row{{next, 1}};
      if (c < R[t][k].size() && R[t][k][c] != kAbsent) row.push_back({R[t][k][c], -1});
      if (ph(t, k, static_cast<int>(c)) != kAbsent) row.push_back({ph(t, k, static_cast<int>(c)), -1});
      model.add_row(row, -milp::kInf, 0);
    }
}

void StageVars::add_free_rows(int t) {
  using milp::Term;
  const double inf = milp::kInf;
  // FREE after a forward k < t: k ran, i is not carried to t + 1, no later user of i runs in t. Frees
  // after the stage's last op affect none of its memory rows; the next stage starts from S and PH.
  for (int k = 0; k < t; ++k) {
    auto run = runs(t, k);
    if (run.empty()) continue;
    std::vector<NodeId> candidates = tab.data_in[k];
    candidates.insert(candidates.end(), tab.data_out[k].begin(), tab.data_out[k].end());
    for (NodeId d : candidates) {
      milp::Var f = model.add_var(milp::VarType::Binary, 0, 1, 0);
      frees[t][k].push_back({d, f});
      std::vector<Term> upper{{f, 1}};
      append(upper, runs(t, k, -1));
      model.add_row(upper, -inf, 0);
      std::vector<Term> cover{{f, 1}};
      append(cover, runs(t, k, -1));
      if (s(t + 1, d) != kAbsent) {
        model.add_row({{f, 1}, {s(t + 1, d), 1}}, -inf, 1);
        cover.push_back({s(t + 1, d), 1});
      }
      for (int j : tab.users[d])
        if (j > k && j <= t)
          for (const Term& r : runs(t, j)) {
            model.add_row({{f, 1}, {r.var, 1}}, -inf, 1);
            cover.push_back({r.var, 1});
          }
      model.add_row(cover, 0, inf);
    }
  }
}

void StageVars::add_memory_rows(int t) {
  using milp::Term;
  milp::Var prev_u = kAbsent;
  int prev = -1;
  for (int k = 0; k <= t; ++k) {
    auto run = runs(t, k);
    if (run.empty()) continue;
    milp::Var u = model.add_var(milp::VarType::Continuous, 0, static_cast<double>(cap), 0);
    U[t][k] = u;
    std::vector<Term> row{{u, 1}};
    double constant = 0;  // the row is u - (terms) = constant
    if (prev < 0) {
      for (const auto& [d, var] : S[t]) row.push_back({var, -static_cast<double>(tab.mem[d])});
      for (int f = 0; f < t; ++f)
        for (size_t c = 0; c < PH[t][f].size(); ++c)
          if (PH[t][f][c] != kAbsent) row.push_back({PH[t][f][c], -static_cast<double>(tab.kept[f][c])});
      constant += static_cast<double>(tab.grads_at_start[t]);
    } else {
      row.push_back({prev_u, -1});
      for (const Free& fr : frees[t][prev]) row.push_back({fr.var, static_cast<double>(tab.mem[fr.data])});
    }
    bool any_overhead = false;
    for (size_t c = 0; c < R[t][k].size(); ++c) {
      if (R[t][k][c] == kAbsent) continue;
      row.push_back({R[t][k][c], -static_cast<double>(tab.out_units[k] + tab.kept[k][c])});
      any_overhead |= tab.overhead[k][c] > 0;
    }
    if (k == t) constant += static_cast<double>(tab.grads_new[t]);
    model.add_row(row, constant, constant);
    if (any_overhead) {
      std::vector<Term> peak{{u, 1}};
      for (size_t c = 0; c < R[t][k].size(); ++c)
        if (R[t][k][c] != kAbsent) peak.push_back({R[t][k][c], static_cast<double>(tab.overhead[k][c])});
      model.add_row(peak, -milp::kInf, static_cast<double>(cap));
    }
    prev_u = u;
    prev = k;
  }
}

void StageVars::keep_all_residency(std::vector<double>& x, int t) const {
  for (const auto& [d, var] : S[t]) {
    bool later = false;
    for (int u : tab.users[d]) later |= u >= t;
    x[var] = later ? 1 : 0;
  }
}

namespace {
double run_value(const std::vector<milp::Var>& choices, const std::vector<double>& x) {
  double v = 0;
  for (milp::Var r : choices)
    if (r != kAbsent) v += x[r];
  return v;
}
}  // namespace

void StageVars::free_values(std::vector<double>& x) const {
  auto val = [&](milp::Var v) { return v == kAbsent ? 0.0 : x[v]; };
  for (int t = 0; t < tab.T; ++t)
    for (int k = 0; k < t; ++k)
      for (const Free& fr : frees[t][k]) {
        bool f = run_value(R[t][k], x) > 0.5 && val(s(t + 1, fr.data)) < 0.5;
        for (int j : tab.users[fr.data])
          if (j > k && j <= t && run_value(R[t][j], x) > 0.5) f = false;
        x[fr.var] = f ? 1 : 0;
      }
}

void StageVars::memory_values(std::vector<double>& x) const {
  for (int t = 0; t < tab.T; ++t) {
    double u = 0;
    int prev = -1;
    for (int k = 0; k <= t; ++k) {
      if (U[t][k] == kAbsent) continue;
      if (prev < 0) {
        u = static_cast<double>(tab.grads_at_start[t]);
        for (const auto& [d, var] : S[t]) u += x[var] * static_cast<double>(tab.mem[d]);
        for (int f = 0; f < t; ++f)
          for (size_t c = 0; c < PH[t][f].size(); ++c)
            if (PH[t][f][c] != kAbsent) u += x[PH[t][f][c]] * static_cast<double>(tab.kept[f][c]);
      } else {
        for (const Free& fr : frees[t][prev]) u -= x[fr.var] * static_cast<double>(tab.mem[fr.data]);
      }
      for (size_t c = 0; c < R[t][k].size(); ++c)
        if (R[t][k][c] != kAbsent) u += x[R[t][k][c]] * static_cast<double>(tab.out_units[k] + tab.kept[k][c]);
      if (k == t) u += static_cast<double>(tab.grads_new[t]);
      x[U[t][k]] = u;
      prev = k;
    }
  }
}

}  // namespace hiremate::stage_milp
