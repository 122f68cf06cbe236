// rnnwb analyze FILE [--json]: the recurrent nodes and the schedule the engines will run.
#include <iomanip>
#include <iostream>

#include "cli_support.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::cli {
namespace {

nlohmann::json analysisJson(const CompiledPlan& plan) {
  const Graph& g = plan.graph();
  nlohmann::json sccs = nlohmann::json::array();
  for (const SccNode& node : plan.nodes()) {
    nlohmann::json layers = nlohmann::json::array(), inner = nlohmann::json::array();
    for (int l : node.layers) layers.push_back(g.layers[l].id);
    for (int l : node.innerOrder) inner.push_back(g.layers[l].id);
    sccs.push_back({{"layers", layers}, {"recurrent", node.recurrent}, {"inner_order", inner}});
  }
  return {{"sccs", sccs}};
}

std::string joinIds(const Graph& g, const std::vector<int>& layers, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < layers.size(); ++i)
    out += (i ? separator : "") + g.layers[layers[i]].id;
  return out;
}

void printTable(const CompiledPlan& plan, const std::string& file) {
  const Graph& g = plan.graph();
  int recurrent = 0;
  for (const SccNode& node : plan.nodes()) recurrent += node.recurrent;
  std::cout << (g.name.empty() ? file : g.name + " (" + file + ")") << ": " << g.layers.size()
            << " layers, " << g.connections.size() << " connections\n"
            << "schedule: " << plan.nodes().size() << " nodes, " << recurrent
            << " recurrent (stepped frame by frame), " << plan.nodes().size() - recurrent
            << " plain (computed for all frames of a chunk at once)\n\n";
  std::cout << std::left << std::setw(6) << "step" << std::setw(16) << "node" << std::setw(16)
            << "runs"
            << "layers\n";
  int recurrentIndex = 0;
  for (std::size_t i = 0; i < plan.nodes().size(); ++i) {
    const SccNode& node = plan.nodes()[i];
    const std::string name = node.recurrent ? "recurrent " + std::to_string(++recurrentIndex)
                                            : g.layers[node.layers.front()].id;
    std::cout << std::setw(6) << i + 1 << std::setw(16) << name << std::setw(16)
              << (node.recurrent ? "frame by frame" : "all frames") << joinIds(g, node.layers, ", ")
              << '\n';
    if (node.recurrent)
      std::cout << std::setw(38) << ""
                << "inner order: " << joinIds(g, node.innerOrder, " -> ") << '\n';
  }
}

}  // namespace

void registerAnalyze(CLI::App& app, int& exitCode) {
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = addCommand(app, "analyze",
                             "Show the strongly connected components and the schedule of a graph",
                             exitCode, [file, json] {
                               const CompiledPlan plan(loadValidGraph(*file));
                               if (*json)
                                 std::cout << analysisJson(plan).dump(2) << '\n';
                               else
                                 printTable(plan, *file);
                               return 0;
                             });
  requireExistingFile(cmd->add_option("FILE", *file, "Graph file (*.rnn.json)")->required());
  cmd->add_flag(
      "--json", *json,
      "Print {\"sccs\": [{\"layers\", \"recurrent\", \"inner_order\"}]} in schedule order");
}

}  // namespace rnnwb::cli
