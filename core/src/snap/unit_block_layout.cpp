#include "rnnwb/core/snap/unit_block_layout.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "unit_graph.hpp"

namespace rnnwb::snap {
namespace {

/// Builds the layout step by step; the helpers share the node's indices.
class LayoutBuilder {
 public:
  LayoutBuilder(const RtrlNodeLayout& layout, const SnapPatterns& patterns, const NodeStep& step,
                const ParameterLayout& parameters)
      : m_layout(layout),
        m_patterns(patterns),
        m_step(step),
        m_parameters(parameters),
        m_graph(layout.plan().graph()),
        m_reach(detail::stateReach(layout)) {
    m_columnOfUnit.assign(static_cast<std::size_t>(layout.unitCount()), -1);
    for (std::size_t p = 0; p < layout.parameterUnits().size(); ++p)
      m_columnOfUnit[layout.parameterUnits()[p]] = patterns.parameterColumns()[p];
  }

  bool collectSegments(const BitMatrix& mask, int maxRows, UnitBlockLayout& out);
  void colour(UnitBlockLayout& out);
  void collectFactors(UnitBlockLayout& out);
  void collectDynamics(UnitBlockLayout& out);

 private:
  int sourceOf(int connection, UnitBlockLayout& out);
  int blockOf(std::vector<std::int32_t> rows, UnitBlockLayout& out);
  /// Index of the cotangent on the sum that connection c (or the bias, c < 0) enters at unit i
  /// of layer l, in one colour's export.
  int sumIndex(int l, int c, int i) const {
    if (m_graph.layers[l].kind != LayerKind::Multiplicative) return m_step.unitOffset(l) + i;
    return c < 0 ? -1 : m_step.unitCount() + m_step.productOffset(c) + i;
  }
  void addSegment(UnitBlockLayout& out, int unit, int source, int first, int count,
                  std::int64_t gradient, int zIndex);

