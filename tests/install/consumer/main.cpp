// consumer GRAPH: loads and validates a graph, analyses it and sizes its initial weights with the
// installed engine, and prints "LAYERS layers, NODES recurrent nodes, PARAMS parameters".
#include <cstdio>
#include <exception>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/scc_analysis.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer GRAPH\n");
    return 2;
  }
  try {
    const rnnwb::Graph graph = rnnwb::loadValidGraph(argv[1]);
    int recurrent = 0;
    for (const rnnwb::SccNode& node : rnnwb::analyzeSccs(graph).nodes) recurrent += node.recurrent;
    const rnnwb::CompiledPlan plan(graph);
    const rnnwb::ParameterSet weights = rnnwb::initParameters(plan, 1);
    std::printf("%zu layers, %d recurrent nodes, %zu parameters\n", graph.layers.size(), recurrent,
                weights.size());
    return weights.size() > 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
