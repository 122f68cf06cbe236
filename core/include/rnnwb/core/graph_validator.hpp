#pragma once
// Every validity rule of ../shared/spec/graph-format.md that concerns the model (the reader
// checks the ones about the file's text: types, unknown values, keys that may not appear).
#include <vector>

#include "rnnwb/core/diagnostic.hpp"
#include "rnnwb/core/graph.hpp"

namespace rnnwb {

/// All problems of the graph, in a stable order (layers, connections, then whole-graph rules).
std::vector<Diagnostic> validateGraph(const Graph& graph);

}  // namespace rnnwb
