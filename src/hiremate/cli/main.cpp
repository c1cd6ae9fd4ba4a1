// The `hiremate` command: maps errors to exit codes (0 ok, 2 bad input, 3 proven infeasible, 4 no plan
// found, 1 internal) and never prints a stack trace for a user error. With --json anywhere on the
// command line, an error also prints {"error": ..., "exit_code": ...} on stdout, so that scripts
// always get JSON.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>

#include "hiremate/cli/commands.h"
#include "hiremate/common/error.h"
#include "hiremate/torch/profile.h"

namespace {

bool g_json = false;  // --json was given: errors are JSON on stdout too

int fail(const std::string& message, int code) {
  std::cerr << "hiremate: error: " << message << "\n";
  if (g_json) {
    nlohmann::ordered_json out;
    out["error"] = message;
    out["exit_code"] = code;
    std::cout << out.dump(2) << "\n";
  }
  return code;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// "; did you mean 'solve'?" when one name is close (a typo), else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& names) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& n : names) {
    size_t d = edit_distance(word, n);
    if (d < best_distance) {
      best_distance = d;
      best = n;
    }
  }
  return best.empty() ? "" : fmt::format("; did you mean '{}'?", best);
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const auto* opt : cmd.get_options()) {
    for (const auto& n : opt->get_lnames()) names.push_back("--" + n);
    for (const auto& n : opt->get_snames()) names.push_back("-" + n);
  }
  return names;
}

// A parse error in words: an unknown option or argument first (CLI11 would report a missing
// required option it hid, "--budget is required" for "--budgt 50%"), then CLI11's own message.
int parse_failure(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* cmd = nullptr;
  for (const auto* sub : app.get_subcommands()) cmd = sub;
  const std::string where = cmd ? "hiremate " + cmd->get_name() : "hiremate";
  std::vector<std::string> extras = cmd ? cmd->remaining() : app.remaining();
  if (extras.empty()) extras = app.remaining();
  for (const auto& x : extras)
    if (x.size() > 1 && x[0] == '-' && !std::isdigit(static_cast<unsigned char>(x[1]))) {
      std::string name = x.substr(0, x.find('='));
      return fail(fmt::format("unknown option '{}' for '{}'{} ('{} --help' lists the options)", name, where,
                              did_you_mean(name, option_names(cmd ? *cmd : app)), where),
                  2);
    }
  if (!extras.empty())
    return fail(fmt::format("unexpected argument '{}' for '{}' ('{} --help' says what it takes)", extras.front(),
                            where, where),
                2);
  if (!cmd)
    return fail(fmt::format("a command is required: {} ('hiremate help COMMAND' describes one)",
                            fmt::join(command_names(app), ", ")),
                2);
  return fail(fmt::format("{} ('{} --help' lists the options)", e.what(), where), 2);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hiremate: plans re-materialization (which activations to keep, free and recompute) so that "
               "a training step fits a memory budget at the smallest cost in time.",
               "hiremate"};
  app.set_version_flag("--version", "hiremate 0.1.0");
  app.require_subcommand(1);
  // Where an installation keeps the torch plugin (a path, like LD_LIBRARY_PATH, not a tuning knob).
  if (const char* plugin = std::getenv("HIREMATE_TORCH_PLUGIN")) hiremate::torchbridge::set_plugin_path(plugin);
  app.footer("'hiremate help COMMAND' or 'hiremate COMMAND --help' describes a command. Exit codes: 0 ok, 2 bad "
             "input, 3 infeasible budget (proven), 4 no plan found (not a proof), 1 internal error; with --json, errors are JSON on stdout too.");
  std::vector<hiremate::cli::Runner> runners{hiremate::cli::add_info(app), hiremate::cli::add_simulate(app),
                                             hiremate::cli::add_solve(app), hiremate::cli::add_partition(app),
                                             hiremate::cli::add_generate(app), hiremate::cli::add_profile(app),
                                             hiremate::cli::add_train(app)};
  for (int i = 1; i < argc; ++i) g_json |= std::strcmp(argv[i], "--json") == 0;
  const auto commands = command_names(app);
  if (argc >= 2 && argv[1][0] != '-') {
    const std::string first = argv[1];
    if (first == "help") {  // `hiremate help [COMMAND]`
      if (argc == 2) {
        std::cout << app.help();
        return 0;
      }
      if (std::find(commands.begin(), commands.end(), argv[2]) == commands.end())
        return fail(fmt::format("unknown command '{}'{}; the commands are {}", argv[2],
                                did_you_mean(argv[2], commands), fmt::join(commands, ", ")),
                    2);
      std::cout << app.get_subcommand(argv[2])->help();
      return 0;
    }
    if (std::find(commands.begin(), commands.end(), first) == commands.end())
      return fail(fmt::format("unknown command '{}'{}{}", first, did_you_mean(first, commands),
                              did_you_mean(first, commands).empty()
                                  ? fmt::format("; the commands are {} ('hiremate --help')", fmt::join(commands, ", "))
                                  : ""),
                  2);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return parse_failure(app, e);
  }
  try {
    for (auto& run : runners) {
      int rc = run();
      if (rc >= 0) return rc;
    }
    return 1;
  } catch (const hiremate::Error& e) {
    return fail(e.what(), e.exit_code());
  } catch (const std::bad_alloc&) {
    return fail("out of memory; the graph may be too large for this machine", 1);
  } catch (const std::exception& e) {
    std::cerr << "hiremate: internal error (a bug in hiremate, please report it): " << e.what() << "\n";
    if (g_json) std::cout << nlohmann::ordered_json{{"error", std::string("internal error: ") + e.what()},
                                                    {"exit_code", 1}}.dump(2) << "\n";
    return 1;
  }
}
