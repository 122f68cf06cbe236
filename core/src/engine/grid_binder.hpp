#pragma once
// The grid engine's binder of the op program (op_program.hpp): it runs a region's ops over a
// range of a node's rows (grid_rows.hpp). A reference whose rows are not the op's own rows (a
// delay, a source stored in another node's order, a block's window, a reduce's sum over the
// rows) goes through a row map: its rows are gathered into scratch before the op, zeros where a
// position lies outside the example; a destination so referenced is computed into zeroed
// scratch and added back into its rows after (only the backward's adds write there). So no value
// crosses from one example into another, whatever the delay.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "grid_rows.hpp"
#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/engine/op_program.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb::grid {

/// Floats whose contents a resize leaves undefined and whose memory it keeps: every buffer of
/// the binder is written before it is read, so neither a memset nor fresh pages are paid per
/// batch (a std::vector zeroes what it grows by).
class RowBuffer {
 public:
  void resize(std::size_t n) {
    if (n > m_capacity) {
      m_capacity = n + n / 4;  // room for the next batch's few more rows
      m_data.reset(new float[m_capacity]);
    }
    m_size = n;
  }
  float* data() { return m_data.get(); }
  const float* data() const { return m_data.get(); }
  float* begin() { return data(); }
  float* end() { return data() + m_size; }
  std::size_t size() const { return m_size; }
  std::size_t capacity() const { return m_capacity; }
  float& operator[](std::size_t i) { return m_data[i]; }
  float operator[](std::size_t i) const { return m_data[i]; }

 private:
  std::unique_ptr<float[]> m_data;
  std::size_t m_size = 0, m_capacity = 0;
};

/// A layer's rows in its node's order: y, s (when it is not y), their gradients, and, for an
/// output layer with cross_entropy or ctc, the loss's gradient with respect to s.
struct LayerBuffers {
  int size = 0;
  RowBuffer y, dy, s, ds, lossGrad;
};

/// What one lane (grid_lanes.hpp) writes besides the layers' and factors' rows: the step's
/// stack and the gather scratch. Lane 0 is the calling thread's; nodes that run at once each run
/// on a lane of their own, so no two threads share one.
struct LaneScratch {
  RowBuffer stack, scratchA, scratchB, scratchDst;
  // The values gathered by the current run of a region, one per reference: a delayed source
  // read by several ops of a step (c at [1, 0] by the lambda product and two peepholes) is
  // gathered once. Values are not written by the rows a gather reads (earlier wavefronts,
  // earlier nodes), so an entry stays right for the whole run.
  std::vector<std::pair<op::Ref, RowBuffer>> gathered;
  std::size_t gatheredCount = 0;
};

/// The buffers of a batch, kept between batches by the engine so that the next batch of about
/// the same size reuses their memory (no fresh pages to fault in and clear on every update).
struct GridWorkspace {
  std::vector<LayerBuffers> layers;
  std::vector<RowBuffer> factors, factorGrads;
  std::vector<LaneScratch> lanes;  // at least one
  std::vector<float> zeros;
};

/// Whether an op of node `node` reads or writes `ref` in its own rows (no row map: the same
/// layer's node, no shift, no block window or row sum). Non-layer buffers are always their own.
bool readsOwnRows(const op::Ref& ref, int node, const GridRows& rows);

/// The source rows a row map of `ref` lists for the rows of `node` (a block window: bx * by per
/// row; a row sum: the column's rows of the source).
std::size_t rowMapSources(const op::Ref& ref, const NodeRows& node, const GridRows& rows,
                          const CompiledPlan& plan);

/// The grid engine's program: the lowering's, with the passes that drop buffers and keep the
/// floats (op_passes.hpp): identity factors read their sources in place (no z), and an identity
/// factor of a two-factor product inside a node adds into its source's dy without a dz. In the
/// recogniser's Leaky LP cell that is 12 of its 14 factors' z and dz, a third of a batch's bytes.
op::Program gridProgram(const CompiledPlan& plan, const ParameterLayout& layout,
                        const op::LoweringOptions& options = {});

