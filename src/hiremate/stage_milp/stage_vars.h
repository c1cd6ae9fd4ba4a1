// The variables and rows that RK-Checkmate and the H-ILP share (research/hiremate.md §5), written once
// so that a fix to the FREE or memory rows is made in one place. build() walks the stages; each model
// creates its own run and kept-bytes variables (R, PH: they differ in which choices exist) and its own
// rows about them (the hooks), and this builder adds the residency variables S and the rows that only
// read the tables (stage_tables.h):
//   need      k runs in stage t only if each data input is resident or computed earlier in t;
//   no recompute  a forward is not recomputed while one of its outputs is resident;
//   carry     S[t+1,i] <= (i's producer runs in t) + S[t,i]; PH[t+1,k,c] <= R[t,k,c] + PH[t,k,c];
//   FREE      FREE[t,k,i] = k runs in t, i not carried to t + 1, no later user of i runs in t: the
//             product, linearized with one row per hazard and a covering row;
//   memory    U[t,k], the memory while k runs: U of the first node of the stage is what is resident
//             on entry (S, PH, grads) plus what k adds; each next U is the previous less its frees
//             plus what its node adds; U + overhead <= cap where a choice has overhead.
// Rows are added in the order the models always added them, so their MILPs are unchanged.
// The value helpers mirror the rows: they complete a MIP start from its run and kept variables.
#pragma once
#include <cstdint>
#include <vector>

#include "hiremate/graph/graph.h"
#include "hiremate/milp/model.h"
#include "hiremate/stage_milp/stage_tables.h"

namespace hiremate::stage_milp {

constexpr milp::Var kAbsent = -1;  // a variable that cannot be 1, never created

// FREE[t,k,i]: `data` is freed right after node k runs in stage t.
struct Free {
  NodeId data;
  milp::Var var;
};

struct StageVars {
  const StageTables& tab;
  int64_t cap;  // the budget in units, sources removed
  milp::Model model;
  // [t][k][choice], k <= t; an empty list where k cannot run (R) or keeps nothing (PH) in stage t.
  std::vector<std::vector<std::vector<milp::Var>>> R, PH;
  std::vector<std::vector<milp::Var>> U;  // U[t][k], kAbsent where k cannot run in stage t
  std::vector<std::vector<std::pair<NodeId, milp::Var>>> S;  // S[t]: (data, var)
  std::vector<std::vector<int>> s_index;  // s_index[t][data]: its place in S[t], -1
  std::vector<std::vector<std::vector<Free>>> frees;  // frees[t][k]

  // Sizes every table (nothing created yet).
  StageVars(const StageTables& tables, int64_t capacity);
  virtual ~StageVars() = default;

  // Per stage, add_run_vars then S; then per stage, add_node_rows for each node that can run, then the
  // carry, FREE and memory rows. A model's constructor calls it last (the hooks are virtual).
  void build();
  // R[t] and PH[t] (and rows on them alone).
  virtual void add_run_vars(int t) = 0;
  // The model's rows for node k in stage t; `run`: the terms of "k runs in stage t" (not empty).
  virtual void add_node_rows(int t, int k, const std::vector<milp::Term>& run) = 0;

  milp::Var s(int t, NodeId d) const;
  milp::Var ph(int t, int k, int c) const;
  // The terms of "k runs in stage t" (any choice), empty when it cannot.
  std::vector<milp::Term> runs(int t, int k, double coef = 1) const;
  // The terms of "what a choice of k kept is resident on entry to t".
  std::vector<milp::Term> resident(int t, int k, double coef = 1) const;
  static void append(std::vector<milp::Term>& row, const std::vector<milp::Term>& more);

  // S[t]: for data produced before t that a stage from t on may read.
  void add_residency_vars(int t);
  void add_need_row(int t, const std::vector<milp::Term>& run, NodeId d);
  void add_no_recompute_rows(int t, int k, const std::vector<milp::Term>& run);
  void add_carry_rows(int t);
  void add_free_rows(int t);
  void add_memory_rows(int t);

  // Values for a start: S of stage t as keeping everything keeps it (resident while a later stage
  // reads it); FREE as its rows force it; U along each stage's memory chain (R, S, PH, FREE set).
  void keep_all_residency(std::vector<double>& x, int t) const;
  void free_values(std::vector<double>& x) const;
  void memory_values(std::vector<double>& x) const;
};

}  // namespace hiremate::stage_milp
