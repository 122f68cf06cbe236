#pragma once
// Parts of a graph that travel together: copy and paste (as graph-file text on the clipboard)
// and the cell templates (LSTM, GRU, Elman) wired to a chosen layer.
#include <optional>
#include <set>
#include <string>
#include <vector>

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

/// The cell templates: 1-D (LSTM, GRU, Elman) and 2-D, the Leaky LP cell of "No Padding
/// Please" in the paper's variant (examples/leaky-lp-2d.rnn.json) and in the cells report's
/// (examples/leaky-lp-2d-cells-report.rnn.json), once or as a four-direction MDLSTM layer of the
/// paper's variant. The 2-D cells are those example files, built into the program.
enum class CellTemplate { Lstm, Gru, Elman, LeakyLp2d, LeakyLp2dCellsReport, FourDirectionLeakyLp };
inline constexpr CellTemplate kCellTemplates[] = {CellTemplate::Lstm,
                                                  CellTemplate::Gru,
                                                  CellTemplate::Elman,
                                                  CellTemplate::LeakyLp2d,
                                                  CellTemplate::LeakyLp2dCellsReport,
                                                  CellTemplate::FourDirectionLeakyLp};
QString templateName(CellTemplate cell);
/// The name with its article, in lower case: "an LSTM cell", "a GRU cell", "an Elman layer".
QString templateWithArticle(CellTemplate cell);
/// The palette's key of a template ("lstm", ..., "leaky-lp-2d", "leaky-lp-2d-cells-report",
/// "mdlstm-layer"), and back.
QString templateKey(CellTemplate cell);
std::optional<CellTemplate> templateFromKey(const QString& key);
/// 2-D templates go into 2-D graphs (inserting one makes the graph 2-D).
bool isTwoDTemplate(CellTemplate cell);
/// The units a template starts with: 32 for 1-D cells, 10 for 2-D ones (the paper's layer).
int templateDefaultSize(CellTemplate cell);

/// A cell of `size` units fed by layer `inputId` (which must exist): layer ids get a prefix free
/// in the document ("lstm_", "lstm2_", "lp_", "mdlstm_", ...); positions start at `origin`, left to
/// right. `outputs`, when given, receives the cell's output layers: the fragment's last layer for
/// a 1-D cell, each direction's output state for a 2-D one.
GraphFragment makeCellTemplate(const GraphDocument& document, CellTemplate cell,
                               const std::string& inputId, int size, QPointF origin,
                               std::vector<std::string>* outputs = nullptr);

}  // namespace rnnwb::ui
