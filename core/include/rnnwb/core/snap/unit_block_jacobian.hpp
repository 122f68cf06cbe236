#pragma once
// SnAp-n's Ĵ_t = M_n ⊙ (D_t Ĵ_{t-1}) + I_t of one recurrent node, by unit blocks
// (unit_block_layout.hpp): the fast path for masks whose columns are short (SnAp-1 of every
// example network). Per frame and stream:
//   prepare(): one VJP of the step per colour (θ skipped) gives the cotangents δ[s, z] that I_t
//              and D_t are made of; the entries of D_t[R, R] each block needs are summed from them
//              (never the dense D_t); they and the frame's source values are queued;
//   commit():  the frame's read-out cotangent g = dL_t/dh_t (or none) joins the queue.
// Nothing of a frame's forward, D_t or I_t depends on Ĵ, so the queued frames are applied
// together: ONE pass over Ĵ per kFramesPerPass frames, each column tile loaded once and advanced
// through the queued frames in order, Ĵ[R, p] = D[R, R] Ĵ[R, p] + δ[R, z(p)] x(p), with the
// read-out gradient[p] += Σ_s g[s] Ĵ_t[s, p] after each frame: the same operations, in the same
// order, as frame-by-frame updates, at a fraction of the memory traffic. finish() applies what
// is queued; the gradient of the queued read-outs is complete only then.
// Its results equal SnapJacobian + ImmediateJacobian's up to float rounding (tests/snap).
#include <span>
#include <vector>

#include "rnnwb/core/snap/unit_block_layout.hpp"

namespace rnnwb::snap {

namespace detail {
struct FoldedBlock;  // unit_block_pass.hpp
}

class UnitBlockJacobian {
 public:
  static constexpr int kFramesPerPass = 8;

  /// One stream's Ĵ (nnz() floats, this class's order) and its queued frames.
  struct Stream {
    struct Frame {
      std::vector<float> exports, d, g, sources;
      bool readOut = false;
    };
    std::vector<float> values;
    std::vector<Frame> frames;  // kFramesPerPass slots, the first `queued` in use
    int queued = 0;
    float* gradient = nullptr;  // where the queued read-outs go
  };

  /// What prepare() and a pass write besides the stream: the D entries being summed, the VJP's
  /// scratch, the folded blocks. One per thread that works at once: calls on distinct streams
  /// with distinct workspaces may run concurrently.
  struct Workspace {
    Workspace();
    ~Workspace();
    Workspace(Workspace&&) noexcept;
    Workspace& operator=(Workspace&&) noexcept;
    std::vector<float> pairs, scratch;
    std::vector<detail::FoldedBlock> folded;  // per block, rebuilt by each pass
  };
  Workspace makeWorkspace() const;

  /// Keeps a reference to step; `layout` is UnitBlockLayout::build's for the same node.
  UnitBlockJacobian(UnitBlockLayout layout, const NodeStep& step);
  ~UnitBlockJacobian();
  UnitBlockJacobian(const UnitBlockJacobian&) = delete;
  UnitBlockJacobian& operator=(const UnitBlockJacobian&) = delete;

  std::int64_t nnz() const { return m_layout.valueCount; }
  const UnitBlockLayout& layout() const { return m_layout; }
  /// Ĵ = 0, nothing queued.
  Stream makeStream() const;

  /// Queues one frame's factors, D blocks and source values, from the step's forward tape.
  void prepare(Stream& stream, const ParameterSet& params, std::span<const float* const> external,
               std::span<const float> prevState, const NodeStep::Tape& tape,
               Workspace& workspace) const;
  /// Completes the frame prepare() queued: with dLossDState (|h| floats) its read-out goes to
  /// `gradient` (a flat buffer of the parameter layout, alive until finish()); empty: none.
  /// Runs the pass when the queue is full, or first on the queued frames when they read out
  /// into another buffer.
  void commit(Stream& stream, std::span<const float> dLossDState, std::span<float> gradient,
              Workspace& workspace) const;
  /// Applies every queued frame to Ĵ and the gradient.
  void finish(Stream& stream, Workspace& workspace) const;

  /// Ĵ's values in the order of SnapJacobian::byParameter() (the CSR of M_nᵀ), and back; the
  /// stream must have nothing queued (std::logic_error otherwise).
  std::vector<float> toByParameter(const Stream& stream) const;
  void fromByParameter(std::span<const float> byParameter, Stream& stream) const;

 private:
  void runPass(Stream& stream, int frames, Workspace& workspace) const;

  UnitBlockLayout m_layout;
  const NodeStep& m_step;
  std::vector<std::vector<float>> m_seeds;   // per colour, unitCount() floats
  std::vector<std::int64_t> m_sourceOffset;  // per source: its copy in Frame::sources
  std::int64_t m_sourceFloats = 0;
};

}  // namespace rnnwb::snap
