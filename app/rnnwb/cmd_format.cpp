// rnnwb format FILE... [--check]: rewrite graph files in the canonical form the editor saves.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_support.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::cli {

void registerFormat(CLI::App& app, int& exitCode) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto check = std::make_shared<bool>(false);
  CLI::App* cmd = addCommand(
      app, "format",
      "Rewrite valid graph files in canonical form (defaults left out, one layer per line)",
      exitCode, [files, check] {
        int status = 0;
        for (const std::string& file : *files) {
          const GraphLoadResult result = loadGraphFile(file);
          if (!result.ok()) {
            for (const Diagnostic& d : result.problems)
              std::cerr << problemPlace(file, d) << ": error: " << d.message << '\n';
            status = 1;
            continue;
          }
          std::ifstream in(file, std::ios::binary);
          std::ostringstream current;
          current << in.rdbuf();
          const std::string canonical = serializeGraph(*result.graph);
          if (current.str() == canonical) continue;
          if (*check) {
            std::cerr << file << ": error: not in canonical form (run rnnwb format " << file
                      << ")\n";
            status = 1;
          } else {
            writeFileAtomically(file, canonical);
            std::cout << file << ": reformatted\n";
          }
        }
        return status;
      });
  cmd->add_option("FILE", *files, "Graph files (*.rnn.json)")->required();
  cmd->add_flag("--check", *check, "Change nothing; exit 1 if a file is not in canonical form");
}

}  // namespace rnnwb::cli
