// Model -> CBC: the row-wise terms become CBC's column-wise (CSC) matrix with one counting sort,
// linear in the nonzeros, and everything is handed over with a single Cbc_loadProblem (CBC's
// per-row Cbc_addRow grows its matrix row by row).
#include "hiremate/milp/cbc_model.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "hiremate/common/error.h"

namespace hiremate::milp::detail {

double objective_scale(const Model& model) {
  double largest = 0;
  for (double c : model.objective()) largest = std::max(largest, std::abs(c));
  if (largest == 0 || (largest >= 1 && largest <= 1e6)) return 1;
  return 1e3 / largest;
}

namespace {

// COIN-OR spells an absent bound DBL_MAX, not IEEE infinity.
double to_coin(double bound) {
  if (bound == kInf) return DBL_MAX;
  if (bound == -kInf) return -DBL_MAX;
  return bound;
}

std::vector<double> to_coin(const std::vector<double>& bounds, size_t extra, double extra_value) {
  std::vector<double> out;
  out.reserve(bounds.size() + extra);
  for (double b : bounds) out.push_back(to_coin(b));
  out.resize(bounds.size() + extra, extra_value);
  return out;
}

// CoinLpIO rejects a whole set of names (and falls back to its own) if one has a character
// outside its list or starts with a digit; letters, digits and _ are always safe.
std::string lp_name(const std::string& name, char prefix, size_t index) {
  if (name.empty()) return prefix + std::to_string(index);
  std::string out;
  if (name[0] >= '0' && name[0] <= '9') out += '_';
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  if (out.size() > 100) out.resize(100);  // CoinLpIO's limit
  return out;
}

}  // namespace

CbcProblem load_into_cbc(const Model& model, Purpose purpose) {
  const size_t n = model.num_vars(), rows = model.num_rows(), nnz = model.num_nonzeros();
  const bool dummy = purpose == Purpose::Solve && model.num_integer_vars() == 0;
  const size_t cols = n + (dummy ? 1 : 0);
  HM_ASSERT(cols < static_cast<size_t>(INT32_MAX) && rows < static_cast<size_t>(INT32_MAX),
            "CBC takes < 2^31 rows and columns");

  // Counting sort of the terms by variable. Rows are visited in order, so each column's row
  // indices come out increasing, as CBC expects.
  std::vector<CoinBigIndex> start(cols + 1, 0);
  for (Var v : model.row_vars()) ++start[v + 1];
  for (size_t j = 0; j < cols; ++j) start[j + 1] += start[j];
  std::vector<int> index(nnz);
  std::vector<double> value(nnz);
  std::vector<CoinBigIndex> next(start.begin(), start.end() - 1);
  const auto& row_start = model.row_starts();
  const auto& row_var = model.row_vars();
  const auto& row_coef = model.row_coefs();
  for (size_t i = 0; i < rows; ++i) {
    for (size_t k = row_start[i]; k < row_start[i + 1]; ++k) {
      const CoinBigIndex p = next[row_var[k]]++;
      index[p] = static_cast<int>(i);
      value[p] = row_coef[k];
    }
  }

  const size_t extra = cols - n;  // the dummy: bounds [0, 0], objective 0
  const std::vector<double> col_lb = to_coin(model.col_lower(), extra, 0);
  const std::vector<double> col_ub = to_coin(model.col_upper(), extra, 0);
  std::vector<double> obj = to_coin(model.objective(), extra, 0);
  const double scale = purpose == Purpose::Solve ? objective_scale(model) : 1;
  for (double& c : obj) c *= scale;
  const std::vector<double> row_lb = to_coin(model.row_lower(), 0, 0);
  const std::vector<double> row_ub = to_coin(model.row_upper(), 0, 0);

  CbcProblem problem;
  problem.model.reset(Cbc_newModel());
  if (!problem.model) throw SolverFailure("CBC could not create a model (Cbc_newModel returned null)");
  problem.has_dummy = dummy;
  problem.objective_scale = scale;
  Cbc_Model* m = problem.model.get();
  Cbc_loadProblem(m, static_cast<int>(cols), static_cast<int>(rows), start.data(), index.data(),
                  value.data(), col_lb.data(), col_ub.data(), obj.data(), row_lb.data(), row_ub.data());
  const auto& types = model.types();
  for (size_t j = 0; j < n; ++j) {
    if (types[j] != VarType::Continuous) Cbc_setInteger(m, static_cast<int>(j));
  }
  if (dummy) Cbc_setInteger(m, static_cast<int>(n));
  Cbc_setObjSense(m, model.minimize() ? 1 : -1);

  if (purpose == Purpose::WriteLp) {
    for (size_t j = 0; j < n; ++j) {
      Cbc_setColName(m, static_cast<int>(j), lp_name(model.var_name(static_cast<Var>(j)), 'x', j).c_str());
    }
    for (size_t i = 0; i < rows; ++i) {
      Cbc_setRowName(m, static_cast<int>(i), lp_name(model.row_name(i), 'r', i).c_str());
    }
  }
  return problem;
}

}  // namespace hiremate::milp::detail
