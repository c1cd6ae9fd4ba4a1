// solve() and write_lp(): options to CBC parameters, one Cbc_solve, CBC's answers to a Status.
#include <coin/CoinError.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>

#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hiremate/common/error.h"
#include "hiremate/milp/cbc_model.h"
#include "hiremate/milp/checkpoint_watch.h"
#include "hiremate/milp/solve.h"
#include "hiremate/milp/start_refutes.h"
#include "hiremate/milp/stdout_to_stderr.h"

namespace hiremate::milp {

using detail::load_into_cbc;
using detail::Purpose;

const char* to_string(Status s) {
  switch (s) {
    case Status::Optimal: return "optimal";
    case Status::Feasible: return "feasible";
    case Status::Infeasible: return "infeasible";
    case Status::TimeLimitNoSolution: return "time limit, no solution";
    case Status::Unbounded: return "unbounded";
    case Status::Error: return "error";
  }
  return "?";
}

// `stdout_to_stderr`: false where fd 1 already goes where CBC's log should (a CheckpointWatch).
Result solve_here(const Model& model, const Options& options, bool preprocess, bool stdout_to_stderr = true);

namespace {
std::atomic<int64_t> solves_counter{0};  // solve()'s calls in this process (solves_started)
}  // namespace

int64_t solves_started() { return solves_counter.load(std::memory_order_relaxed); }

namespace {

// CBC's parameters go through its command-line parser ("-name value"), like the cbc program's.
void set_parameters(Cbc_Model* m, const Options& o, double objective_scale) {
  Cbc_setLogLevel(m, o.log ? 1 : 0);
  Cbc_setParameter(m, "log", o.log ? "1" : "0");
  if (o.time_limit < kInf) {
    Cbc_setParameter(m, "seconds", fmt::format("{}", o.time_limit).c_str());
    Cbc_setParameter(m, "timeMode", "elapsed");  // the default counts CPU seconds of all threads
  }
  // "threads 1" would still run CBC's threaded code with one worker, so 1 leaves it unset (serial).
  // CBC encodes modes in the hundreds (100 + n: repeatable), so n stops at 99.
  if (o.node_limit > 0) Cbc_setParameter(m, "maxNodes", std::to_string(o.node_limit).c_str());
  const int n = std::min(o.threads, 99);
  if (n > 1) Cbc_setParameter(m, "threads", std::to_string(o.deterministic ? 100 + n : n).c_str());
  Cbc_setParameter(m, "ratioGap", fmt::format("{}", o.relative_gap).c_str());
  Cbc_setParameter(m, "allowableGap", fmt::format("{}", o.absolute_gap * objective_scale).c_str());
  for (const auto& [name, value] : o.cbc_parameters) Cbc_setParameter(m, name.c_str(), value.c_str());
}

void set_start(Cbc_Model* m, const Model& model) {
  std::vector<int> idx;
  std::vector<double> val;
  idx.reserve(model.start().size());
  val.reserve(model.start().size());
  for (const auto& [v, x] : model.start()) {
    idx.push_back(v);
    val.push_back(x);
  }
  // By index: CBC looks the columns' names up itself (its defaults, as solve() sets none).
  Cbc_setMIPStartI(m, static_cast<int>(idx.size()), idx.data(), val.data());
}

void run(Cbc_Model* m) {
  // Cbc_solve catches CoinError itself (and prints it); anything else would cross the C API.
  try {
    Cbc_solve(m);
  } catch (const CoinError& e) {
    throw SolverFailure(fmt::format("CBC failed: {}::{}: {}", e.className(), e.methodName(), e.message()));
  } catch (const std::exception& e) {
    throw SolverFailure(fmt::format("CBC failed: {}", e.what()));
  } catch (...) {
    throw SolverFailure("CBC failed with an unknown exception");
  }
}

// CBC 2.10.8, measured: a finished search has Cbc_status 0 and Cbc_isProvenOptimal (also when it
// stopped on the gap, secondary status 2), Cbc_isProvenInfeasible, or Cbc_isContinuousUnbounded
// (secondary status 7); a time limit gives status 1 and Cbc_isSecondsLimitReached. Whether a
// solution exists is Cbc_bestSolution != nullptr: without one, Cbc_getObjValue reads 1e50 or
// DBL_MAX rather than anything recognisable.
// The fraction of the time limit past which CBC's "infeasible" is taken for a cut search (see
// solve_here): a proof found that late is reported as the limit; no true verdict turns false.
constexpr double kInfeasibleAtTheLimit = 0.9;

Status classify(Cbc_Model* m) {
  const bool solution = Cbc_bestSolution(m) != nullptr;
  if (Cbc_isContinuousUnbounded(m)) return Status::Unbounded;
  if (solution && Cbc_status(m) == 0 && Cbc_isProvenOptimal(m)) return Status::Optimal;
  // The time limit before the infeasibility flag: a search cut short (in preprocessing, seen in
  // the benchmark at 4 s on transformer-3 and unet-4-4 at 70 %) can leave the flag set although
  // other solvers' plans fit. "Infeasible" must be a proof.
  // A node limit is a limit as well (CBC's secondary status 3), never a verdict.
  if (Cbc_isSecondsLimitReached(m) || Cbc_isNodeLimitReached(m))
    return solution ? Status::Feasible : Status::TimeLimitNoSolution;
  if (Cbc_isProvenInfeasible(m)) return Status::Infeasible;
  return Status::Error;  // abandoned (numerical trouble) or a state CBC does not document
}

}  // namespace

Result solve_here(const Model& model, const Options& options, bool preprocess, bool stdout_to_stderr) {
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<detail::StdoutToStderr> quiet;
  if (stdout_to_stderr) quiet.emplace();

  detail::CbcProblem problem = load_into_cbc(model, Purpose::Solve);
  Cbc_Model* m = problem.model.get();
  set_parameters(m, options, problem.objective_scale);
  const double unscale = 1 / problem.objective_scale;
  if (!preprocess) Cbc_setParameter(m, "preprocess", "off");
  if (!model.start().empty() && !problem.has_dummy) set_start(m, model);  // an LP has no use for one
  run(m);

  const double sense = model.minimize() ? 1 : -1;  // objective * sense is minimized
  Result r;
  r.status = classify(m);
  r.nodes = Cbc_getNodeCount(m);
  // CBC 2.10.8 can end a search cut by its time limit as finished with an infeasible relaxation
  // (status 0, secondary status 1, no time-limit flag): seen on a 101-node U-Net at 70 % with a
  // 1.8 s limit, whose root LP CBC had itself solved (a plan exists, found with 30 s). So a verdict
  // "infeasible" that comes at the limit is no proof: it is reported as the limit, without a bound.
  bool cut_verdict = false;
  if (r.status == Status::Infeasible && options.time_limit < kInf &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >=
          kInfeasibleAtTheLimit * options.time_limit) {
    r.status = Status::TimeLimitNoSolution;
    cut_verdict = true;
  }
  // A start that satisfies every row refutes "infeasible" (start_refutes.h): then the start is the
  // result, as a time-limited search's, with no bound.
  std::vector<double> start_x;
  if (r.status == Status::Infeasible) {
    start_x = start_refuting_infeasible(model);
    if (!start_x.empty()) r.status = Status::Feasible;
  }
  if (has_solution(r.status)) {
    const double* x = start_x.empty() ? Cbc_bestSolution(m) : start_x.data();
    r.solution.assign(x, x + model.num_vars());
    r.objective = 0;
    for (size_t j = 0; j < r.solution.size(); ++j) {
      if (model.types()[j] != VarType::Continuous) r.solution[j] = std::round(r.solution[j]);
      r.objective += model.objective()[j] * r.solution[j];
    }
    // The bound can sit a rounding error past the objective; keep the documented order.
    r.bound = start_x.empty() ? sense * std::min(sense * Cbc_getBestPossibleObjValue(m) * unscale, sense * r.objective)
                              : -sense * kInf;
    r.gap = sense * (r.objective - r.bound) / std::max(std::abs(r.objective), 1e-9);
  } else if (r.status == Status::TimeLimitNoSolution) {
    r.objective = sense * kInf;
    const double bound = cut_verdict ? 1e50 : Cbc_getBestPossibleObjValue(m);
    r.bound = std::abs(bound) < 1e49 ? bound * unscale : -sense * kInf;  // CBC's "none" is about 1e50
  } else if (r.status == Status::Infeasible) {
    r.objective = r.bound = sense * kInf;
  } else if (r.status == Status::Unbounded) {
    r.objective = r.bound = -sense * kInf;
  } else {
    r.objective = sense * kInf;
    r.bound = -sense * kInf;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// CBC 2.10.8 can crash (a segmentation fault in CglPreProcess::postProcess was seen when the time
// limit ends its preprocessing), and a crash must not take hiremate down. So the search runs in a
// forked child that sends the Result back through a pipe; if the child dies, the search is run once
// more without preprocessing in the time left, and then reported as Status::Error.
namespace {

void write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w <= 0) _exit(3);
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// Reads n bytes, waiting at most until `deadline` for each (false on end of file or timeout).
bool read_all(int fd, void* data, size_t n,
              std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max()) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    if (deadline != std::chrono::steady_clock::time_point::max()) {
      // Microseconds, rounded up to the poll's milliseconds: a timeout returns false only once the
      // deadline has passed (truncated to milliseconds, the caller saw a deadline not yet reached,
      // did not kill the child, and waited for it: 45 s past a 0.15 s deadline).
      auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd pfd{fd, POLLIN, 0};
      if (poll(&pfd, 1, static_cast<int>(std::min<int64_t>((left.count() + 999) / 1000, 1 << 30))) <= 0) continue;
    }
    ssize_t r = ::read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// The Result of a search stopped at its checkpoint (Options::checkpoint_seconds) that began at `t0`.
Result stopped_at_checkpoint(std::chrono::steady_clock::time_point t0) {
  Result r;
  r.status = Status::TimeLimitNoSolution;
  r.objective = kInf;
  r.bound = -kInf;
  r.stopped_at_checkpoint = true;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// CBC's LP code calls the BLAS that Debian links it with, OpenBLAS's OpenMP build where torch is
// installed. On the tiny LPs of an H-ILP its threads spin-wait more than they work: 47 % of a
// 6 s planner run on a 101-node chain went to libgomp, and the levels took 4.0 s instead of 1.6 s.
// The search has threads of its own (Options::threads), so the child's BLAS runs on one thread.
// Looked up at run time: another BLAS, or none, is left alone.
void serial_blas() {
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);
}

// gcc 12's AddressSanitizer does not lock its allocator around fork(): a child forked while another
// thread of this process allocates (a progress line, a worker starting) can wait forever on a lock
// that no thread of its own will release. CI saw it: a 91-variable MILP that CBC proves infeasible in
// 0.00 s "ran past its 16.4 s limit". In the sanitized build the search therefore runs in this
// process, one at a time (CBC's driver and StdoutToStderr's redirection are process-wide), without
// the hard deadline that the child gives, and without CBC's preprocessing: the crash the child
// guards against is in CglPreProcess::postProcess (CI's ASan run died of it twice in this process).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kForkIsSafe = false;
#else
constexpr bool kForkIsSafe = true;
#endif
std::mutex in_process_search;

// The child's message: a tag (0 result, 1 failure), then the Result's fields or the failure text.
std::optional<Result> solve_in_child(const Model& model, const Options& options, bool preprocess,
                                     std::string& failure) {
  int fds[2];
  if (pipe(fds) != 0) throw SolverFailure("cannot create a pipe for the MILP search");
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw SolverFailure("cannot fork a process for the MILP search");
  if (pid == 0) {
    close(fds[0]);
    serial_blas();
    int tag = 0;
    const int out = fds[1];
    auto send = [out, &tag](const Result& r) {
      write_all(out, &tag, sizeof tag);
      int status = static_cast<int>(r.status);
      int stopped = r.stopped_at_checkpoint ? 1 : 0;
      size_t n = r.solution.size();
      write_all(out, &status, sizeof status);
      write_all(out, &stopped, sizeof stopped);
      for (double v : {r.objective, r.bound, r.gap, r.seconds}) write_all(out, &v, sizeof v);
      write_all(out, &r.nodes, sizeof r.nodes);
      write_all(out, &n, sizeof n);
      write_all(out, r.solution.data(), n * sizeof(double));
    };
    // One answer: the search's, or the checkpoint's, sent by the watch's thread, which then ends the
    // child from within CBC's search.
    std::mutex answer;
    const auto started = std::chrono::steady_clock::now();
    std::optional<detail::CheckpointWatch> watch;
    Options o = options;
    if (options.checkpoint_seconds > 0 && options.checkpoint_seconds < options.time_limit) {
      o.log = true;  // the watch reads the incumbents from CBC's log
      watch.emplace(options.checkpoint_seconds, options.checkpoint_objective * detail::objective_scale(model),
                    options.log, [&send, &answer, started] {
                      answer.lock();  // never unlocked: the child ends here
                      send(stopped_at_checkpoint(started));
                      _exit(0);
                    });
    }
    try {
      Result r = solve_here(model, o, preprocess, !watch);
      std::lock_guard<std::mutex> one_answer(answer);
      send(r);
      std::fflush(nullptr);
      _exit(0);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> one_answer(answer);
      tag = 1;
      std::string what = e.what();
      size_t n = what.size();
      write_all(fds[1], &tag, sizeof tag);
      write_all(fds[1], &n, sizeof n);
      write_all(fds[1], what.data(), n);
    }
    std::fflush(nullptr);
    _exit(0);
  }
  close(fds[1]);
  // CBC checks its limit only between steps and was seen to run 3x past it on a large model, so the
  // parent enforces a hard deadline: the limit plus 10 % plus 2 s, then the child is killed.
  auto deadline = std::chrono::steady_clock::time_point::max();
  if (options.time_limit < kInf)
    deadline = std::chrono::steady_clock::now() +
               std::chrono::milliseconds(static_cast<int64_t>(
                   (options.time_limit + (options.grace_seconds >= 0 ? options.grace_seconds
                                                                     : options.time_limit * 0.1 + 2)) * 1000));
  int tag = -1;
  Result r;
  bool complete = read_all(fds[0], &tag, sizeof tag, deadline);
  if (!complete && deadline != std::chrono::steady_clock::time_point::max() &&
      std::chrono::steady_clock::now() >= deadline) {
    kill(pid, SIGKILL);
    close(fds[0]);
    waitpid(pid, nullptr, 0);
    r.status = Status::TimeLimitNoSolution;
    r.note = fmt::format("CBC ran past its {:.1f} s limit and was stopped; its incumbent is lost", options.time_limit);
    return r;
  }
  if (complete && tag == 0) {
    int status = 0;
    int stopped = 0;
    size_t n = 0;
    complete = read_all(fds[0], &status, sizeof status) && read_all(fds[0], &stopped, sizeof stopped) &&
               read_all(fds[0], &r.objective, sizeof(double)) &&
               read_all(fds[0], &r.bound, sizeof(double)) && read_all(fds[0], &r.gap, sizeof(double)) &&
               read_all(fds[0], &r.seconds, sizeof(double)) && read_all(fds[0], &r.nodes, sizeof r.nodes) &&
               read_all(fds[0], &n, sizeof n);
    r.status = static_cast<Status>(status);
    r.stopped_at_checkpoint = stopped != 0;
    if (complete && n <= model.num_vars()) {
      r.solution.resize(n);
      complete = read_all(fds[0], r.solution.data(), n * sizeof(double));
    }
  } else if (complete && tag == 1) {
    size_t n = 0;
    complete = read_all(fds[0], &n, sizeof n) && n < (1u << 20);
    if (complete) {
      failure.resize(n);
      complete = read_all(fds[0], failure.data(), n);
    }
  }
  close(fds[0]);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  if (!complete || !WIFEXITED(wstatus)) {
    failure = WIFSIGNALED(wstatus) ? fmt::format("CBC crashed (signal {})", WTERMSIG(wstatus))
                                   : std::string("CBC's process ended without an answer");
    return std::nullopt;
  }
  if (tag == 1) throw SolverFailure(failure);
  return r;
}

// In this process (the sanitized build) CBC cannot be left from within its search, so a checkpoint is
// a search of its own, then, where it wins, a second one from scratch for the rest of the limit.
Result solve_in_process(const Model& model, const Options& options) {
  if (!(options.checkpoint_seconds > 0) || options.checkpoint_seconds >= options.time_limit)
    return solve_here(model, options, false);
  const auto t0 = std::chrono::steady_clock::now();
  Options probe = options;
  probe.time_limit = options.checkpoint_seconds;
  Result r = solve_here(model, probe, false);
  if (r.status == Status::Optimal || r.status == Status::Infeasible || r.status == Status::Unbounded) return r;
  if (!(has_solution(r.status) && r.objective < options.checkpoint_objective)) return stopped_at_checkpoint(t0);
  Options rest = options;
  rest.checkpoint_seconds = 0;
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rest.time_limit = std::max(0.1, options.time_limit - spent);
  Result full = solve_here(model, rest, false);
  return has_solution(full.status) && full.objective <= r.objective ? full : r;
}

}  // namespace

Result solve(const Model& model, const Options& options) {
  solves_counter.fetch_add(1, std::memory_order_relaxed);
  HM_ASSERT(options.time_limit > 0, fmt::format("time_limit {} must be > 0", options.time_limit));
  HM_ASSERT(options.threads >= 1, fmt::format("threads {} must be >= 1", options.threads));
  HM_ASSERT(options.relative_gap >= 0 && options.absolute_gap >= 0, "gaps must be >= 0");
  HM_ASSERT(!(options.checkpoint_seconds > 0) || model.minimize(), "a checkpoint needs a minimizing model");
  if constexpr (!kForkIsSafe) {
    std::lock_guard<std::mutex> one_at_a_time(in_process_search);
    return solve_in_process(model, options);
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::string failure;
  if (auto r = solve_in_child(model, options, true, failure)) return *r;
  Options retry = options;
  if (options.time_limit < kInf)
    retry.time_limit = std::max(0.5, options.time_limit -
                                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  std::string second;
  if (auto r = solve_in_child(model, retry, false, second)) {
    r->note = failure + "; solved again without preprocessing";
    r->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return *r;
  }
  Result r;
  r.status = Status::Error;
  r.note = failure + "; " + second + " (again without preprocessing)";
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void write_lp(const Model& model, const std::string& path) {
  const size_t dot = path.find(".lp");
  if (path.size() < 4 || dot != path.size() - 3 || path.size() > 500) {
    throw BadInput(fmt::format("cannot write the MILP to '{}': the name must end in .lp, contain "
                               ".lp nowhere else and be shorter than 500 characters", path));
  }
  // CBC's writer calls exit(1) when it cannot open the file, so make sure it can first. This
  // also empties an old file, so that it cannot pass for a new one.
  if (!std::ofstream(path)) {
    throw BadInput(fmt::format("cannot write the MILP to '{}': the file cannot be created", path));
  }
  detail::StdoutToStderr quiet;
  detail::CbcProblem problem = load_into_cbc(model, Purpose::WriteLp);
  Cbc_writeLp(problem.model.get(), path.c_str());  // writes path minus ".lp", plus ".lp"
  std::ifstream written(path, std::ios::ate);
  if (!written || written.tellg() <= 0) {
    throw SolverFailure(fmt::format("CBC did not write the LP file '{}'", path));
  }
}

}  // namespace hiremate::milp
