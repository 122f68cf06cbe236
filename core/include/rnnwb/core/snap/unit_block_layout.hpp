#pragma once
// SnAp's Ĵ of one recurrent node arranged by the unit each parameter acts on (the fast path of
// UnitBlockJacobian). Every parameter acting on unit u has the same column R(u) in M_n (the state
// rows u reaches in n steps), so the update Ĵ[R, p] = (D_t Ĵ)[R, p] + I_t[R, p] needs only the
// block D_t[R, R], and I_t[s, p] = δ[s, z(p)] · x(p): the cotangent of h_s on the sum z that p
// enters (s_l[i] of an additive layer, the connection's z[i] of a multiplicative one) times the
// source value p multiplies (1 for a bias). This layout is derived from the node's patterns alone
// (no network is special-cased) and is built only where every |R(u)| is small.
//
// Storage of Ĵ: one *segment* per (unit, connection) or (unit, bias), in θ_R order: the
// parameters of a row W_m[i, :] (existing weights only), one diagonal weight, or one bias; each
// segment keeps |R| x count floats, row-major (row r of R, then the parameters), so the update
// reads every row contiguously.
#include <cstdint>
#include <optional>
#include <vector>

#include "rnnwb/core/engine/node_step.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/snap/row_colouring.hpp"
#include "rnnwb/core/snap/rtrl_node_layout.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"

namespace rnnwb::snap {

/// The widest row set the unit-block path takes: beyond it D_t[R, R] is no longer a small block.
inline constexpr int kUnitBlockMaxRows = 16;

/// Where the source values of a connection into the node are, within one frame.
struct UnitBlockSource {
  enum class Kind { External, PreviousState, Member };
  Kind kind = Kind::External;
  int index = 0;  // NodeStep external index, offset in h_{t-1}, or unit offset in Tape::y
  int size = 0;   // floats: the source layer's size
};

/// count parameters acting on one unit, sharing one source vector and one row set R.
struct UnitBlockSegment {
  std::int32_t block = 0;    // its row set R, an index into UnitBlockLayout::blocks
  std::int32_t source = -1;  // into UnitBlockLayout::sources; -1 for a bias (x = 1)
  std::int32_t first = 0;    // element of the source read by the first column (contiguous rows)
  std::int32_t count = 0;
  std::int64_t columns = -1;  // into columnIndex: each column's source element; -1: contiguous
  std::int64_t gradient = 0;  // flat offset of the first parameter (masked row: of W[i, 0])
  std::int64_t values = 0;    // offset of its |R| x count values in Ĵ's storage
  std::int64_t theta = 0;     // θ_R index of its first parameter
  std::int32_t factors = 0;   // into factorIndex: one per row of R
  // Copied from its block, so that the pass over Ĵ reads one record per segment.
  std::int32_t rows = 0;    // into UnitBlockLayout::rows
  std::int32_t size = 0;    // |R|
  std::int32_t dStart = 0;  // its D_t[R, R] block
};

/// A distinct row set R with the entries of D_t[R, R] it needs.
struct UnitBlockRows {
  std::int32_t rowStart = 0;  // into rows; the set is rows[rowStart .. rowStart + size)
  std::int32_t size = 0;
  std::int32_t dStart = 0;  // its size x size block of D_t, in pairOfEntry / the D buffer
};

struct UnitBlockLayout {
  /// The layout for SnAp-`snapLevel` (0: M_∞) of the node, or nothing when some |R(u)| exceeds
  /// maxRows (at most kUnitBlockMaxRows; wider, the general masked product is as good).
  static std::optional<UnitBlockLayout> build(const RtrlNodeLayout& layout,
                                              const SnapPatterns& patterns, int snapLevel,
                                              const NodeStep& step,
                                              const ParameterLayout& parameters, int maxRows);

  int stateSize = 0;
  std::int64_t parameterCount = 0;
  std::int64_t valueCount = 0;  // Σ |R| x count = nnz(M_n)
  std::vector<UnitBlockSource> sources;
  std::vector<UnitBlockSegment> segments;
  std::vector<std::int32_t> columnIndex;
  std::vector<UnitBlockRows> blocks;
  std::vector<std::int32_t> rows;  // state rows of every block, ascending within a block
  std::int32_t dSize = 0;          // Σ |R|² over the blocks

  /// The cotangents of one frame's VJPs, one per colour: colours x exportSize floats, Tape::s
  /// layout (unitCount) then Tape::z (productCount). Rows of one colour never share a unit
  /// whose cotangent is read, so each read value is ∂h_s/∂z for exactly one s.
  RowColouring colouring;
  int unitCount = 0;
  int exportSize = 0;
  std::vector<std::int32_t> factorIndex;  // per segment row: export index of δ[s, z], or -1: 0

  /// D_t[s, s'] for every needed pair: Σ over terms of export[e] · sign · (weight w, or 1 when
  /// w < 0), sign and weight as the op program's term op reads its source (termCoefficient);
  /// a delayed connection carries s' to a unit z whose cotangent from s is export[e].
  std::vector<std::int32_t> pairOfEntry;  // per D-block entry: its pair, or -1 (structural 0)
  std::vector<std::int32_t> termStart;    // pairs + 1
  std::vector<std::int32_t> termExport;
  std::vector<std::int64_t> termWeight;  // flat offset of the weight, -1: none (coefficient 1)
  std::vector<float> termSign;           // +1, or -1 for a complement
};

}  // namespace rnnwb::snap
