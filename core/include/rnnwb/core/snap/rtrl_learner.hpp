#pragma once
// Online gradients of a whole plan by RTRL (exact, M_∞) or SnAp-n, frame by frame, for N
// streams (spec/snap-masks.md, "What RTRL trains, and where it is exact").
//
// Each frame of each stream: every node of the schedule runs its NodeStep; a recurrent node also
// carries Ĵ_t = M ⊙ (D_t Ĵ_{t-1}) + I_t, by unit blocks where every column of M has at most 16
// rows (UnitBlockJacobian: D_t[R, R] blocks and I_t's factors from one VJP per colour, frames
// queued and applied 8 at a time, see finish()), else by the general path (the dense D_t from
// NodeStep::stateJacobian, the compressed I_t, SnapJacobian's masked product). The loss of the
// frame is then back-propagated WITHIN the frame (nothing flows into earlier frames): parameters of
// plain layers get their gradient as in BPTT, upstream parameters only the same-frame part, and the
// parameters θ_R of a recurrent node get
//   (same-frame ∂L_t/∂θ_R) + gᵀ (Ĵ_t − I_t),
// g being dL_t/dh_t from the node's consumers outside it, i.e. gᵀĴ_t for a loss that reads the
// state (the SnAp read-out) plus the same-frame part of any other path. Exact RTRL then equals
// full BPTT on the graphs the spec names.
//
// The streams are independent (each has its own Ĵ and its own history rows): chunk() steps them
// on the worker pool, each worker with its own frame buffers and scratch (rtrl_worker.hpp), and
// each stream's gradient in a buffer of its own, summed in stream order, so the result does not
// depend on the number of threads.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/node_step.hpp"
#include "rnnwb/core/engine/sequence_batch.hpp"
#include "rnnwb/core/engine/stream_state.hpp"
#include "rnnwb/core/snap/immediate_jacobian.hpp"
#include "rnnwb/core/snap/snap_jacobian.hpp"

namespace rnnwb {
class WorkerPool;
}

namespace rnnwb::snap {

/// What one recurrent node carries, for reports and benchmarks.
struct RtrlNodeFigures {
  int node = 0;  // index into plan.nodes()
  int stateSize = 0;
  std::int64_t parameters = 0;
  std::int64_t jacobianNnz = 0;  // per stream
  int colours = 0;               // VJPs per frame (of I's rows, or of the unit-block path's)
  bool unitBlocks = false;       // Ĵ is carried by UnitBlockJacobian (else SnapJacobian)
};

/// How Ĵ is carried: by unit blocks wherever their preconditions hold (every column of M_n has
/// at most kUnitBlockMaxRows rows), else by the general masked product; or always the latter
/// (the reference the fast path is tested against).
enum class RtrlJacobianPath { Fastest, General };

class RtrlLearner {
 public:
  /// snapLevel n >= 1: SnAp-n; 0: exact RTRL (M_∞). Throws RtrlRefusal naming the connection
  /// for a graph RTRL cannot take. `threads` (0: computeThreads()): chunk()'s workers, at most
  /// one per stream, each stream's masked product and dense products getting threads / workers
  /// of them; frame()'s masked product and dense products get them all (a ProductThreadsScope
  /// for the call). The plan and the parameter layout must outlive the learner.
  RtrlLearner(const CompiledPlan& plan, const ParameterLayout& layout, int snapLevel,
              int threads = 1, RtrlJacobianPath path = RtrlJacobianPath::Fastest);
  ~RtrlLearner();

  /// Ĵ = 0 for `streams` streams: every stream starts a sequence. Queued frames are dropped.
  void reset(int streams);
  int streams() const { return m_streams; }

