#pragma once
// Colouring of the rows of a sparse pattern (spec/snap-masks.md, "Colouring"): rows that share a
// column get different colours, so one vector-Jacobian product per colour recovers every nonzero.
#include <vector>

#include "rnnwb/core/snap/bit_matrix.hpp"

namespace rnnwb::snap {

struct RowColouring {
  std::vector<int> colourOfRow;  // one per row, in [0, colours)
  int colours = 0;               // 0 for an empty pattern
};

/// Smallest-last ordering and sequential colouring (Boost.Graph) of the row-intersection graph
/// of `pattern` (rows adjacent iff they share a column). The result is validated before it is
/// returned. Rows without any nonzero get colour 0.
RowColouring colourRows(const BitMatrix& pattern);

/// Throws std::logic_error naming two rows of one colour and the column they share, or a row
/// whose colour is out of range.
void validateRowColouring(const BitMatrix& pattern, const RowColouring& colouring);

}  // namespace rnnwb::snap
