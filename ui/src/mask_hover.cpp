#include "mask_hover.hpp"

#include <algorithm>

#include "mask_computation.hpp"
#include "rnnwb/core/snap/pattern_image.hpp"

namespace rnnwb::ui {
namespace {

QString yesNo(bool value) { return value ? QStringLiteral("yes") : QStringLiteral("no"); }

QString idOf(const Graph& graph, int layer) {
  return QString::fromStdString(graph.layers[layer].id);
}

}  // namespace

PatternHover::PatternHover(std::shared_ptr<const CompiledPlan> plan, int node, int level)
    : m_plan(std::move(plan)),
      m_layout(*m_plan, node),
      m_patterns(m_layout),
      m_coloursI(snap::colourRows(m_patterns.immediate())),
      m_coloursD(snap::colourRows(m_patterns.dynamics())),
      m_mask(level == 0 ? m_patterns.exactMask() : m_patterns.mask(level)),
      m_level(level) {}

QImage PatternHover::draw() const {
  return toQImage(snap::drawNodePatterns(m_layout, m_patterns, m_level, m_coloursI, m_coloursD));
}

QString PatternHover::maskName() const {
  return m_level == 0 ? QStringLiteral("M_∞") : QStringLiteral("M_%1").arg(m_level);
}

QString PatternHover::stateUnit(int row) const {
  for (const snap::StateLayer& s : m_layout.stateLayers())
    if (row >= s.offset && row < s.offset + s.size)
      return QStringLiteral("%1[%2]").arg(idOf(m_plan->graph(), s.layer)).arg(row - s.offset);
  return QStringLiteral("row %1").arg(row);
}

QString PatternHover::parameter(std::int64_t p) const {
  const Graph& graph = m_plan->graph();
  const auto& blocks = m_layout.parameterBlocks();
  const auto block = std::find_if(blocks.begin(), blocks.end(), [p](const auto& b) {
    return p >= b.offset && p < b.offset + b.count;
  });
  QString what;
  if (block == blocks.end()) {
    what = QStringLiteral("?");
  } else if (block->kind == snap::ParameterBlock::Kind::Bias) {
    what = QStringLiteral("bias of %1").arg(idOf(graph, block->index));
  } else {
    const Connection& c = graph.connections[block->index];
    what =
        QStringLiteral("weight %1 of %2").arg(p - block->offset).arg(QString::fromStdString(c.id));
    if (c.id != c.from + "->" + c.to)  // an id that does not say where it goes
      what += QStringLiteral(" (%1 → %2)")
                  .arg(QString::fromStdString(c.from), QString::fromStdString(c.to));
  }
  // The unit it acts on first: the row of I its column is.
  const int unit = m_layout.parameterUnits()[std::size_t(p)];
  for (int layer : m_layout.layers()) {
    const int offset = m_layout.unitOffset(layer);
    if (unit >= offset && unit < offset + graph.layers[layer].size)
      return QStringLiteral("θ %1, %2, acting on %3[%4]")
          .arg(p)
          .arg(what, idOf(graph, layer))
          .arg(unit - offset);
  }
  return QStringLiteral("θ %1, %2").arg(p).arg(what);
}

QString PatternHover::parameters(std::int64_t first, std::int64_t last) const {
  if (last - first <= 1) return parameter(first);
  return QStringLiteral("θ %1–%2 (a bin: from %3)").arg(first).arg(last - 1).arg(parameter(first));
}

bool PatternHover::anyIn(const snap::BitMatrix& pattern, int row, std::int64_t first,
                         std::int64_t last) const {
  const auto& columnOf = m_patterns.parameterColumns();
  for (std::int64_t p = first; p < last; ++p)
    if (pattern.test(row, columnOf[std::size_t(p)])) return true;
  return false;
}

QString PatternHover::describe(QPoint pixel) const {
  using Panel = snap::PatternPixel::Panel;
  const snap::PatternPixel at = snap::locatePatternPixel(m_patterns, pixel.x(), pixel.y());
  if (at.panel == Panel::None) return {};
  const QString row = QStringLiteral("row %1 (h %2)").arg(stateUnit(at.row)).arg(at.row);
  if (at.panel == Panel::Dynamics) {
    const bool nonzero = m_patterns.dynamics().test(at.row, at.column);
    return QStringLiteral("D: %1 × column %2 (h %3). Nonzero: %4. Colour group %5 of %6 (D).")
        .arg(row, stateUnit(at.column))
        .arg(at.column)
        .arg(yesNo(nonzero))
        .arg(m_coloursD.colourOfRow[at.row] + 1)
        .arg(m_coloursD.colours);
  }
  const bool inI = anyIn(m_patterns.immediate(), at.row, at.firstParameter, at.lastParameter);
  const bool inMask = anyIn(m_mask, at.row, at.firstParameter, at.lastParameter);
  return QStringLiteral("%1: %2 × %3. In the SnAp mask %4: %5; in I: %6. Colour group %7 of %8.")
      .arg(at.panel == Panel::Immediate ? QStringLiteral("I") : maskName(), row,
           parameters(at.firstParameter, at.lastParameter), maskName(), yesNo(inMask), yesNo(inI))
      .arg(m_coloursI.colourOfRow[at.row] + 1)
      .arg(m_coloursI.colours);
}

}  // namespace rnnwb::ui
