#include "hiremate/schedule/schedule_json.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "hiremate/common/error.h"
#include "hiremate/graph/io/json_reader.h"

namespace hiremate {

static constexpr int kVersion = 1;

// Json is nlohmann::json for schedule_to_json, ordered_json for the file ("op" first reads better).
template <class Json>
static Json op_to_json(const Graph& g, const Op& op) {
  switch (op.kind) {
    case Op::Kind::Compute:
      return {{"op", "compute"}, {"node", g.compute.at(op.node).name}, {"keep_phantoms", op.keep_phantoms}};
    case Op::Kind::Delete: return {{"op", "delete"}, {"data", g.data.at(op.node).name}};
    case Op::Kind::Loss: return {{"op", "loss"}};
  }
  return {};
}

nlohmann::json schedule_to_json(const Graph& g, const Schedule& s) {
  nlohmann::json ops = nlohmann::json::array();
  for (const Op& op : s.ops) ops.push_back(op_to_json<nlohmann::json>(g, op));
  return {{"format", "hiremate-schedule"}, {"version", kVersion}, {"ops", std::move(ops)}};
}

std::string schedule_to_string(const Graph& g, const Schedule& s) {
  std::string out = fmt::format("{{\n  \"format\": \"hiremate-schedule\",\n  \"version\": {},\n  \"ops\": [", kVersion);
  for (size_t i = 0; i < s.ops.size(); ++i)
    out += (i ? ",\n    " : "\n    ") +
           op_to_json<nlohmann::ordered_json>(g, s.ops[i]).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out += s.ops.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

void save_schedule(const Graph& g, const Schedule& s, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw BadInput(fmt::format("cannot write '{}': {}; check the folder exists and is writable", path,
                                       std::strerror(errno)));
  out << schedule_to_string(g, s);
  out.close();
  if (!out) throw BadInput(fmt::format("cannot write '{}': write error (disk full?)", path));
}

static Op parse_op(const Graph& g, const io::JsonAt& at) {
  at.expect_object();
  io::JsonAt kind = at["op"];
  std::string k = kind.string();
  if (k == "compute") {
    at.expect_keys({"op", "node", "keep_phantoms"});
    io::JsonAt node = at["node"];
    auto c = g.find_compute(node.string());
    if (!c) node.fail(fmt::format("unknown compute node '{}'; is this schedule for another graph?", node.string()));
    bool keep = true;
    if (auto kp = at.get("keep_phantoms")) keep = kp->boolean();
    return Op::compute(*c, keep);
  }
  if (k == "delete") {
    at.expect_keys({"op", "data"});
    io::JsonAt data = at["data"];
    auto d = g.find_data(data.string());
    if (!d) data.fail(fmt::format("unknown data node '{}'; is this schedule for another graph?", data.string()));
    return Op::del(*d);
  }
  if (k == "loss") {
    at.expect_keys({"op"});
    return Op::loss_marker(g.loss);
  }
  kind.fail(fmt::format("unknown op '{}'; use compute, delete or loss", k));
}

Schedule parse_schedule(const Graph& g, const std::string& text, const std::string& origin) {
  io::json j = io::parse_json_text(text, origin);
  io::JsonAt root(j, origin);
  root.expect_keys({"format", "version", "ops"});
  io::JsonAt format = root["format"];
  if (format.string() != "hiremate-schedule")
    format.fail(fmt::format("format '{}' is not \"hiremate-schedule\"", format.string()));
  io::JsonAt version = root["version"];
  if (!version.value().is_number_integer() || version.value().get<int64_t>() != kVersion)
    version.fail(fmt::format("unknown version {}; this hiremate reads version {}", version.value().dump(), kVersion));
  Schedule s;
  for (const io::JsonAt& op : root["ops"].elements()) s.ops.push_back(parse_op(g, op));
  return s;
}

Schedule load_schedule(const Graph& g, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput(fmt::format("cannot read '{}': {}; check the path", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_schedule(g, text.str(), path);
}

}  // namespace hiremate
