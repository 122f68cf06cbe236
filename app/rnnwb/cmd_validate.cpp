// rnnwb validate FILE...: every problem of every file, one line each, "FILE: error: MESSAGE".
#include <iostream>

#include "cli_support.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::cli {

void registerValidate(CLI::App& app, int& exitCode) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = addCommand(
      app, "validate", "Check graph files against the format; exit 1 if any has a problem",
      exitCode, [files, quiet] {
        int status = 0;
        for (const std::string& file : *files) {
          const GraphLoadResult result = loadGraphFile(file);
          for (const Diagnostic& d : result.problems)
            std::cerr << problemPlace(file, d) << ": error: " << d.message << '\n';
          if (!result.ok()) {
            status = 1;
          } else if (!*quiet) {
            std::cout << file << ": valid (" << result.graph->layers.size() << " layers, "
                      << result.graph->connections.size() << " connections)\n";
          }
        }
        return status;
      });
  cmd->add_option("FILE", *files, "Graph files (*.rnn.json)")->required();
  cmd->add_flag("-q,--quiet", *quiet, "Print nothing for valid files");
}

}  // namespace rnnwb::cli
