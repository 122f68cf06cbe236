#pragma once
// A Backend whose gradients are RTRL's or SnAp-n's (rtrl_learner.hpp) instead of BPTT's, so the
// trainer runs `--algo rtrl|snap1|snap2|snap3` through the same loop, run folder and metrics.
//
// forwardBackward runs the chunk by RtrlLearner::chunk (the streams split among the threads,
// each stream frame by frame; the result is the same for any thread count) and returns the
// summed loss and the SUM of the online gradients of its predicted frames (the trainer divides by
// the predicted frames, as for BPTT). Ĵ is carried between calls: it restarts at 0 whenever stateIn
// is empty (a new sequence), so a chunk must continue exactly where the previous one stopped
// (carryFrames = T, or 0 when the state is dropped): RTRL cannot rewind, so truncated BPTT's
// overlap (h > h') is refused. forward() is the CPU engine's (validation, inference).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/snap/rtrl_learner.hpp"

namespace rnnwb::snap {

/// The SnAp level of a training algorithm's name: "rtrl" -> 0 (exact), "snapN" -> N (N >= 1).
/// Throws std::invalid_argument for any other name ("bptt" included).
int snapLevelOfAlgorithm(std::string_view algorithm);

/// The bytes of Ĵ that RTRL (snapLevel 0) or SnAp-n carries for `streams` streams, stored as
/// the general path stores it (CSR by parameter, plus the masked product's output), for every
/// stream and for the learner's own pattern; from the masks' counts alone, before anything that
/// large is allocated. This is what grows as |h|·|θ|; the unit-block path stores less of Ĵ, plus
/// a few queued frames linear in the node's size. Nodes RTRL refuses count 0.
std::uint64_t rtrlJacobianBytes(const CompiledPlan& plan, int snapLevel, int streams);

class SnapPatterns;
/// One node's share of that, for one stream, from the node's patterns.
std::uint64_t nodeJacobianBytes(const SnapPatterns& patterns, int snapLevel);

class RtrlBackend final : public Backend {
 public:
  /// `threads`: the learner's (streams in parallel, see RtrlLearner) and the CPU engine's
  /// (0: every core).
  RtrlBackend(const CompiledPlan& plan, std::string_view algorithm, int threads = 0);
  ~RtrlBackend() override;

  std::string_view name() const override { return m_name; }
  const CompiledPlan& plan() const override { return m_cpu.plan(); }

  double forwardBackward(const ParameterSet& params, const SequenceBatch& batch,
                         const StreamState& stateIn, StreamState* stateOut,
                         ParameterSet* gradients) override;
  double forward(const ParameterSet& params, const SequenceBatch& batch, const StreamState& stateIn,
                 StreamState* stateOut, std::vector<Tensor>* outputs = nullptr) override;

  const RtrlLearner& learner() const { return *m_learner; }

  /// What a checkpoint keeps of Ĵ so that a resumed run continues exactly: for each recurrent
  /// node (k indexes plan().nodes()), "rtrl.jacobian.<k>", F32 [N, nnz(Ĵ)] in
  /// SnapJacobian::byParameter()'s order, whichever path carries it. Empty before the first
  /// chunk (Ĵ = 0 then).
  TensorMap jacobianTensors();
  /// Restores what jacobianTensors() saved, for N streams, so that the next chunk (given the
  /// saved stream state) continues Ĵ instead of restarting it. Throws std::runtime_error naming
  /// the key that is missing or whose shape does not fit this graph and algorithm.
  void restoreJacobians(const TensorMap& tensors, int streams);

 private:
  CpuBackend m_cpu;
  ParameterLayout m_layout;
  std::unique_ptr<RtrlLearner> m_learner;
  std::string m_name;
};

}  // namespace rnnwb::snap
