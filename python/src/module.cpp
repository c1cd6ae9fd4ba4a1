// hiremate._hiremate: the C++ session (capture, profile, plan, executor; src/hiremate/torch/session.h)
// for the Python package. Built by CMake against Debian's torch, for /usr/bin/python3; the package
// imports torch first, so that libtorch_python and torch's type casters are loaded. Calls that run
// torch release the GIL (the autograd engine refuses to run under it).
//
// hiremate's errors become the package's exceptions (hiremate/errors.py): BadInput ->
// BadInputError, Infeasible -> InfeasibleBudgetError, NoPlanFound -> NoPlanFoundError, any other
// hiremate::Error -> HiremateError.
#include <torch/extension.h>

#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "hiremate/solvers/min_budget.h"
#include "hiremate/common/error.h"
#include "hiremate/graph/io/graph_io.h"
#include "hiremate/schedule/schedule_json.h"
#include "hiremate/schedule/simulate.h"
#include "hiremate/torch/memory_counter.h"
#include "hiremate/torch/session.h"

namespace py = pybind11;
using hiremate::torchbridge::Session;

namespace {

std::vector<c10::IValue> to_ivalues(const std::vector<at::Tensor>& ts) {
  return {ts.begin(), ts.end()};
}

py::dict cluster_dict(const hiremate::ClusterReport& c) {
  py::dict d;
  d["cluster"] = c.cluster;
  d["units"] = c.units;
  d["level"] = c.level;
  d["partitionings"] = c.partitionings;
  d["solves"] = c.solves;
  d["optimal"] = c.optimal;
  d["timed_out"] = c.timed_out;
  d["infeasible"] = c.infeasible;
  d["max_vars"] = c.max_vars;
  d["max_rows"] = c.max_rows;
  d["options"] = c.options;
  d["seconds"] = c.seconds;
  return d;
}

py::dict summary_dict(const Session& s) {
  const auto& p = s.summary();
  py::dict d;
  d["solver"] = p.solver;
  d["status"] = p.status;
  d["note"] = p.note;
  d["budget"] = p.budget;
  d["keep_all_peak"] = p.keep_all;
  d["simulated_peak"] = p.simulated_peak;
  d["bytes_at_loss"] = p.bytes_at_loss;
  d["simulated_time"] = p.simulated_time;
  d["keep_all_time"] = p.keep_all_time;
  d["solve_seconds"] = p.solve_seconds;
  d["bound"] = p.bound ? py::object(py::float_(*p.bound)) : py::object(py::none());
  d["profile_seconds"] = p.profile_seconds;
  d["computes"] = p.computes;
  d["recomputations"] = p.recomputations;
  d["loaded"] = p.loaded;
  d["input_bytes"] = s.graph().source_bytes();
  d["compute_nodes"] = s.graph().compute.size();
  if (p.has_levels) {
    py::dict lv;
    py::list solved;
    for (const auto& c : p.levels.solved) solved.append(cluster_dict(c));
    lv["solved"] = solved;
    lv["top"] = cluster_dict(p.levels.top);
    lv["top_solves"] = p.levels.top_solves;
    lv["hilp_solves"] = p.levels.hilp_solves;
    lv["clusters"] = p.levels.clusters;
    lv["rejected"] = p.levels.rejected;
    lv["winner"] = p.levels.winner;
    lv["partition_seconds"] = p.levels.partition_seconds;
    lv["seconds"] = p.levels.seconds;
    d["levels"] = lv;
  } else {
    d["levels"] = py::none();
  }
  return d;
}

py::dict profile_dict(const Session& s) {
  const auto& pm = s.profiled();
  py::dict d;
  d["torchscript_nodes"] = pm.torchscript_nodes;
  d["signatures"] = pm.signatures;
  d["parameter_bytes"] = pm.parameter_bytes;
  d["static_bytes"] = pm.static_bytes;
  d["seconds"] = pm.seconds;
  py::list nodes;
  for (const auto& n : pm.info) {
    py::dict e;
    e["node"] = n.node;
    e["ops"] = n.ops;
    e["shapes"] = n.shapes;
    nodes.append(e);
  }
  d["nodes"] = nodes;
  return d;
}

void raise_as(const char* name, const std::exception& e) {
  py::object cls = py::module_::import("hiremate.errors").attr(name);
  PyErr_SetString(cls.ptr(), e.what());
}

}  // namespace