  /// Frame t of stream `stream` of the batch. `history` holds, for N = batch.streams streams,
  /// the frames before t (StreamState layout) and is advanced past t. The loss of the frame
  /// (0 before batch.firstPredictedFrame) is returned and its online gradient ADDED to
  /// `gradient` (a flat buffer of the layout). Ĵ is carried whether or not the frame is
  /// predicted.
  /// Runs on the calling thread (with worker 0's buffers): not concurrently with anything else.
  double frame(const ParameterSet& params, const SequenceBatch& batch, int t, int stream,
               StreamState& history, std::span<float> gradient);
  /// Every frame of every stream of the batch, then finish(): the streams split among the
  /// workers, each stream's frames in order. Returns the summed loss and ADDS the summed online
  /// gradient to `gradient`. The per-stream losses and gradients are summed in stream order, so
  /// the result is bit for bit the same for any thread count: that of frame() over t for
  /// stream 0 into a zeroed buffer, then stream 1 into another, ..., added to `gradient` in
  /// stream order. Keeps N gradient buffers (N x the layout's floats) between calls. Not
  /// concurrently with any other call on the learner.
  double chunk(const ParameterSet& params, const SequenceBatch& batch, StreamState& history,
               std::span<float> gradient);
  /// The workers chunk() uses for `streams` streams.
  int workersFor(int streams) const;
  /// Where Ĵ is carried by unit blocks, frames are queued and applied together (a few at a
  /// time, see unit_block_jacobian.hpp): their part of the gradient is added only then. Call
  /// finish() before reading the gradient or freeing its buffer; it applies what is queued.
  void finish();

  const std::vector<RtrlNodeFigures>& figures() const { return m_figures; }
  /// Bytes the learner carries for Ĵ over every stream, as built: by unit blocks, Ĵ's values and
  /// the queued frames (factors, D blocks, sources, g); otherwise Ĵ in CSR, the product's output
  /// and the dense D_t.
  std::uint64_t carriedBytes() const;
  /// What carriedBytes() will be for each stream added by reset(): known before any stream
  /// exists, so a run can say what it will need (and refuse what cannot fit) before allocating.
  std::uint64_t bytesPerStream() const;

  /// Ĵ of figures()[index]'s node for one stream, in the order of SnapJacobian::byParameter()
  /// whichever path carries it (jacobianNnz floats); and its replacement (a resumed run). Both
  /// finish() the stream's queued frames first.
  std::vector<float> jacobian(int index, int stream);
  void setJacobian(int index, int stream, std::span<const float> byParameter);

 private:
  struct Recurrent;  // rtrl_worker.hpp
  struct Worker;
  struct FrameContext {
    const ParameterSet& params;
    const SequenceBatch& batch;
    int t, stream;
    StreamState& history;
    std::span<float> gradient;
    int productThreads;  // the masked product's
  };
  double frameOn(Worker& worker, const FrameContext& frame);
  void checkStreams(const SequenceBatch& batch, const StreamState& history) const;
  void forwardNode(Worker& worker, const FrameContext& frame, int node, bool predicted);
  void backwardNode(Worker& worker, const FrameContext& frame, int node);
  void backwardUnitBlocks(Worker& worker, const FrameContext& frame, int node);
  void finishStream(Worker& worker, int stream);
  void sumStreamGradients(int streams, std::span<float> gradient);
  /// figures()[index]'s node, with `stream`'s queued frames applied; throws for a bad index.
  Recurrent& settledStream(int index, int stream);
  double frameLoss(Worker& worker, const SequenceBatch& batch, int t, int stream) const;

  const CompiledPlan& m_plan;
  const ParameterLayout& m_layout;
  int m_snapLevel, m_threads, m_streams = 0;            // m_threads >= 1
  std::vector<std::unique_ptr<NodeStep>> m_steps;       // per node; null for input layers
  std::vector<std::unique_ptr<Recurrent>> m_recurrent;  // per node; null for plain ones
  std::unique_ptr<WorkerPool> m_pool;
  std::vector<std::unique_ptr<Worker>> m_workers;     // per worker of the pool
  std::vector<std::vector<float>> m_streamGradients;  // chunk()'s, per stream; 0 between calls
  std::vector<RtrlNodeFigures> m_figures;
};

}  // namespace rnnwb::snap
