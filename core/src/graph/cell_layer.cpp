#include "rnnwb/core/cell_layer.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include "rnnwb/core/recognizer_graph.hpp"

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

/// One copy: the cell's inner layers prefixed, its delays flipped by (sx, sy).
void copyCell(const Graph& cell, const CellShape& shape, const CellLayerOptions& o,
              const std::string& prefix, int sx, int sy, CellLayer& out) {
  for (const Layer& l : cell.layers) {
    if (l.isInput() || l.isOutput()) continue;
    Layer copy = l;
    copy.id = prefix + l.id;
    copy.size = o.size;
    out.layers.push_back(std::move(copy));
  }
  const auto rename = [&](const std::string& id) {
    return id == shape.input ? o.input : prefix + id;
  };
  for (const Connection& c : cell.connections) {
    if (c.to == shape.output) continue;
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
    out.connections.push_back(std::move(copy));
  }
  out.outputs.push_back(prefix + shape.state);
}

/// The cell's inner layers where its file places them (or in a row), from its top-left corner.
std::map<std::string, std::pair<double, double>> cellPlaces(const Graph& cell, double& width,
                                                            double& height) {
  std::map<std::string, std::pair<double, double>> at;
  const nlohmann::json* given = cell.ui.contains("positions") ? &cell.ui["positions"] : nullptr;
  int k = 0;
  for (const Layer& l : cell.layers) {
    if (l.isInput() || l.isOutput()) continue;
    std::pair<double, double> p{170.0 * k++, 0.0};
    if (given && given->contains(l.id) && (*given)[l.id].is_array() && (*given)[l.id].size() == 2)
      p = {(*given)[l.id][0].get<double>(), (*given)[l.id][1].get<double>()};
    at[l.id] = p;
  }
  double left = 1e300, top = 1e300, right = 0, bottom = 0;
  for (const auto& [id, p] : at) {
    left = std::min(left, p.first), top = std::min(top, p.second);
    right = std::max(right, p.first), bottom = std::max(bottom, p.second);
  }
  for (auto& [id, p] : at) p = {p.first - left, p.second - top};
  width = right - left;
  height = bottom - top;
  return at;
}

}  // namespace

CellLayer makeCellLayer(const Graph& cell, const CellLayerOptions& options) {
  const CellShape shape = inspectCell(cell);
  if (options.directions != 1 && options.directions != 4)
    throw std::invalid_argument("a cell layer has 1 or 4 directions, not " +
                                std::to_string(options.directions));
  if (options.size < 1)
    throw std::invalid_argument("a cell layer needs at least 1 unit, not " +
                                std::to_string(options.size));
  CellLayer layer;
  double width = 0, height = 0;
  const auto places = cellPlaces(cell, width, height);
  layer.cellWidth = width;
  layer.cellHeight = height + 160;
  for (int d = 0; d < options.directions; ++d) {
    const std::string prefix =
        options.directions == 1 ? options.prefix : options.prefix + kRecognizerDirections[d] + "-";
    const int sx = d == 1 || d == 3 ? -1 : 1;
    const int sy = d >= 2 ? -1 : 1;
    copyCell(cell, shape, options, prefix, sx, sy, layer);
    for (const auto& [id, p] : places)
      layer.positions[prefix + id] = {p.first, d * layer.cellHeight + p.second};
  }
  return layer;
}

}  // namespace rnnwb
