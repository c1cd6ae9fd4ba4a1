// The `hiremate` command: maps errors to exit codes (0 ok, 2 bad input, 3 proven infeasible, 4 no plan found, 1 internal)
// and never prints a stack trace for a user error.
#include <fmt/format.h>

#include <iostream>

#include "hiremate/cli/commands.h"
#include "hiremate/common/error.h"

int main(int argc, char** argv) {
  CLI::App app{"hiremate: plans re-materialization (which activations to keep, free and recompute) so that "
               "a training step fits a memory budget at the smallest cost in time."};
  app.set_version_flag("--version", "hiremate 0.1.0");
  app.require_subcommand(1);
  std::vector<hiremate::cli::Runner> runners{hiremate::cli::add_info(app), hiremate::cli::add_simulate(app),
                                             hiremate::cli::add_solve(app), hiremate::cli::add_partition(app),
                                             hiremate::cli::add_generate(app), hiremate::cli::add_profile(app),
                                             hiremate::cli::add_train(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and a hint on stderr
    return 2;
  }
  try {
    for (auto& run : runners) {
      int rc = run();
      if (rc >= 0) return rc;
    }
    return 1;
  } catch (const hiremate::Error& e) {
    std::cerr << "hiremate: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::cerr << "hiremate: error: out of memory; the graph may be too large for this machine\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "hiremate: internal error (a bug in hiremate, please report it): " << e.what() << "\n";
    return 1;
  }
}
