// A mixed-integer linear program as plain data: variables with bounds, types and objective
// coefficients, rows `lb <= sum(coef * var) <= ub`, a direction and an optional MIP start.
//
// This is the only MILP type the rest of hiremate sees; solve.h turns it into a CBC model. Nothing
// here includes CBC. Building is linear in the number of nonzeros (rows are appended as given and
// converted to CBC's column-wise layout once, at solve time), so ~1e6-nonzero models are cheap.
//
// Misuse (a Var that was not returned by add_var, NaN or infinite coefficients, lb > ub, binary
// bounds outside [0, 1]) is a bug in the caller and fails HM_ASSERT.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace hiremate::milp {

using Var = int32_t;  // 0, 1, 2, ... in the order add_var returned them

constexpr double kInf = std::numeric_limits<double>::infinity();  // an absent bound

enum class VarType { Binary, Integer, Continuous };

struct Term {
  Var var;
  double coef;
};

class Model {
 public:
  // Adds a variable with lb <= x <= ub (use -kInf / kInf for none) and objective coefficient
  // `obj`. Binary means integer within [0, 1]; its bounds must lie in [0, 1] (lb = ub fixes it).
  // `name` is only used by write_lp (unnamed variables are written as x<id>).
  Var add_var(VarType type, double lb, double ub, double obj = 0, std::string name = "");

  // Adds the row lb <= sum(terms) <= ub; lb = ub makes an equality, -kInf / kInf leave a side
  // open. A variable repeated in `terms` has its coefficients summed; zero coefficients are
  // dropped. `name` is only used by write_lp (unnamed rows are written as r<index>).
  void add_row(const std::vector<Term>& terms, double lb, double ub, std::string name = "");

  void set_obj(Var v, double c);
  void set_bounds(Var v, double lb, double ub);  // e.g. lb = ub to fix a variable
  void set_minimize(bool minimize);               // the default is to minimize
  // Makes every variable continuous, keeping its bounds: the LP relaxation (for bounds and rounding).
  void relax();

  // A MIP start: values for some or all variables, given to CBC as a first incumbent. CBC fixes
  // the integer variables given and computes the continuous ones; by its documentation only the
  // nonzero integer variables need be given. It silently ignores a start that turns out
  // infeasible, and a model without integer variables ignores the start. Replaces any earlier
  // start; an empty vector clears it. Values are not checked here (max_violation can).
  void set_start(std::vector<std::pair<Var, double>> start);

  size_t num_vars() const { return type_.size(); }
  size_t num_rows() const { return row_lb_.size(); }
  size_t num_nonzeros() const { return row_var_.size(); }  // after merging repeats, without zeros
  size_t num_integer_vars() const { return num_integer_; }  // Binary and Integer

  // The largest violation by x (one value per variable) of a variable bound, a row, or the
  // integrality of an integer variable: 0 when x is exactly feasible. For tests and sanity checks.
  double max_violation(const std::vector<double>& x) const;
  // The objective at x (one value per variable): sum of objective()[j] * x[j].
  double objective_value(const std::vector<double>& x) const;

  // Read access, for the CBC translation and for checks. Rows are stored row-wise (CSR): the terms
  // of row i are row_vars()[row_starts()[i] .. row_starts()[i + 1]) with row_coefs() alongside.
  bool minimize() const { return minimize_; }
  VarType type(Var v) const;
  double lower(Var v) const;
  double upper(Var v) const;
  double obj(Var v) const;
  const std::string& var_name(Var v) const;   // "" if none was given
  const std::string& row_name(size_t row) const;
  const std::vector<VarType>& types() const { return type_; }
  const std::vector<double>& col_lower() const { return lb_; }
  const std::vector<double>& col_upper() const { return ub_; }
  const std::vector<double>& objective() const { return obj_; }
  const std::vector<size_t>& row_starts() const { return row_start_; }
  const std::vector<Var>& row_vars() const { return row_var_; }
  const std::vector<double>& row_coefs() const { return row_coef_; }
  const std::vector<double>& row_lower() const { return row_lb_; }
  const std::vector<double>& row_upper() const { return row_ub_; }
  const std::vector<std::pair<Var, double>>& start() const { return start_; }

 private:
  void check_var(Var v) const;

  bool minimize_ = true;
  size_t num_integer_ = 0;
  std::vector<VarType> type_;
  std::vector<double> lb_, ub_, obj_;
  std::vector<std::string> var_names_;  // grows only once a name is given (most models have none)
  std::vector<size_t> row_start_{0};
  std::vector<Var> row_var_;
  std::vector<double> row_coef_;
  std::vector<double> row_lb_, row_ub_;
  std::vector<std::string> row_names_;  // as var_names_
  std::vector<std::pair<Var, double>> start_;
  // Per variable, where its term sits in row_var_ if it is in the row being added (a position
  // >= the row's start), so add_row merges repeats in time linear in the row's length.
  std::vector<size_t> last_pos_;
};

}  // namespace hiremate::milp
