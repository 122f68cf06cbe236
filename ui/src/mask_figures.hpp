#pragma once
// The Sparsity panel's tables and legend: the figures `rnnwb mask` prints for one node, in the
// same words and units (core's levelName and formatBytes).
#include <QString>

class QTableWidget;

namespace rnnwb::ui {

struct MaskResult;

/// Two columns, figure and value: layers, state, parameters, colours, exactness, memory.
void fillFigureTable(QTableWidget* table, const MaskResult& result);
/// One row per SnAp level then the exact mask: nnz, density, Ĵ in COO and in CSR.
void fillLevelTable(QTableWidget* table, const MaskResult& result);
/// What the panels of the picture and their colours are, for the summary's node and level n.
QString patternLegend(const MaskResult& result, int n);

}  // namespace rnnwb::ui