PYBIND11_MODULE(_hiremate, m) {
  m.doc() = "hiremate's C++ core for the Python package (use the `hiremate` package, not this module)";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const hiremate::Infeasible& e) {
      raise_as("InfeasibleBudgetError", e);
    } catch (const hiremate::NoPlanFound& e) {
      raise_as("NoPlanFoundError", e);
    } catch (const hiremate::BadInput& e) {
      raise_as("BadInputError", e);
    } catch (const hiremate::Error& e) {
      raise_as("HiremateError", e);
    }
  });

  py::class_<Session>(m, "Session")
      .def(py::init([](const py::object& traced, const std::vector<at::Tensor>& inputs, const std::string& name) {
             auto module = py::cast<torch::jit::Module>(traced.attr("_c"));
             py::gil_scoped_release no_gil;  // the autograd engine refuses to run under the GIL
             return std::make_unique<Session>(module, to_ivalues(inputs), name);
           }),
           py::arg("traced"), py::arg("inputs"), py::arg("name"),
           "captures a torch.jit.trace'd module on its sample inputs")
      .def("baseline",
           [](const Session& s) {
             auto b = hiremate::baseline(s.graph());
             return py::make_tuple(b.peak - s.graph().source_bytes(), b.time, s.graph().source_bytes());
           })
      .def("min_budget",
           [](const Session& s) {
             const auto& g = s.graph();
             const auto m = hiremate::min_budget_details(g);
             py::dict d;
             d["bytes"] = m.activations();
             d["percent"] = hiremate::min_budget_percent(g, m);
             d["node"] = g.compute[m.node].name;
             d["kind"] = std::string(hiremate::to_string(g.compute[m.node].kind));
             d["inputs"] = m.inputs;
             d["outputs"] = m.outputs;
             d["overhead"] = m.overhead;
             d["input_bytes"] = m.sources;
             return d;
           })
      .def(
          "profile",
          [](Session& s, int runs, int warmup) {
            hiremate::torchbridge::ProfileOptions opt;
            opt.runs = runs;
            opt.warmup = warmup;
            opt.flush_denormal = false;  // a process-wide mode: not ours to change in a user's process
            s.profile(opt);
          },
          py::arg("runs") = 5, py::arg("warmup") = 1, py::call_guard<py::gil_scoped_release>())
      .def("plan", &Session::plan, py::arg("budget"), py::arg("solver"), py::arg("time_limit"),
           py::arg("verbose") = 0, py::call_guard<py::gil_scoped_release>())
      .def("progress",
           [](const Session& s) {
             // The planner's phase, its best plan's time so far, its bound and the keep-all time
             // (None where unknown): read by the status line while plan() runs on another thread.
             const auto p = s.progress()->snapshot();
             auto opt = [](const std::optional<double>& v) { return v ? py::object(py::float_(*v)) : py::none(); };
             return py::make_tuple(p.phase, opt(p.best), opt(p.bound), opt(p.baseline));
           })
      .def("load", &Session::load, py::arg("text"), py::arg("origin"), py::call_guard<py::gil_scoped_release>())
      .def("plan_text", &Session::plan_text)
      .def("graph_json", [](const Session& s) { return hiremate::graph_to_json(s.graph()); })
      .def("schedule_json", [](const Session& s) { return hiremate::schedule_to_string(s.graph(), s.schedule()); })
      .def("timeline",
           [](const Session& s) {
             // Per op of the schedule, as the simulator counts them (inputs included): bytes resident
             // while it runs and after it, and whether it is a recomputation.
             const hiremate::Schedule& sched = s.schedule();
             hiremate::SimResult r = hiremate::simulate(s.graph(), sched);
             std::vector<std::tuple<int64_t, int64_t, bool>> out;
             std::set<hiremate::NodeId> computed;
             for (size_t i = 0; i < r.timeline.size(); ++i) {
               const auto& op = sched.ops[i];
               const bool again = op.kind == hiremate::Op::Kind::Compute && !computed.insert(op.node).second;
               out.emplace_back(r.timeline[i].during, r.timeline[i].after, again);
             }
             return out;
           })
      .def("summary", &summary_dict)
      .def("profile_info", &profile_dict)
      .def_property_readonly("fingerprint", &Session::fingerprint)
      .def("parameters", &Session::parameters)
      .def("forward_half",
           [](Session& s, const std::vector<at::Tensor>& inputs) { return s.forward_half(to_ivalues(inputs)); },
           py::call_guard<py::gil_scoped_release>())
      .def("backward_half",
           [](Session& s, const at::Tensor& grad, const std::vector<py::object>& params) {
             std::vector<at::Tensor> ps;
             for (const auto& p : params) ps.push_back(p.is_none() ? at::Tensor() : py::cast<at::Tensor>(p));
             py::gil_scoped_release no_gil;  // the parameters' hooks take it back when they run
             s.backward_half(grad, ps);
           })
      .def_property_readonly("in_step", &Session::in_step);

  // The counting CPU allocator (installed on first use): bytes of tensor memory alive and their peak.
  m.def("memory_current", [] { return hiremate::torchbridge::MemoryCounter().current(); });
  m.def("memory_peak", [] { return hiremate::torchbridge::MemoryCounter().peak(); });
  m.def("memory_reset_peak", [] { hiremate::torchbridge::MemoryCounter().reset_peak(); });
}
