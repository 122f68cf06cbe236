#include "parameter_count.hpp"

#include <QLocale>

#include "rnnwb/core/connection_mask.hpp"

namespace rnnwb::ui {
namespace {

const Layer* layerById(const Graph& graph, const std::string& id) {
  for (const Layer& layer : graph.layers)
    if (layer.id == id) return &layer;
  return nullptr;
}

}  // namespace

QString groupedCount(std::int64_t count) {
  QLocale english(QLocale::English);
  return english.toString(static_cast<qlonglong>(count));
}

std::optional<std::int64_t> connectionParameters(const Graph& graph, int index) {
  const Connection& c = graph.connections.at(index);
  const Layer* from = layerById(graph, c.from);
  const Layer* to = layerById(graph, c.to);
  if (!from || !to || from->size <= 0 || to->size <= 0) return std::nullopt;
  switch (c.type) {
    case ConnectionType::Identity:
    case ConnectionType::Complement:
      return 0;
    case ConnectionType::Diagonal:
      return to->size;
    case ConnectionType::Block:  // [to.size, from.size, by, bx], as Conv2d's weight
      return std::int64_t(to->size) * from->size * c.block[0] * c.block[1];
    case ConnectionType::Full:
      break;
  }
  if (!c.isSparse()) return std::int64_t(to->size) * from->size;
  if (c.density <= 0 || c.density > 1) return std::nullopt;
  std::int64_t kept = 0;
  for (std::uint8_t bit : connectionMask(c, to->size, from->size)) kept += bit;
  return kept;
}

QString layerParameterLines(const Graph& graph, int layerIndex) {
  const Layer& layer = graph.layers.at(layerIndex);
  std::int64_t total = 0;
  QStringList parts;
  if (layer.bias && layer.size > 0) {
    total += layer.size;
    parts << QStringLiteral("bias %1").arg(groupedCount(layer.size));
  }
  for (int i = 0; i < static_cast<int>(graph.connections.size()); ++i) {
    const Connection& c = graph.connections[i];
    if (c.to != layer.id || c.type == ConnectionType::Identity) continue;
    const auto weights = connectionParameters(graph, i);
    if (!weights) continue;
    total += *weights;
    parts << QStringLiteral("%1 %2").arg(QString::fromStdString(c.id), groupedCount(*weights));
  }
  if (parts.isEmpty()) return QStringLiteral("no parameters");
  return QStringLiteral("%1 parameters: %2")
      .arg(groupedCount(total), parts.join(QStringLiteral(", ")));
}

}  // namespace rnnwb::ui
