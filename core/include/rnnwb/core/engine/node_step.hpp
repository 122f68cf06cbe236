#pragma once
// One frame of one node of a CompiledPlan for ONE stream, with its vector-Jacobian product and
// its state Jacobian: the one-step API that RTRL / SnAp (core/snap) build on. It interprets the
// node's regions of the op program (op_program.hpp, as the lowering makes it, before the CPU
// engine's passes) for a single frame of a single stream: forward with the engine's element-wise
// kernels, the VJP through the backward regions, and D_t by one tangent rule per op kind. So the
// quantities RTRL needs are read without touching the chunked engine, from the same rules:
//
//   h_t = F(h_{t-1}, x_t; θ)       x_t: the sources of the node's connections from outside it
//   vjp:  (v on y_t) -> vᵀ ∂y_t/∂θ, vᵀ ∂y_t/∂h_{t-1}, vᵀ ∂y_t/∂x_t
//   stateJacobian: D_t = ∂h_t/∂h_{t-1}, |h| x |h|, by forward-mode propagation from the identity
//
// The node may be recurrent (every delayed connection inside it must have delay 1: h_{t-1} is
// then the state) or plain (no state). The state h is the activations of the *state layers*
// (sources of a delayed connection inside the node) concatenated in file order, as in
// spec/snap-masks.md. Parameters are read from and gradients written to the flat buffer of a
// ParameterSet of the plan (global offsets), so θ keeps its one layout everywhere.
//
// Thread safety: const member functions may run concurrently on distinct tapes.
#include <span>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/op_program.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb {

class NodeStep {
 public:
  /// Everything one forward leaves for the VJP and the state Jacobian. Per member layer (file
  /// order, unitOffset()): s (pre-activation) and y; per connection into a multiplicative layer
  /// of the node: its z. Sized by NodeStep::makeTape.
  struct Tape {
    std::vector<float> s, y, z;
    std::vector<float> stack;  // the workspace of the node's stacked products
  };

  /// `node` indexes plan.nodes(); an input layer is refused (it has nothing to compute), and so
  /// is a delayed connection inside the node with delay > 1 (std::invalid_argument naming it).
  /// The plan and the layout must outlive the step.
  NodeStep(const CompiledPlan& plan, const ParameterLayout& layout, int node);

  int node() const { return m_node; }
  /// Member layers in file order (the unit layout of a Tape) and in the inner (compute) order.
  const std::vector<int>& layers() const { return m_layers; }
  const std::vector<int>& innerOrder() const { return m_inner; }
  int unitCount() const { return m_unitCount; }
  /// Offset of layer l's units in Tape::s / Tape::y, or -1 when l is not a member.
  int unitOffset(int layer) const;

  /// Connections from outside the node, in the order of the `external` arguments below; the
  /// caller passes y of the source layer at frame t - delay (source size floats).
  const std::vector<int>& externalConnections() const { return m_external; }
  /// State layers in file order and their offsets in h; |h| (0 for a plain node).
  const std::vector<int>& stateLayers() const { return m_stateLayers; }
  int stateOffset(int layer) const;
  int stateSize() const { return m_stateSize; }

  /// Offset of a connection's z in Tape::z (and Cotangents::products), or -1 when its destination
  /// is not a multiplicative member layer; productCount() floats in all.
  int productOffset(int connection) const;
  int productCount() const { return m_zCount; }

  Tape makeTape() const;
  /// Forward of one frame. external[i]: source values of externalConnections()[i]; prevState:
  /// h_{t-1} (|h| floats). Fills the tape; y of every member layer is then in tape.y.
  void forward(const ParameterSet& params, std::span<const float* const> external,
               std::span<const float> prevState, Tape& tape) const;
  /// Copies h_t (the state layers' y) out of a tape (|h| floats).
  void readState(const Tape& tape, std::span<float> state) const;

