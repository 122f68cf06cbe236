#pragma once
// Parts of a graph that travel together: copy and paste (as graph-file text on the clipboard)
// and the cell templates (LSTM, GRU, Elman) wired to a chosen layer.
#include <optional>
#include <set>
#include <string>

#include <QString>

#include "rnnwb/ui/graph_commands.hpp"

namespace rnnwb::ui {

/// The chosen layers, the connections among them and their positions.
GraphFragment copyFragment(const GraphDocument& document, const std::set<std::string>& layerIds);
/// A graph file's text holding the fragment (what the clipboard carries).
std::string fragmentToText(const GraphFragment& fragment);
/// The layers, connections and positions of graph-file text; absent if it is not one.
std::optional<GraphFragment> fragmentFromText(const std::string& text);
/// Renames the fragment's layers so none clashes with the document (connections and default
/// connection ids follow), gives connections fresh ids, and shifts positions by `offset`.
GraphFragment prepareForInsert(const GraphDocument& document, GraphFragment fragment,
                               QPointF offset);

enum class CellTemplate { Lstm, Gru, Elman };
QString templateName(CellTemplate cell);
/// The name with its article, in lower case: "an LSTM cell", "a GRU cell", "an Elman layer".
QString templateWithArticle(CellTemplate cell);

/// A cell of `size` units fed by layer `inputId` (which must exist): layer ids get a prefix free
/// in the document ("lstm_", "lstm2_", ...); positions start at `origin`, left to right. The
/// cell's output layer is the last layer of the fragment.
GraphFragment makeCellTemplate(const GraphDocument& document, CellTemplate cell,
                               const std::string& inputId, int size, QPointF origin);

}  // namespace rnnwb::ui
