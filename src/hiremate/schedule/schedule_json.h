// The schedule file format (docs/graph-format.md, "Schedules"):
//   {"format": "hiremate-schedule", "version": 1, "ops": [
//     {"op": "compute", "node": "fc1", "keep_phantoms": true},
//     {"op": "delete", "data": "fc1"},
//     {"op": "loss"}]}
// Ops name nodes of a graph, so reading needs the Graph the schedule was made for.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "hiremate/graph/graph.h"
#include "hiremate/schedule/schedule.h"

namespace hiremate {

// Every compute op carries keep_phantoms explicitly; loss ops carry nothing.
nlohmann::json schedule_to_json(const Graph& g, const Schedule& s);
// The JSON text, one op per line.
std::string schedule_to_string(const Graph& g, const Schedule& s);
void save_schedule(const Graph& g, const Schedule& s, const std::string& path);

// Parses a schedule for `g`; keep_phantoms defaults to true; a loss op refers to g.loss (kNone in a
// graph without one). Throws BadInput with `origin` and the JSON pointer (/ops/7/node) on syntax
// errors, unknown node names, unknown op kinds, unknown fields, wrong types or an unknown version.
// It does not check that the schedule is valid for the graph: simulate() does.
Schedule parse_schedule(const Graph& g, const std::string& text, const std::string& origin);
Schedule load_schedule(const Graph& g, const std::string& path);

}  // namespace hiremate
