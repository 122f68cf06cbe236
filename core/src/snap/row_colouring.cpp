#include "rnnwb/core/snap/row_colouring.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/sequential_vertex_coloring.hpp>
#include <boost/graph/smallest_last_ordering.hpp>

namespace rnnwb::snap {
namespace {

using RowGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

/// Columns with equal bits give equal cliques: keep one of each.
std::vector<int> distinctColumns(const BitMatrix& pattern) {
  std::vector<int> columns(static_cast<std::size_t>(pattern.columns()));
  std::iota(columns.begin(), columns.end(), 0);
  const int words = pattern.words();
  auto less = [&](int a, int b) {
    return std::lexicographical_compare(pattern.word(a), pattern.word(a) + words, pattern.word(b),
                                        pattern.word(b) + words);
  };
  auto equal = [&](int a, int b) {
    return std::equal(pattern.word(a), pattern.word(a) + words, pattern.word(b));
  };
  std::sort(columns.begin(), columns.end(), less);
  columns.erase(std::unique(columns.begin(), columns.end(), equal), columns.end());
  return columns;
}

/// Row-intersection graph: rows adjacent iff some column holds both.
RowGraph rowIntersectionGraph(const BitMatrix& pattern, bool& anyEntry) {
  const int rows = pattern.rows();
  BitMatrix adjacent(rows, rows);  // column r: the rows sharing a column with row r
  anyEntry = false;
  for (int col : distinctColumns(pattern))
    for (int r : pattern.rowsOf(col)) {
      adjacent.orColumn(r, pattern, col);
      anyEntry = true;
    }
  RowGraph graph(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r)
    for (int other : adjacent.rowsOf(r))
      if (other > r) boost::add_edge(r, other, graph);
  return graph;
}

}  // namespace

RowColouring colourRows(const BitMatrix& pattern) {
  bool anyEntry = false;
  const RowGraph graph = rowIntersectionGraph(pattern, anyEntry);
  const std::size_t n = boost::num_vertices(graph);
  RowColouring result;
  result.colourOfRow.assign(n, 0);
  if (!anyEntry) return result;

  using Vertex = boost::graph_traits<RowGraph>::vertex_descriptor;
  const auto index = boost::get(boost::vertex_index, graph);
  std::vector<Vertex> order(n);
  std::vector<std::size_t> degree(n), marker(n), colour(n);
  boost::smallest_last_vertex_ordering(
      graph, boost::make_iterator_property_map(order.begin(), boost::identity_property_map()),
      boost::make_iterator_property_map(degree.begin(), index),
      boost::make_iterator_property_map(marker.begin(), index));
  const std::size_t colours = boost::sequential_vertex_coloring(
      graph, boost::make_iterator_property_map(order.begin(), boost::identity_property_map()),
      boost::make_iterator_property_map(colour.begin(), index));
  result.colours = static_cast<int>(colours);
  for (std::size_t r = 0; r < n; ++r) result.colourOfRow[r] = static_cast<int>(colour[r]);
  validateRowColouring(pattern, result);
  return result;
}

void validateRowColouring(const BitMatrix& pattern, const RowColouring& colouring) {
  if (static_cast<int>(colouring.colourOfRow.size()) != pattern.rows())
    throw std::logic_error("row colouring: " + std::to_string(colouring.colourOfRow.size()) +
                           " colours for " + std::to_string(pattern.rows()) + " rows");
  std::vector<int> rowOfColour(static_cast<std::size_t>(std::max(colouring.colours, 0)));
  std::vector<int> stamp(rowOfColour.size(), -1);
  for (int col = 0; col < pattern.columns(); ++col)
    for (int r : pattern.rowsOf(col)) {
      const int c = colouring.colourOfRow[r];
      if (c < 0 || c >= colouring.colours)
        throw std::logic_error("row colouring: row " + std::to_string(r) + " has colour " +
                               std::to_string(c) + " of " + std::to_string(colouring.colours));
      if (stamp[c] == col)
        throw std::logic_error("row colouring: rows " + std::to_string(rowOfColour[c]) + " and " +
                               std::to_string(r) + " share column " + std::to_string(col) +
                               " and colour " + std::to_string(c));
      stamp[c] = col;
      rowOfColour[c] = r;
    }
}

}  // namespace rnnwb::snap
