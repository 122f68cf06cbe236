#pragma once
// A cell graph copied into another graph as a layer: once (one scan direction) or once per
// direction of a four-direction layer, each copy with its delays' signs flipped for its
// direction. The recogniser generator (recognizer_graph.hpp) builds its stages from it, and the
// workbench's 2-D templates insert it into a document.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "rnnwb/core/graph.hpp"

namespace rnnwb {

struct CellLayerOptions {
  std::string prefix;  // prepended to every copied id
  std::string input;   // the layer of the target graph that feeds the cell's input
  int size = 0;        // units of every copied layer
  int directions = 4;  // 1: the cell as it is ("<prefix><id>"); 4: "<prefix><dir>-<id>"
};

struct CellLayer {
  std::vector<Layer> layers;
  std::vector<Connection>
      connections;                   // seeds as the cell's; ids default ones where the cell's are
  std::vector<std::string> outputs;  // each copy's output state (what the cell's output reads)
  /// Where each copied layer goes, relative to the layer's top-left corner: the cell file's
  /// ui.positions (or a row where it has none), the copies one under another.
  std::map<std::string, std::pair<double, double>> positions;
  double cellWidth = 0, cellHeight = 0;  // of one copy, cellHeight with the gap to the next
};

/// Throws std::invalid_argument naming what is wrong with the cell: not 2-D, not exactly one
/// input and one output layer, nothing between them, or layers of several sizes.
CellLayer makeCellLayer(const Graph& cell, const CellLayerOptions& options);

}  // namespace rnnwb
