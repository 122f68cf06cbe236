#include "packing_grids.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <QStringList>

#include "rnnwb/core/layer_grids.hpp"

namespace rnnwb::ui {

QList<GridChoice> gridChoices(const Graph& graph) {
  // By divisor, finest first: the layers that compute at it, in file order.
  std::map<std::pair<long long, long long>, QStringList> layersAt;
  if (graph.dimensions == 2) {
    const GridAnalysis grids = analyzeGrids(graph);
    for (std::size_t l = 0; l < graph.layers.size(); ++l) {
      const LayerGrid& grid = grids.layers[l];
      if (grid.known() && grid.dimensions == 2)
        layersAt[{grid.divideY * grid.divideX, grid.divideX}]
            << QString::fromStdString(graph.layers[l].id);
    }
  }
  QList<GridChoice> choices;
  choices.append({QStringLiteral("H × W (the examples')"), {}, {}});
  for (const auto& [key, layers] : layersAt) {
    const long long x = key.second, y = key.first / key.second;
    if (x == 1 && y == 1) {
      choices.front().layers = layers.join(QStringLiteral(", "));
      continue;
    }
    LayerGrid grid;
    grid.dimensions = 2;
    grid.divideX = x;
    grid.divideY = y;
    QStringList shown = layers.mid(0, 3);
    if (layers.size() > 3) shown << QStringLiteral("…");
    choices.append({QString::fromStdString(describeGrid(grid, 2)) + QStringLiteral(": ") +
                        shown.join(QStringLiteral(", ")),
                    {x, y},
                    layers.join(QStringLiteral(", "))});
  }
  return choices;
}

}  // namespace rnnwb::ui
