#pragma once
// RtrlLearner's state split by who writes it (private to rnnwb_snap): Recurrent is what the
// learner keeps for one recurrent node, read by every worker (layouts, patterns, the helpers'
// const parts) plus each stream's Ĵ (written only by the worker that steps that stream); Worker
// is everything one frame writes besides the stream's own Ĵ and history rows: one per worker of
// chunk(), so that streams run concurrently. rtrl_worker.cpp also holds RtrlLearner::frame()
// and chunk(), which hand frames to the workers.
#include <cstdint>
#include <memory>
#include <vector>

#include "rnnwb/core/snap/rtrl_learner.hpp"
#include "rnnwb/core/snap/unit_block_jacobian.hpp"

namespace rnnwb::snap {

/// What RTRL carries for one recurrent node: its layout and patterns, and either the unit-block
/// path (one UnitBlockJacobian, Ĵ's values per stream) or the general one (the compressed I_t
/// and one SnapJacobian per stream).
struct RtrlLearner::Recurrent {
  Recurrent(const CompiledPlan& plan, int node, const NodeStep& step,
            const ParameterLayout& parameters, int snapLevel, RtrlJacobianPath path);
  std::int64_t nnz() const { return blocks ? blocks->nnz() : prototype->nnz(); }
  int colours() const { return blocks ? blocks->layout().colouring.colours : immediate->colours(); }

  RtrlNodeLayout layout;
  SnapPatterns patterns;
  // The unit-block path.
  std::unique_ptr<UnitBlockJacobian> blocks;
  std::vector<UnitBlockJacobian::Stream> blockStreams;
  // The general path.
  std::unique_ptr<ImmediateJacobian> immediate;
  SparseCsr immediatePattern;  // I by parameter, for gᵀ I_t
  std::unique_ptr<SnapJacobian> prototype;
  std::vector<SnapJacobian> perStream;
  std::vector<std::int64_t> offsets;  // θ_R -> flat buffer
};

/// The values of one frame of one stream: y, dL/dy and dL/ds of every layer, each node's tape,
/// external inputs and previous state; and per recurrent node g = dL_t/dh_t from outside it,
/// the general path's D_t, I_t and θ_R gradient, and the helpers' workspaces.
struct RtrlLearner::Worker {
  struct Node {
    std::vector<float> g, d, iValues, thetaGrad, scratch;
    ImmediateJacobian::Workspace immediate;
    UnitBlockJacobian::Workspace blocks;
  };
  Worker(const CompiledPlan& plan, const std::vector<std::unique_ptr<NodeStep>>& steps,
         const std::vector<std::unique_ptr<Recurrent>>& recurrent);
  /// Copies the frame's y into `history` for `stream`, dropping its oldest frame.
  void advanceHistory(int stream, StreamState& history) const;
  /// Bytes of the general path's dense D_t (what carriedBytes() counts of a worker).
  std::uint64_t denseJacobianBytes() const;

  std::vector<std::vector<float>> y, dy, ds;  // per layer
  std::vector<NodeStep::Tape> tapes;          // per node
  std::vector<std::vector<const float*>> external;
  std::vector<std::vector<float*>> externalGradient;  // per node: where dL/dx goes, or null
  std::vector<std::vector<float>> prevState;
  std::vector<float> seed, seedOnSums, scratch;
  std::vector<Node> nodes;  // per node (empty for plain ones)
};

/// y of `layer` at frame t - delay of `stream`, from the frames a StreamState keeps.
const float* pastFrame(const StreamState& history, int layer, int delay, int stream);

}  // namespace rnnwb::snap
