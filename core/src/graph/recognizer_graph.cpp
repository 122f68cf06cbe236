#include "rnnwb/core/recognizer_graph.hpp"

#include "rnnwb/core/cell_layer.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>

namespace rnnwb {
namespace {

class Builder {
 public:
  explicit Builder(const RecognizerGraphOptions& o) : m_o(o) {
    m_graph.name = o.name;
    m_graph.dimensions = 2;
  }

  Graph run() {
    if (m_o.sizes.empty() || m_o.sizes.size() != m_o.blocks.size())
      throw std::invalid_argument(std::to_string(m_o.sizes.size()) + " stage sizes and " +
                                  std::to_string(m_o.blocks.size()) +
                                  " block layers: the generator needs one block layer per stage");
    Layer input{"x", LayerKind::Input, 1};
    input.bias = false;
    addLayer(input);
    std::vector<std::string> sources{"x"};
    for (std::size_t s = 0; s < m_o.sizes.size(); ++s) {
      const std::string stage = "s" + std::to_string(s + 1);
      const std::string block = stage + "-block";
      const RecognizerBlock& b = m_o.blocks[s];
      addLayer({block, LayerKind::Additive, b.outputs, Activation::Tanh});
      for (const std::string& from : sources) connectBlock(from, block, b);
      CellLayer cells = makeCellLayer(m_o.cell, {stage + "-", block, m_o.sizes[s], 4});
      for (Layer& l : cells.layers) addLayer(std::move(l));
      for (Connection& c : cells.connections) addConnection(std::move(c));
      sources = cells.outputs;
      m_cellPositions.push_back(std::move(cells.positions));
      m_cellWidth = cells.cellWidth, m_cellHeight = cells.cellHeight;
    }
    addLayer({"out", LayerKind::Additive, m_o.classes, Activation::Softmax, true, LossKind::Ctc});
    for (const std::string& from : sources) {
      Connection c;
      c.from = from;
      c.to = "out";
      c.reduce = ReduceAxis::Y;
      c.id = defaultConnectionId(c.from, c.to, 0);
      addConnection(c);
    }
    layOut();
    return std::move(m_graph);
  }

 private:
  void addLayer(Layer layer) { m_graph.layers.push_back(std::move(layer)); }

  /// A dense connection's seed is its index, as the reader gives one that a file leaves out (so
  /// the file written says nothing of it); a sparse cell connection keeps its seed (each copy
  /// draws the same mask).
  void addConnection(Connection c) {
    if (!c.isSparse()) c.seed = m_graph.connections.size();
    m_graph.connections.push_back(std::move(c));
  }

  void connectBlock(const std::string& from, const std::string& to, const RecognizerBlock& b) {
    Connection c;
    c.from = from;
    c.to = to;
    c.type = ConnectionType::Block;
    c.block = {b.bx, b.by};
    c.id = defaultConnectionId(from, to, 0);
    addConnection(c);
  }

  /// Editor positions (ui.positions): each stage a column of its four directions' cells, as the
  /// cell file places its layers (or in a row where it places none), its block layer on the left.
  void layOut() {
    const double stageWidth = m_cellWidth + 400, cellHeight = m_cellHeight;
    nlohmann::json positions = nlohmann::json::object();
    positions["x"] = {0, 1.5 * cellHeight};
    for (std::size_t s = 0; s < m_o.sizes.size(); ++s) {
      const double x0 = 200 + static_cast<double>(s) * stageWidth;
      positions["s" + std::to_string(s + 1) + "-block"] = {x0, 1.5 * cellHeight};
      for (const auto& [id, at] : m_cellPositions[s])
        positions[id] = {x0 + 200 + at.first, at.second};
    }
    positions["out"] = {200 + static_cast<double>(m_o.sizes.size()) * stageWidth, 1.5 * cellHeight};
    m_graph.ui["positions"] = positions;
  }

  const RecognizerGraphOptions& m_o;
  std::vector<std::map<std::string, std::pair<double, double>>> m_cellPositions;
  double m_cellWidth = 0, m_cellHeight = 0;
  Graph m_graph;
};

}  // namespace

Graph makeRecognizerGraph(const RecognizerGraphOptions& options) { return Builder(options).run(); }

std::vector<RecognizerBlock> parseRecognizerBlocks(const std::string& text) {
  std::vector<RecognizerBlock> blocks;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) {
    RecognizerBlock b;
    char x = 0, colon = 0;
    std::istringstream in(item);
    if (!(in >> b.bx >> x >> b.by >> colon >> b.outputs) || x != 'x' || colon != ':' || b.bx < 1 ||
        b.by < 1 || b.outputs < 1 || !(in >> std::ws).eof())
      throw std::invalid_argument("block layer '" + item +
                                  "': expected <bx>x<by>:<outputs>, such as 2x2:4");
    blocks.push_back(b);
  }
  return blocks;
}

}  // namespace rnnwb
