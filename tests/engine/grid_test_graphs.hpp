#pragma once
// The graphs and random examples the grid engine's tests run on (tst_gridengine,
// tst_gridmemory): the v2 examples and small graphs for what they lack.
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/example_batch.hpp"
#include "rnnwb/core/graph.hpp"

namespace rnnwb::testing {

/// A graph file of version 2 with these layers and connections (JSON array bodies).
std::string graph2d(const std::string& layers, const std::string& connections, int dims = 2);

/// Random examples of random sizes, with targets for each output's loss.
ExampleBatch randomExamples(const CompiledPlan& plan, int count, std::uint64_t seed,
                            int maxHeight = 4, int maxWidth = 6);

/// The v2 graphs every test runs: file names of examples/, and names of small graphs.
QStringList gridGraphs();
/// gridGraphs() and the small word recogniser, mdlstm-words-small.rnn.json.
QStringList gridGraphsAndRecognizer();
/// randomExamples sized for graph `name`: the recogniser's three 2 x 2 blocks need words of some
/// size (up to 24 x 64), the others get up to 4 x 6.
ExampleBatch randomExamplesFor(const QString& name, const CompiledPlan& plan, int count,
                               std::uint64_t seed);
Graph gridGraph(const QString& name);

/// ‖got − want‖ / ‖want‖ (against a float64 reference; `got` floats or doubles).
template <typename Values>
double relativeError(const Values& got, const std::vector<double>& want) {
  double error = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    error += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(error) / std::max(1e-12, std::sqrt(norm));
}

}  // namespace rnnwb::testing
