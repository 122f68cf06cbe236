// Validate + analyse a random graph of 100,000 layers and 400,000 connections.
// Usage: bench_analyze [--layers N] [--connections M] [--repeat R] [--out FILE.json]
// Prints a table and writes the figures as JSON; see docs/benchmarks.md.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench_help.hpp"
#include "random_graph.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/graph_validator.hpp"
#include "rnnwb/core/scc_analysis.hpp"

namespace {

long peakRssKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

template <typename F>
double medianSeconds(int repeat, F&& body) {
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (answersBenchHelp(argc, argv,
                       "Usage: bench_analyze [--layers N] [--connections M] [--repeat R] [--out "
                       "FILE.json]\nValidate + analyse a random graph of 100,000 layers and "
                       "400,000 connections (docs/benchmarks.md).\n"))
    return 0;
  int layers = 100000, connections = 400000, repeat = 5;
  std::string out = "bench_analyze.json";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--layers"))
      layers = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--connections"))
      connections = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeat"))
      repeat = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--out"))
      out = argv[i + 1];
    else {
      std::cerr << "unknown option " << argv[i] << '\n';
      return 2;
    }
  }
  rnnwb::testing::RandomGraphOptions options;
  options.layers = layers;
  options.connections = connections;
  options.inputs = 8;
  options.delayedFraction = 0.2;
  const rnnwb::Graph graph = rnnwb::testing::makeRandomGraph(2026, options);
  const std::string text = rnnwb::serializeGraph(graph);
  const long rssBefore = peakRssKiB();

  std::size_t nodes = 0, recurrent = 0, largest = 0;
  const double validate = medianSeconds(repeat, [&] {
    if (!rnnwb::validateGraph(graph).empty()) throw std::runtime_error("random graph invalid");
  });
  const double analyze = medianSeconds(repeat, [&] {
    const rnnwb::SccAnalysis a = rnnwb::analyzeSccs(graph);
    nodes = a.nodes.size();
    recurrent = std::count_if(a.nodes.begin(), a.nodes.end(), [](auto& n) { return n.recurrent; });
    for (const auto& n : a.nodes) largest = std::max(largest, n.layers.size());
  });
  const double plan = medianSeconds(repeat, [&] { rnnwb::CompiledPlan p(graph); });
  const double parse = medianSeconds(repeat, [&] {
    if (!rnnwb::parseGraph(text).ok()) throw std::runtime_error("parse failed");
  });
  const long rss = peakRssKiB();

  std::cout << "graph: " << layers << " layers, " << connections << " connections, "
            << text.size() / 1e6 << " MB of JSON\n"
            << "SCC nodes: " << nodes << " (" << recurrent << " recurrent, largest " << largest
            << " layers)\n"
            << "validate:                    " << validate << " s\n"
            << "analyze (SCCs + schedule):   " << analyze << " s\n"
            << "validate + analyze (plan):   " << plan << " s\n"
            << "parse file text + validate:  " << parse << " s\n"
            << "peak memory: " << rss / 1024.0 << " MiB (" << rssBefore / 1024.0
            << " MiB holding the graph and its text)\n";
  std::ofstream json(out);
  json << "{\"layers\": " << layers << ", \"connections\": " << connections
       << ", \"validate_s\": " << validate << ", \"analyze_s\": " << analyze
       << ", \"plan_s\": " << plan << ", \"parse_s\": " << parse
       << ", \"peak_rss_mib\": " << rss / 1024.0 << ", \"scc_nodes\": " << nodes
       << ", \"recurrent_nodes\": " << recurrent << "}\n";
  return 0;
}
