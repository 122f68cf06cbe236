// rnnwb init GRAPH --seed S -o W.safetensors: initial weights (and the masks of sparse
// connections) in the layout of graph-format.md, "Weights and data files".
#include <iostream>

#include "cli_support.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::cli {

namespace {

struct InitOptions {
  std::string graph;
  std::uint64_t seed = 0;
  std::string output;
};

int runInit(const InitOptions& options) {
  const CompiledPlan plan(loadValidGraph(options.graph));
  const ParameterSet params = initParameters(plan, options.seed);
  const TensorMap tensors = parametersToTensors(params, true);
  writeSafetensors(options.output, tensors,
                   {{"graph", plan.graph().name}, {"seed", std::to_string(options.seed)}});
  std::cout << options.output << ": " << tensors.size() << " tensors, " << params.size()
            << " parameters (" << plan.graph().name << ", seed " << options.seed << ")\n";
  return 0;
}

}  // namespace

void registerInit(CLI::App& app, int& exitCode) {
  auto options = std::make_shared<InitOptions>();
  CLI::App* cmd = addCommand(app, "init",
                             "Write initial weights of a graph (and the masks of sparse "
                             "connections) to a safetensors file",
                             exitCode, [options] { return runInit(*options); });
  requireExistingFile(
      cmd->add_option("GRAPH", options->graph, "Graph file (*.rnn.json)")->required());
  cmd->add_option("--seed", options->seed, "Seed of the initial values (default 0)");
  cmd->add_option("-o,--output", options->output, "Weights file to write (*.safetensors)")
      ->required();
}

}  // namespace rnnwb::cli
