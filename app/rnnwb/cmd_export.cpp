// rnnwb export FILE --format dot [-o OUT]: the graph for other tools.
#include <iostream>

#include "cli_support.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/dot_export.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::cli {

void registerExport(CLI::App& app, int& exitCode) {
  auto file = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  CLI::App* cmd = addCommand(app, "export", "Export a graph in another format (Graphviz DOT)",
                             exitCode, [file, format, output] {
                               const CompiledPlan plan(loadValidGraph(*file));
                               const std::string text = exportDot(plan);
                               if (output->empty() || *output == "-")
                                 std::cout << text;
                               else
                                 writeFileAtomically(*output, text);
                               return 0;
                             });
  requireExistingFile(cmd->add_option("FILE", *file, "Graph file (*.rnn.json)")->required());
  cmd->add_option("--format", *format, "Output format")->required()->check(CLI::IsMember({"dot"}));
  cmd->add_option("-o,--output", *output, "Output file (default: standard output)");
}

}  // namespace rnnwb::cli