  const RtrlNodeLayout& m_layout;
  const SnapPatterns& m_patterns;
  const NodeStep& m_step;
  const ParameterLayout& m_parameters;
  const Graph& m_graph;
  BitMatrix m_reach;  // |h| x units: reach(u) ∩ state
  std::vector<std::int32_t> m_columnOfUnit;
  const BitMatrix* m_mask = nullptr;
  std::map<int, int> m_sourceOfConnection;
  std::map<std::vector<std::int32_t>, int> m_blockOfRows;
  std::vector<int> m_unitOfSegment, m_zOfSegment;
  std::int64_t m_theta = 0;
  bool m_tooWide = false;
  int m_maxRows = 0;
};

int LayoutBuilder::sourceOf(int c, UnitBlockLayout& out) {
  auto [it, added] = m_sourceOfConnection.try_emplace(c, static_cast<int>(out.sources.size()));
  if (!added) return it->second;
  const CompiledPlan& plan = m_layout.plan();
  const int from = plan.fromLayer(c);
  UnitBlockSource source;
  if (plan.nodeOfLayer(from) != m_layout.node()) {
    const auto& external = m_step.externalConnections();
    source = {UnitBlockSource::Kind::External,
              static_cast<int>(std::find(external.begin(), external.end(), c) - external.begin())};
  } else if (m_graph.connections[c].delay == 1) {
    source = {UnitBlockSource::Kind::PreviousState, m_step.stateOffset(from)};
  } else {
    source = {UnitBlockSource::Kind::Member, m_step.unitOffset(from)};
  }
  source.size = m_graph.layers[from].size;
  out.sources.push_back(source);
  return it->second;
}

int LayoutBuilder::blockOf(std::vector<std::int32_t> rows, UnitBlockLayout& out) {
  auto [it, added] = m_blockOfRows.try_emplace(rows, static_cast<int>(out.blocks.size()));
  if (!added) return it->second;
  const auto size = static_cast<std::int32_t>(rows.size());
  out.blocks.push_back({static_cast<std::int32_t>(out.rows.size()), size, out.dSize});
  out.rows.insert(out.rows.end(), rows.begin(), rows.end());
  out.dSize += size * size;
  return it->second;
}

void LayoutBuilder::addSegment(UnitBlockLayout& out, int unit, int source, int first, int count,
                               std::int64_t gradient, int zIndex) {
  std::vector<std::int32_t> rows;
  for (int s : m_mask->rowsOf(m_columnOfUnit[unit])) rows.push_back(s);
  m_tooWide = m_tooWide || static_cast<int>(rows.size()) > m_maxRows;
  UnitBlockSegment segment;
  segment.block = blockOf(std::move(rows), out);
  segment.rows = out.blocks[segment.block].rowStart;
  segment.size = out.blocks[segment.block].size;
  segment.dStart = out.blocks[segment.block].dStart;
  segment.source = source;
  segment.first = first;
  segment.count = count;
  segment.gradient = gradient;
  segment.values = out.valueCount;
  segment.theta = m_theta;
  out.valueCount += static_cast<std::int64_t>(out.blocks[segment.block].size) * count;
  m_theta += count;
  out.segments.push_back(segment);
  m_unitOfSegment.push_back(unit);
  m_zOfSegment.push_back(zIndex);
}

bool LayoutBuilder::collectSegments(const BitMatrix& mask, int maxRows, UnitBlockLayout& out) {
  m_mask = &mask;
  m_maxRows = std::min(maxRows, kUnitBlockMaxRows);
  const CompiledPlan& plan = m_layout.plan();
  for (const ParameterBlock& block : m_layout.parameterBlocks()) {
    if (block.kind == ParameterBlock::Kind::Bias) {
      const int l = block.index, unit0 = m_layout.unitOffset(l);
      const auto base = static_cast<std::int64_t>(m_parameters.layerBias(l)->offset);
      for (int i = 0; i < m_graph.layers[l].size; ++i)
        addSegment(out, unit0 + i, -1, 0, 1, base + i, sumIndex(l, -1, i));
      continue;
    }
    const int c = block.index, l = plan.toLayer(c), unit0 = m_layout.unitOffset(l);
    const int source = sourceOf(c, out);
    const auto base = static_cast<std::int64_t>(m_parameters.connectionWeight(c)->offset);
    const int rows = m_graph.layers[l].size;
    if (!m_layout.term(c).dense) {
      for (int i = 0; i < rows; ++i)
        addSegment(out, unit0 + i, source, i, 1, base + i, sumIndex(l, c, i));
      continue;
    }
    const int cols = m_graph.layers[plan.fromLayer(c)].size;
    const auto& weightMask = m_layout.weightMask(c);
    for (int i = 0; i < rows; ++i) {
      const auto row = static_cast<std::size_t>(i) * cols;
      const int count = static_cast<int>(
          std::count(weightMask.begin() + row, weightMask.begin() + row + cols, 1));
      if (count == 0) continue;
      addSegment(out, unit0 + i, source, 0, count, base + static_cast<std::int64_t>(row),
                 sumIndex(l, c, i));
      if (count == cols) continue;
      out.segments.back().columns = static_cast<std::int64_t>(out.columnIndex.size());
      for (int j = 0; j < cols; ++j)
        if (weightMask[row + j]) out.columnIndex.push_back(j);
    }
  }
  return !m_tooWide && m_theta == m_layout.parameterCount();
}

void LayoutBuilder::colour(UnitBlockLayout& out) {
  // The cotangents read: of every parameter unit (I) and of every unit a delayed connection
  // inside the node reaches (D). Rows sharing any of these units get different colours.
  std::vector<int> units(m_unitOfSegment.begin(), m_unitOfSegment.end());
  const CompiledPlan& plan = m_layout.plan();
  for (int c = 0; c < static_cast<int>(m_graph.connections.size()); ++c)
    if (m_layout.isInternal(c) && m_graph.connections[c].delay == 1)
      for (int i = 0; i < m_graph.layers[plan.toLayer(c)].size; ++i)
        units.push_back(m_layout.unitOffset(plan.toLayer(c)) + i);
  std::sort(units.begin(), units.end());
  units.erase(std::unique(units.begin(), units.end()), units.end());
  BitMatrix read(m_layout.stateSize(), static_cast<int>(units.size()));
  for (std::size_t k = 0; k < units.size(); ++k)
    read.orColumn(static_cast<int>(k), m_reach, units[k]);
  out.colouring = colourRows(read);
  out.unitCount = m_step.unitCount();
  out.exportSize = m_step.unitCount() + m_step.productCount();
}

void LayoutBuilder::collectFactors(UnitBlockLayout& out) {
  // I_t[s, p] = δ[s, z(p)] x(p) for s in reach(unit of p); 0 on the rows M_n adds.
  for (std::size_t k = 0; k < out.segments.size(); ++k) {
    UnitBlockSegment& segment = out.segments[k];
    const UnitBlockRows& block = out.blocks[segment.block];
    segment.factors = static_cast<std::int32_t>(out.factorIndex.size());
    for (int r = 0; r < block.size; ++r) {
      const int s = out.rows[block.rowStart + r], z = m_zOfSegment[k];
      const bool reached = z >= 0 && m_reach.test(s, m_unitOfSegment[k]);
      out.factorIndex.push_back(reached ? out.colouring.colourOfRow[s] * out.exportSize + z : -1);
    }
  }
}

void LayoutBuilder::collectDynamics(UnitBlockLayout& out) {
  const int h = m_layout.stateSize();
  std::unordered_map<std::int64_t, std::int32_t> pairOf;
  out.pairOfEntry.assign(static_cast<std::size_t>(out.dSize), -1);
  std::vector<std::vector<std::int32_t>> entriesOfPair;
  for (const UnitBlockRows& block : out.blocks)
    for (int r = 0; r < block.size; ++r)
      for (int q = 0; q < block.size; ++q) {
        const std::int64_t key =
            std::int64_t{out.rows[block.rowStart + r]} * h + out.rows[block.rowStart + q];
        auto [it, added] = pairOf.try_emplace(key, static_cast<std::int32_t>(pairOf.size()));
        out.pairOfEntry[block.dStart + r * block.size + q] = it->second;
      }
  struct Term {
    std::int32_t pair, exportIndex;
    std::int64_t weight;
    float sign;
  };
  std::vector<Term> terms;
  const CompiledPlan& plan = m_layout.plan();
  for (int c = 0; c < static_cast<int>(m_graph.connections.size()); ++c) {
    if (!m_layout.isInternal(c) || m_graph.connections[c].delay != 1) continue;
    const int l = plan.toLayer(c), from = plan.fromLayer(c);
    const int fromOffset = m_layout.stateOffset(from), cols = m_graph.layers[from].size;
    const ParameterView* weight = m_parameters.connectionWeight(c);
    const op::TermCoefficient& term = m_layout.term(c);
    detail::forEachUnitEdge(m_layout, c, [&](int j, int i) {
      const int z = sumIndex(l, c, i);
      std::int64_t w = -1;  // a product's weight has a row per unit; a diagonal one, an entry
      if (term.weighted)
        w = static_cast<std::int64_t>(weight->offset) +
            (term.dense ? std::int64_t{i} * cols + j : i);
      for (int s : m_reach.rowsOf(m_layout.unitOffset(l) + i)) {
        auto it = pairOf.find(std::int64_t{s} * h + fromOffset + j);
        if (it != pairOf.end())
          terms.push_back(
              {it->second, out.colouring.colourOfRow[s] * out.exportSize + z, w, term.sign});
      }
    });
  }
  std::stable_sort(terms.begin(), terms.end(),
                   [](const Term& a, const Term& b) { return a.pair < b.pair; });
  out.termStart.assign(pairOf.size() + 1, 0);
  for (const Term& t : terms) {
    ++out.termStart[t.pair + 1];
    out.termExport.push_back(t.exportIndex);
    out.termWeight.push_back(t.weight);
    out.termSign.push_back(t.sign);
  }
  std::partial_sum(out.termStart.begin(), out.termStart.end(), out.termStart.begin());
}

}  // namespace

std::optional<UnitBlockLayout> UnitBlockLayout::build(const RtrlNodeLayout& layout,
                                                      const SnapPatterns& patterns, int snapLevel,
                                                      const NodeStep& step,
                                                      const ParameterLayout& parameters,
                                                      int maxRows) {
  const BitMatrix mask = snapLevel == 0 ? patterns.exactMask() : patterns.mask(snapLevel);
  UnitBlockLayout out;
  out.stateSize = layout.stateSize();
  out.parameterCount = layout.parameterCount();
  LayoutBuilder builder(layout, patterns, step, parameters);
  if (!builder.collectSegments(mask, maxRows, out)) return std::nullopt;
  builder.colour(out);
  builder.collectFactors(out);
  builder.collectDynamics(out);
  return out;
}

}  // namespace rnnwb::snap
