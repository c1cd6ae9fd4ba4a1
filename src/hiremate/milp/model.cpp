// Model: validation and row-wise storage. No CBC here (see cbc_model.cpp).
#include "hiremate/milp/model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hiremate/common/error.h"

namespace hiremate::milp {

namespace {

// A bound may be infinite (open side) but never NaN, and lb <= ub.
void check_bounds(double lb, double ub, const char* what) {
  HM_ASSERT(!std::isnan(lb) && !std::isnan(ub) && lb <= ub && lb < kInf && ub > -kInf,
            fmt::format("bad {} bounds [{}, {}]", what, lb, ub));
}

const std::string kNoName;

}  // namespace

void Model::check_var(Var v) const {
  HM_ASSERT(v >= 0 && static_cast<size_t>(v) < type_.size(),
            fmt::format("variable {} does not exist (the model has {})", v, type_.size()));
}

Var Model::add_var(VarType type, double lb, double ub, double obj, std::string name) {
  HM_ASSERT(type_.size() < static_cast<size_t>(std::numeric_limits<Var>::max()), "too many variables");
  check_bounds(lb, ub, "variable");
  if (type == VarType::Binary) HM_ASSERT(lb >= 0 && ub <= 1, "binary bounds must lie in [0, 1]");
  HM_ASSERT(std::isfinite(obj), "objective coefficients must be finite");
  const Var v = static_cast<Var>(type_.size());
  type_.push_back(type);
  lb_.push_back(lb);
  ub_.push_back(ub);
  obj_.push_back(obj);
  last_pos_.push_back(0);
  if (type != VarType::Continuous) ++num_integer_;
  if (!name.empty()) {
    var_names_.resize(type_.size());
    var_names_.back() = std::move(name);
  }
  return v;
}

void Model::add_row(const std::vector<Term>& terms, double lb, double ub, std::string name) {
  check_bounds(lb, ub, "row");
  const size_t begin = row_var_.size();
  for (const Term& t : terms) {
    check_var(t.var);
    HM_ASSERT(std::isfinite(t.coef), fmt::format("coefficient {} of variable {}", t.coef, t.var));
    if (t.coef == 0) continue;
    const size_t p = last_pos_[t.var];
    if (p >= begin && p < row_var_.size() && row_var_[p] == t.var) {
      row_coef_[p] += t.coef;  // a repeat within this row
    } else {
      last_pos_[t.var] = row_var_.size();
      row_var_.push_back(t.var);
      row_coef_.push_back(t.coef);
    }
  }
  // Repeats that cancelled out leave zeros; CBC does not need them.
  size_t end = begin;
  for (size_t k = begin; k < row_var_.size(); ++k) {
    if (row_coef_[k] == 0) continue;
    row_var_[end] = row_var_[k];
    row_coef_[end] = row_coef_[k];
    ++end;
  }
  row_var_.resize(end);
  row_coef_.resize(end);
  HM_ASSERT(end < static_cast<size_t>(std::numeric_limits<int>::max()), "CBC takes < 2^31 nonzeros");
  row_start_.push_back(end);
  row_lb_.push_back(lb);
  row_ub_.push_back(ub);
  if (!name.empty()) {
    row_names_.resize(row_lb_.size());
    row_names_.back() = std::move(name);
  }
}

void Model::set_obj(Var v, double c) {
  check_var(v);
  HM_ASSERT(std::isfinite(c), "objective coefficients must be finite");
  obj_[v] = c;
}

void Model::set_bounds(Var v, double lb, double ub) {
  check_var(v);
  check_bounds(lb, ub, "variable");
  if (type_[v] == VarType::Binary) HM_ASSERT(lb >= 0 && ub <= 1, "binary bounds must lie in [0, 1]");
  lb_[v] = lb;
  ub_[v] = ub;
}

void Model::set_minimize(bool minimize) { minimize_ = minimize; }

void Model::set_start(std::vector<std::pair<Var, double>> start) {
  for (const auto& [v, x] : start) {
    check_var(v);
    HM_ASSERT(std::isfinite(x), fmt::format("start value {} of variable {}", x, v));
  }
  start_ = std::move(start);
}

void Model::relax() {
  for (auto& t : type_) t = VarType::Continuous;
  num_integer_ = 0;
}

VarType Model::type(Var v) const { check_var(v); return type_[v]; }
double Model::lower(Var v) const { check_var(v); return lb_[v]; }
double Model::upper(Var v) const { check_var(v); return ub_[v]; }
double Model::obj(Var v) const { check_var(v); return obj_[v]; }

const std::string& Model::var_name(Var v) const {
  check_var(v);
  return static_cast<size_t>(v) < var_names_.size() ? var_names_[v] : kNoName;
}

const std::string& Model::row_name(size_t row) const {
  HM_ASSERT(row < num_rows(), fmt::format("row {} does not exist (the model has {})", row, num_rows()));
  return row < row_names_.size() ? row_names_[row] : kNoName;
}

double Model::objective_value(const std::vector<double>& x) const {
  HM_ASSERT(x.size() == num_vars(), "objective_value: one value per variable");
  double v = 0;
  for (size_t j = 0; j < x.size(); ++j) v += obj_[j] * x[j];
  return v;
}

double Model::max_violation(const std::vector<double>& x) const {
  HM_ASSERT(x.size() == num_vars(), fmt::format("{} values for {} variables", x.size(), num_vars()));
  double worst = 0;
  for (size_t j = 0; j < x.size(); ++j) {
    worst = std::max({worst, lb_[j] - x[j], x[j] - ub_[j]});
    if (type_[j] != VarType::Continuous) worst = std::max(worst, std::abs(x[j] - std::round(x[j])));
  }
  for (size_t i = 0; i < num_rows(); ++i) {
    double activity = 0;
    for (size_t k = row_start_[i]; k < row_start_[i + 1]; ++k) activity += row_coef_[k] * x[row_var_[k]];
    worst = std::max({worst, row_lb_[i] - activity, activity - row_ub_[i]});
  }
  return worst;
}

}  // namespace hiremate::milp
