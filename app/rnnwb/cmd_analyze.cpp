// rnnwb analyze FILE [--json]: the recurrent nodes, their scan orders, the layers' grids and the
// schedule the engines will run.
#include <iomanip>
#include <iostream>

#include "cli_support.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/scan_order.hpp"

namespace rnnwb::cli {
namespace {

nlohmann::json analysisJson(const CompiledPlan& plan) {
  const Graph& g = plan.graph();
  nlohmann::json sccs = nlohmann::json::array();
  for (const SccNode& node : plan.nodes()) {
    nlohmann::json layers = nlohmann::json::array(), inner = nlohmann::json::array();
    for (int l : node.layers) layers.push_back(g.layers[l].id);
    for (int l : node.innerOrder) inner.push_back(g.layers[l].id);
    nlohmann::json scc = {{"layers", layers},     {"recurrent", node.recurrent},
                          {"inner_order", inner}, {"dimensions", node.dimensions},
                          {"scan", nullptr},      {"scan_order", nullptr}};
    if (node.recurrent) {
      scc["scan"] = node.scan;
      scc["scan_order"] = describeScan(node.scan);
    }
    sccs.push_back(std::move(scc));
  }
  nlohmann::json layers = nlohmann::json::array();
  for (int l = 0; l < static_cast<int>(g.layers.size()); ++l)
    layers.push_back({{"id", g.layers[l].id},
                      {"dimensions", plan.grid(l).dimensions},
                      {"grid", describeGrid(plan.grid(l), g.dimensions)}});
  const int ahead = plan.readAheadConnection();
  return {{"sccs", sccs},
          {"dimensions", g.dimensions},
          {"layers", layers},
          {"whole_sequences", plan.needsWholeSequences()},
          {"reads_ahead", ahead < 0 ? nlohmann::json() : nlohmann::json(g.connections[ahead].id)}};
}

std::string runsText(const SccNode& node) {
  if (!node.recurrent) return node.dimensions == 2 ? "all positions" : "all frames";
  return node.dimensions == 2 ? "along its scan" : "frame by frame";
}

std::string joinIds(const Graph& g, const std::vector<int>& layers, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < layers.size(); ++i)
    out += (i ? separator : "") + g.layers[layers[i]].id;
  return out;
}

// Grids (2-D graphs: in a 1-D graph every layer has the T frames of its sequence) and whether
// the graph needs whole sequences.
void printGraphNotes(const CompiledPlan& plan) {
  const Graph& g = plan.graph();
  if (plan.needsWholeSequences())
    std::cout << "\nneeds whole sequences: connection '"
              << g.connections[plan.readAheadConnection()].id
              << "' reads ahead (a negative delay), so the graph cannot be streamed in chunks\n";
  if (g.dimensions != 2) return;
  std::cout << "\n"
            << std::left << std::setw(16) << "layer" << std::setw(6) << "dims"
            << "grid (of an example of H × W)\n";
  for (int l = 0; l < static_cast<int>(g.layers.size()); ++l)
    std::cout << std::setw(16) << g.layers[l].id << std::setw(6)
              << std::to_string(plan.grid(l).dimensions) + "-D"
              << describeGrid(plan.grid(l), g.dimensions) << '\n';
}

void printTable(const CompiledPlan& plan, const std::string& file) {
  const Graph& g = plan.graph();
  int recurrent = 0;
  for (const SccNode& node : plan.nodes()) recurrent += node.recurrent;
  std::cout << (g.name.empty() ? file : g.name + " (" + file + ")") << ": " << g.layers.size()
            << " layers, " << g.connections.size() << " connections\n"
            << "schedule: " << plan.nodes().size() << " nodes, " << recurrent
            << (g.dimensions == 2 ? " recurrent (stepped along their scan), "
                                  : " recurrent (stepped frame by frame), ")
            << plan.nodes().size() - recurrent
            << (g.dimensions == 2 ? " plain (computed for all positions at once)\n\n"
                                  : " plain (computed for all frames of a chunk at once)\n\n");
  std::cout << std::left << std::setw(6) << "step" << std::setw(16) << "node" << std::setw(16)
            << "runs"
            << "layers\n";
  int recurrentIndex = 0;
  for (std::size_t i = 0; i < plan.nodes().size(); ++i) {
    const SccNode& node = plan.nodes()[i];
    const std::string name = node.recurrent ? "recurrent " + std::to_string(++recurrentIndex)
                                            : g.layers[node.layers.front()].id;
    std::cout << std::setw(6) << i + 1 << std::setw(16) << name << std::setw(16) << runsText(node)
              << joinIds(g, node.layers, ", ") << '\n';
    if (node.recurrent)
      std::cout << std::setw(38) << ""
                << "inner order: " << joinIds(g, node.innerOrder, " -> ") << '\n'
                << std::setw(38) << ""
                << "scan: " << describeScan(node.scan) << ", σ = " << formatSigma(node.scan)
                << '\n';
  }
  printGraphNotes(plan);
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
      "Print {\"sccs\": [{\"layers\", \"recurrent\", \"inner_order\", \"dimensions\", \"scan\", "
      "\"scan_order\"}] in schedule order, \"dimensions\", \"layers\": [{\"id\", \"dimensions\", "
      "\"grid\"}], \"whole_sequences\", \"reads_ahead\"}");
}

}  // namespace rnnwb::cli
