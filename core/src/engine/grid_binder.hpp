#pragma once
// The grid engine's binder of the op program (op_program.hpp): it runs a region's ops over a
// range of a node's rows (grid_rows.hpp). A reference whose rows are not the op's own rows (a
// delay, a source stored in another node's order, a block's window, a reduce's sum over the
// rows) goes through a row map: its rows are gathered into scratch before the op, zeros where a
// position lies outside the example; a destination so referenced is computed into zeroed
// scratch and added back into its rows after (only the backward's adds write there). So no value
// crosses from one example into another, whatever the delay.
#include <map>
#include <tuple>
#include <vector>

#include "grid_rows.hpp"
#include "rnnwb/core/engine/op_program.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb::grid {

/// A layer's rows in its node's order: y, s (when it is not y), their gradients, and, for an
/// output layer with cross_entropy or ctc, the loss's gradient with respect to s.
struct LayerBuffers {
  int size = 0;
  std::vector<float> y, dy, s, ds, lossGrad;
};

/// The buffers of a batch, kept between batches by the engine so that the next batch of about
/// the same size reuses their memory (no fresh pages to fault in and clear on every update).
struct GridWorkspace {
  std::vector<LayerBuffers> layers;
  std::vector<std::vector<float>> factors, factorGrads;
  std::vector<float> stack, zeros, scratchA, scratchB, scratchDst;
};

class GridBinder {
 public:
  GridBinder(const CompiledPlan& plan, const op::Program& program, const GridRows& rows,
             const ParameterSet& parameters, GridWorkspace& workspace);

  LayerBuffers& layer(int l) { return m_layers[l]; }
  const LayerBuffers& layer(int l) const { return m_layers[l]; }
  /// Zeroes every gradient buffer (before a backward).
  void clearGradients();
  /// Runs `ops` of node `node` on its rows [first, first + count). Parameter gradients add into
  /// `gradients` (laid out like the parameters) when it is given.
  void run(int node, const std::vector<op::Op>& ops, int first, int count, float* gradients);

 private:
  struct Operand {
    float* base = nullptr;
    std::ptrdiff_t ld = 0;
  };
  /// Sources of each row of a node's rows: `perRow` per row (Direct: 1, BlockWindow: by * bx),
  /// or a list per row (RowSum: offsets[r] .. offsets[r + 1]); -1: outside the example.
  struct RowMap {
    int perRow = 1;
    std::vector<int> sources, offsets;
  };
  using MapKey = std::tuple<int, int, int, int, int, int>;  // node, layer, shifts, route, via

  void runOp(const op::Op& op, int node, int first, int count, float* gradients);
  void runElementwise(const op::Op& op, Operand dst, Operand a, Operand b, int count);
  Operand read(const op::Ref& ref, int width, int node, int first, int count,
               std::vector<float>& scratch);
  bool isDirect(const op::Ref& ref, int node) const;
  Operand ownRows(const op::Ref& ref, int first);
  std::vector<float>& buffer(const op::Ref& ref);
  int rowWidth(const op::Ref& ref) const;
  const RowMap& map(const op::Ref& ref, int node);
  void gather(const RowMap& map, const op::Ref& ref, int first, int count, float* out);
  void scatterAdd(const RowMap& map, const op::Ref& ref, int first, int count, const float* in);

  const CompiledPlan& m_plan;
  const op::Program& m_program;
  const GridRows& m_rows;
  const ParameterSet& m_parameters;
  std::vector<LayerBuffers>& m_layers;
  std::vector<std::vector<float>>&m_factors, &m_factorGrads;
  std::vector<float>&m_stack, &m_zeros;
  std::vector<float>&m_scratchA, &m_scratchB, &m_scratchDst;
  std::map<MapKey, RowMap> m_maps;
};

}  // namespace rnnwb::grid
