#include "rnnwb/core/recognizer_graph.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>

namespace rnnwb {
namespace {

struct CellShape {
  std::string input, output, state;  // ids in the cell
  int size = 0;
};

CellShape inspectCell(const Graph& cell) {
  if (cell.dimensions != 2)
    throw std::invalid_argument("the cell '" + cell.name + "' is not a 2-D graph");
  CellShape shape;
  int inputs = 0, outputs = 0;
  for (const Layer& l : cell.layers) {
    if (l.isInput()) {
      shape.input = l.id;
      ++inputs;
    } else if (l.isOutput()) {
      shape.output = l.id;
      ++outputs;
    } else if (shape.size == 0) {
      shape.size = l.size;
    } else if (l.size != shape.size) {
      throw std::invalid_argument("the cell '" + cell.name + "': its layers have several sizes (" +
                                  std::to_string(shape.size) + " and '" + l.id + "' " +
                                  std::to_string(l.size) + "); the generator needs one");
    }
  }
  if (inputs != 1 || outputs != 1)
    throw std::invalid_argument("the cell '" + cell.name + "' has " + std::to_string(inputs) +
                                " input and " + std::to_string(outputs) +
                                " output layers; the generator needs one of each");
  for (const Connection& c : cell.connections)
    if (c.to == shape.output) shape.state = c.from;
  if (shape.state.empty() || shape.size == 0)
    throw std::invalid_argument("the cell '" + cell.name +
                                "' has no layer between its input and its output");
  return shape;
}

class Builder {
 public:
  explicit Builder(const RecognizerGraphOptions& o) : m_o(o), m_cell(inspectCell(o.cell)) {
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
      sources.clear();
      for (int d = 0; d < 4; ++d) sources.push_back(addCell(stage, d, block, m_o.sizes[s]));
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

  /// One direction of one stage: the cell's layers prefixed, its delays flipped. Returns the id
  /// of its output state.
  std::string addCell(const std::string& stage, int direction, const std::string& input, int size) {
    const std::string prefix = stage + "-" + kRecognizerDirections[direction] + "-";
    const int sx = direction == 1 || direction == 3 ? -1 : 1;
    const int sy = direction >= 2 ? -1 : 1;
    for (const Layer& l : m_o.cell.layers) {
      if (l.isInput() || l.isOutput()) continue;
      Layer copy = l;
      copy.id = prefix + l.id;
      copy.size = size;
      addLayer(copy);
    }
    const auto rename = [&](const std::string& id) {
      return id == m_cell.input ? input : prefix + id;
    };
    for (const Connection& c : m_o.cell.connections) {
      if (c.to == m_cell.output) continue;
      const int cellDelay[2] = {c.delay, c.delayY};
      const bool defaultId =
          c.id == defaultConnectionId(c.from, c.to, std::span<const int>(cellDelay, 2));
      Connection copy = c;
      copy.from = rename(c.from);
      copy.to = rename(c.to);
      copy.delay = sx * c.delay;
      copy.delayY = sy * c.delayY;
      const int delay[2] = {copy.delay, copy.delayY};
      copy.id = defaultId ? defaultConnectionId(copy.from, copy.to, std::span<const int>(delay, 2))
                          : prefix + c.id;
      addConnection(copy);
    }
    return prefix + m_cell.state;
  }

  /// Editor positions (ui.positions): each stage a column of its four directions' cells, as the
  /// cell file places its layers (or in a row where it places none), its block layer on the left.
  void layOut() {
    std::map<std::string, std::pair<double, double>> cellAt;
    double width = 0, height = 0;
    int k = 0;
    const nlohmann::json* given =
        m_o.cell.ui.contains("positions") ? &m_o.cell.ui["positions"] : nullptr;
    for (const Layer& l : m_o.cell.layers) {
      if (l.isInput() || l.isOutput()) continue;
      std::pair<double, double> at{170.0 * k++, 0.0};
      if (given && given->contains(l.id) && (*given)[l.id].is_array() && (*given)[l.id].size() == 2)
        at = {(*given)[l.id][0].get<double>(), (*given)[l.id][1].get<double>()};
      cellAt[l.id] = at;
      width = std::max(width, at.first);
      height = std::max(height, at.second);
    }
    double left = 1e300, top = 1e300;
    for (const auto& [id, at] : cellAt)
      left = std::min(left, at.first), top = std::min(top, at.second);
    const double stageWidth = width - left + 400, cellHeight = height - top + 160;
    nlohmann::json positions = nlohmann::json::object();
    positions["x"] = {0, 1.5 * cellHeight};
    for (std::size_t s = 0; s < m_o.sizes.size(); ++s) {
      const double x0 = 200 + static_cast<double>(s) * stageWidth;
      const std::string stage = "s" + std::to_string(s + 1);
      positions[stage + "-block"] = {x0, 1.5 * cellHeight};
      for (int d = 0; d < 4; ++d)
        for (const auto& [id, at] : cellAt)
          positions[stage + "-" + kRecognizerDirections[d] + "-" + id] = {
              x0 + 200 + at.first - left, d * cellHeight + at.second - top};
    }
    positions["out"] = {200 + static_cast<double>(m_o.sizes.size()) * stageWidth, 1.5 * cellHeight};
    m_graph.ui["positions"] = positions;
  }

  const RecognizerGraphOptions& m_o;
  CellShape m_cell;
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