  /// Where a VJP writes; each may be empty / null to skip it. All are ACCUMULATED into.
  struct Cotangents {
    std::span<float> params = {};           // the flat gradient buffer (params.size())
    std::span<float> prevState = {};        // |h|
    std::span<float* const> external = {};  // one per external connection (null: skip)
    // The cotangent on each member unit's pre-activation s (unitCount() floats, Tape layout,
    // cross-entropy's vOnSums included) and on each connection into a multiplicative layer (its z,
    // productCount() floats at productOffset()): the factors of ∂y/∂θ, since a weight W[i, j]
    // of a connection into layer l enters only through z[i] (s[i] for an additive l).
    std::span<float> sums = {};
    std::span<float> products = {};
  };
  /// v on y_t of every member unit (unitCount() floats, Tape layout; zero where nothing reads)
  /// back through the frame: vᵀ∂y/∂θ into out.params (masked weights get 0), vᵀ∂y/∂h_{t-1}
  /// into out.prevState, vᵀ∂y/∂x into out.external. `vOnSums`, when not empty (unitCount()
  /// floats), is a cotangent on the pre-activations s added after the activation's backward
  /// (cross-entropy's y − onehot, as the engine adds it). `scratch` is resized as needed.
  void vjp(const ParameterSet& params, std::span<const float* const> external,
           std::span<const float> prevState, const Tape& tape, std::span<const float> v,
           const Cotangents& out, std::vector<float>& scratch,
           std::span<const float> vOnSums = {}) const;

  /// D_t = ∂h_t/∂h_{t-1}, |h| x |h| row-major, into d. Forward-mode from the identity: delayed
  /// connections place their weights (no product), delay-0 ones inside the node multiply the
  /// tangents, so a tanh RNN costs O(|h|²) and an LSTM O(|h|²) too (its inner connections are
  /// diagonal or identity). `scratch` holds the tangents of every member layer.
  void stateJacobian(const ParameterSet& params, const Tape& tape, std::span<float> d,
                     std::vector<float>& scratch) const;

 private:
  /// The rows of one interpretation: where each buffer reference of the node's ops points.
  struct Frame {
    const float* params = nullptr;
    const float* zeros = nullptr;
    std::span<const float* const> external;  // per external connection
    std::span<const float> prevState;
    float *y = nullptr, *s = nullptr, *z = nullptr, *stack = nullptr;
    float *dy = nullptr, *ds = nullptr, *dz = nullptr;  // cotangents (vjp)
    std::span<float> prevStateGrad;
    std::span<float* const> externalGrad;
  };
  /// Where an op's operand lies in a frame, worked out once (the constructor): one of Frame's
  /// rows, at an offset (for External and ExternalGrad: the index of the external argument).
  struct Slot {
    enum class Where : std::uint8_t {
      None,
      Y,
      S,
      Z,
      Stack,
      Dy,
      Ds,
      Dz,
      PrevState,
      PrevStateGrad,
      External,
      ExternalGrad,
      Params,
      Zeros
    };
    Where where = Where::None;
    int offset = 0;
  };
  /// An op of the node's program with its operands' slots (dst, a, b).
  struct BoundOp {
    op::Op op;
    Slot dst, a, b;
  };
  Slot slotOf(const op::Ref& ref, const op::Op& op) const;
  std::vector<BoundOp> bindOps(const std::vector<op::Op>& ops) const;
  /// The row a slot names in this frame, or null (a cotangent not asked for).
  static float* rowOf(const Slot& slot, const Frame& frame);
  /// Runs one op on one row: element-wise through the engine's kernels, a product as sgemv.
  static void runOp(const BoundOp& bound, const Frame& frame);
  void checkInputs(std::span<const float* const> external, std::span<const float> prevState) const;

  const CompiledPlan& m_plan;
  const ParameterLayout& m_layout;
  int m_node;
  std::vector<int> m_layers, m_inner, m_external, m_stateLayers;
  std::vector<int> m_unitOffset, m_stateOffset;  // per graph layer, -1 outside
  std::vector<int> m_productOffset;              // per connection, -1 outside
  std::vector<int> m_factorOffset;               // per factor of the program, -1 outside
  std::vector<int> m_externalIndex;              // per connection: its external argument, or -1
  int m_unitCount = 0, m_stateSize = 0, m_zCount = 0, m_widest = 0, m_stackWidth = 0;
  // The node's ops, from its regions: forward, backward (its step or plain region, then its
  // external connections'), and the parameter gradients.
  std::vector<BoundOp> m_forward, m_backward, m_gradients;
  std::vector<float> m_zeros;  // a Zero row, as wide as the widest member
};

}  // namespace rnnwb
