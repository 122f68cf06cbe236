#pragma once
// The op program: a compiled graph as one list of operations per node and region, the single
// intermediate representation that the engines bind (docs/engine.md). The lowering
// (op_lowering.hpp) writes each layer kind's and connection type's forward, backward and
// gradient rule once, as ops; passes (op_passes.hpp) rewrite the program; a binder resolves the
// buffer references to memory and runs the ops (the CPU engine: cpu_op_binder.cpp).
//
// Plain C++17 with no library beyond the standard one, so that device code (.cu) includes it.
#include <cstdint>
#include <vector>

#include "rnnwb/core/layer_types.hpp"

namespace rnnwb::op {

/// The buffers an op reads and writes. Layer buffers are [frames, streams, size] (Value and
/// ValueGrad with the source's carried frames in front); a row is one (frame, stream).
enum class Buffer : std::uint8_t {
  None,
  Value,       // y of layer `index`
  ValueGrad,   // dy of layer `index`
  Sum,         // s of layer `index`: the pre-activation (a sum, or a product of factors)
  SumGrad,     // ds of layer `index`
  Factor,      // z of factor buffer `index`: one connection's term into a multiplicative layer
  FactorGrad,  // dz of factor buffer `index`
  Stack,       // a stacked product's output: columns from `index` of the per-stream workspace
  Bias,        // the bias of layer `index`: one row, the same for every frame and stream
  Zero,        // a row of zeros
};

/// How a reference's rows are found from the rows the op works on. Direct: the row of the same
/// position moved back by the shift. The two others exist only in 2-D graphs and read a source
/// layer on another grid (graph-format-v2.md), through connection `via`:
///   BlockWindow: a block connection's window, [from.size, by, bx] per row (PyTorch's Conv2d
///                column order c, i, l), zeros past the source grid's edge; written back by adding
///                each column into its source row (col2im);
///   RowSum:      a reduce connection's sum over the source's rows of the example at this column;
///                written back by adding the row into every source row of that column.
enum class Route : std::uint8_t { Direct, BlockWindow, RowSum };

/// A row of a buffer: the row of the same stream `shift` frames earlier than the row the op
/// works on (a connection's delay); 0 for the frame itself. In a 2-D graph (the grid engine),
/// the position (x - shift, y - shiftY) of the same example; a position outside the example
/// reads zeros and takes no writes. Shifts of any sign (a negative one reads ahead).
struct Ref {
  Buffer buffer = Buffer::None;
  int index = -1;
  int shift = 0;
  int shiftY = 0;
  Route route = Route::Direct;
  int via = -1;  // the connection whose geometry a BlockWindow or RowSum route follows
  bool operator==(const Ref& other) const {
    return buffer == other.buffer && index == other.index && shift == other.shift &&
           shiftY == other.shiftY && route == other.route && via == other.via;
  }
  bool operator!=(const Ref& other) const { return !(*this == other); }
};

enum class Kind : std::uint8_t {
  // Element-wise, on rows of `units` floats. "0 +" keeps the floats (and a zero's sign) of an
  // add into a cleared row, so a first writer can write instead of adding (passes).
  Fill,                // dst = a (a Bias or Zero row)
  Add,                 // dst += a
  AddScaled,           // dst += w * a (w: `weights`, one per unit)
  Assign,              // dst = 0 + a
  AssignScaled,        // dst = 0 + w * a
  Subtract,            // dst -= a
  AddComplement,       // dst += 1 - a
  AssignComplement,    // dst = 0 + (1 - a)
  AssignNegated,       // dst = 0 - a
  Copy,                // dst = a
  Mul,                 // dst = a * b
  MulInto,             // dst *= a
  MulAdd,              // dst += a * b, a * b rounded first
  MulAssign,           // dst = 0 + a * b, a * b rounded first
  Activate,            // dst = f(a)
  AddActivate,         // dst = f(a + b), or f(a + w * b) with weights; a is left as it was
  ActivateBackward,    // dst = b * f'(y = a); softmax's Jacobian for softmax
  CrossEntropyOnSums,  // dst += a - onehot(the row's class) on the predicted frames
  CtcOnSums,           // dst += d(CTC loss)/d(sums) of the row's example (a: y); the grid engine
  // A product over the rows: dst[rows, units] = beta * dst + a[rows, inner] * W^T (transposed,
  // W [units, inner]) or a * W (W [inner, units]); W at `weights`, leading dimension ldw.
  Product,
  // Parameter gradients, summed over every row of the chunk, into the gradients at `weights`:
  WeightGradient,          // dW[units, inner] += a^T b (a: dz or ds rows, b: source rows)
  DiagonalWeightGradient,  // dw[units] += sum of a * b
  BiasGradient,            // db[units] += sum of a
};

struct Op {
  Kind kind = Kind::Add;
  Activation activation = Activation::Identity;
  int units = 0;  // floats per row of dst (a product's n)
  int inner = 0;  // a product's k
  Ref dst, a, b;
  std::int64_t weights = -1;  // offset into the flat parameters (or gradients), -1: none
  int ldw = 0;
  bool transposeWeights = false;
  float beta = 1.0f;
  int connection = -1;  // the connection whose rule made the op, -1 for a layer's own
  int layer = -1;       // the layer it computes (a connection's target)
  int output = -1;      // CrossEntropyOnSums: the layer's index among the plan's outputs
};

/// How a forward term op carries its source row a into its destination: dst += sign * w * a,
/// with w a weight (`weighted`: the op's weights, or the stacked product it adds the columns of)
/// or 1; `dense`: a product, from every source unit to every destination unit (else unit i to
/// unit i). The SnAp unit graph (core/snap: its edges and their coefficients) is read from this,
/// so a connection type that lowers to these kinds needs nothing of its own there.
struct TermCoefficient {
  float sign = 1.0f;
  bool weighted = false;
  bool dense = false;
};
inline TermCoefficient termCoefficient(const Op& term) {
  switch (term.kind) {
    case Kind::Subtract:
    case Kind::AddComplement:
    case Kind::AssignComplement:
    case Kind::AssignNegated:
      return {-1.0f, false, false};
    case Kind::Product:
      return {1.0f, true, true};
    case Kind::AddScaled:
    case Kind::AssignScaled:
      return {1.0f, true, false};
    default: {  // Add, Assign: a product when it adds a stacked product's columns
      const bool stacked = term.a.buffer == Buffer::Stack;
      return {1.0f, stacked, stacked};
    }
  }
}

/// One node of the schedule. Regions run in this order forward (forwardAll, then forwardStep for
/// each frame) and backward (backwardAll or backwardStep for each frame from the last, then
/// backwardExternal, then gradients). "All" regions run over all rows of the chunk at once;
/// "Step" regions over one frame of a recurrent node.
struct NodeProgram {
  bool recurrent = false;
  bool computes = true;     // false for an input layer: it is loaded, not computed
  std::vector<int> layers;  // the inner order
  std::vector<Op> forwardAll, forwardStep, backwardAll, backwardStep, backwardExternal, gradients;
};

/// A factor buffer: the term of one connection into a multiplicative layer.
struct Factor {
  int connection = -1;
  int units = 0;
  // readIdentityFactorsInPlace: an identity term's z is its source's y itself (no buffer).
  bool readsSource = false;
  Ref source;  // the connection's source rows: Value of its source layer, shifted by its delay
};

struct Program {
  std::vector<NodeProgram> nodes;  // schedule order
  std::vector<Factor> factors;
  int stackWidth = 0;  // per stream: the columns of every stacked product of the widest node
  // Set by the first-writer pass: per layer, which of its dy frames must be zeroed before the
  // backward (-1: all, k: the carried ones and the last k); see op_passes.hpp.
  std::vector<int> gradientClearFrames;
};

}  // namespace rnnwb::op
