#pragma once
// Trainable parameters as the engine lays them out (graph-format.md): a `full` connection has
// to.size × from.size weights (fewer when sparse: those its fixed mask keeps), `diagonal` has
// to.size, `identity` none; a layer with a bias has size more. For the canvas' tooltips.
#include <cstdint>
#include <optional>

#include <QString>

#include "rnnwb/core/graph.hpp"

namespace rnnwb::ui {

/// The weights of connection `index`; absent when it names a missing layer or a size is not
/// positive (the Problems panel says why).
std::optional<std::int64_t> connectionParameters(const Graph& graph, int index);
/// A layer's bias and the weights of every connection into it, as tooltip lines.
QString layerParameterLines(const Graph& graph, int layerIndex);
/// "1,234": grouped digits, as the Properties panel and tooltips show counts.
QString groupedCount(std::int64_t count);

}  // namespace rnnwb::ui