/// The floats GridBinder's constructor sizes the per-row buffers to for a batch in `rows`' order
/// (y and dy, s and ds, z and dz: a factor read in place has no z, and one whose gradient goes
/// straight into its source's dy no dz), and the step's stack.
struct BufferFloats {
  struct Layer {
    std::size_t values = 0, sums = 0, lossGrad = 0;
  };
  std::vector<Layer> layers;
  std::vector<std::size_t> factors, factorGrads;
  std::size_t stack = 0;
  int widest = 1;  // the widest layer (the zeros a bias-free read gets)
};
BufferFloats bufferFloats(const CompiledPlan& plan, const op::Program& program,
                          const GridRows& rows);

/// The most floats each scratch buffer of GridWorkspace takes while forwardBackward runs on a
/// batch in `rows`' order, and the ints of the row maps it builds: what GridBinder::run resizes
/// them to, found by walking the program's regions with the same rules as the binder's reads.
struct ScratchFloats {
  std::vector<std::size_t> gathered;  // per slot of GridWorkspace::gathered
  std::size_t a = 0, b = 0, dst = 0;
  std::uint64_t mapInts = 0;
};
ScratchFloats scratchFloats(const CompiledPlan& plan, const op::Program& program,
                            const GridRows& rows);

class GridBinder {
 public:
  /// Sizes the workspace's buffers for the batch in `rows`' order, with `lanes` lanes (>= 1).
  GridBinder(const CompiledPlan& plan, const op::Program& program, const GridRows& rows,
             const ParameterSet& parameters, GridWorkspace& workspace, int lanes = 1);

  LayerBuffers& layer(int l) { return m_layers[l]; }
  const LayerBuffers& layer(int l) const { return m_layers[l]; }
  /// Zeroes what a backward adds into before it is written (dy).
  void clearGradients();
  /// Runs `ops` of node `node` on its rows [first, first + count), with the scratch of lane
  /// `lane`. Parameter gradients add into `gradients` (laid out like the parameters) when it is
  /// given. Runs on different lanes may go at once when their nodes touch disjoint rows
  /// (grid_lanes.hpp): each node's row maps are its own, built by the one lane running it.
  void run(int node, const std::vector<op::Op>& ops, int first, int count, float* gradients,
           int lane = 0);
  /// The bytes of the row maps built so far (they live as long as the binder).
  std::uint64_t mapBytes() const;

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
  using MapKey = std::tuple<int, int, int, int, int>;  // layer, shifts, route, via

  void runOp(const op::Op& op, int node, int first, int count, float* gradients, LaneScratch& lane);
  void runElementwise(const op::Op& op, Operand dst, Operand a, Operand b, int count);
  Operand read(const op::Ref& ref, int width, int node, int first, int count, RowBuffer& scratch,
               LaneScratch& lane);
  bool isDirect(const op::Ref& ref, int node) const;
  Operand ownRows(const op::Ref& ref, int first, LaneScratch& lane);
  RowBuffer& buffer(const op::Ref& ref);
  int rowWidth(const op::Ref& ref) const;
  const RowMap& map(const op::Ref& ref, int node);
  void gather(const RowMap& map, const op::Ref& ref, int first, int count, float* out);
  void scatterAdd(const RowMap& map, const op::Ref& ref, int first, int count, const float* in);

  const CompiledPlan& m_plan;
  const op::Program& m_program;
  const GridRows& m_rows;
  const ParameterSet& m_parameters;
  std::vector<LayerBuffers>& m_layers;
  std::vector<RowBuffer>&m_factors, &m_factorGrads;
  std::vector<float>& m_zeros;
  GridWorkspace& m_workspace;
  std::vector<std::map<MapKey, RowMap>> m_maps;  // per node
};

}  // namespace rnnwb::grid
