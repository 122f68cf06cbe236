#pragma once
// Private to rnnwb_train: what training does differently as one rank of a data-parallel run
// (docs/distributed.md). Each rank's learner trains its share of the N streams; as the
// trainer's GradientReducer it sums every update's gradient, loss and frames over the ranks
// before the optimizer steps, so every rank applies the same step to the same parameters;
// checkpoints hold all N streams (gathered), and only rank 0 writes the run folder. With one
// rank every call is the identity.
//
// One meeting per update: the loss and frames, and the stop agreement the trainer's loop asks
// for before each update, travel with the update's gradient sum (the signals are read when that
// sum starts its last parts), so the ranks wait for each other once per update, not once each for
// the gradient, the loss and the stop. Before the first update, and after a step that summed
// nothing (a report owed from before a resume), the agreement is a meeting of its own.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gradient_sum.hpp"
#include "rnnwb/core/dist/communicator.hpp"
#include "rnnwb/core/dist/sharding.hpp"
#include "rnnwb/core/engine/backend.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/engine/stream_state.hpp"
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/task.hpp"
#include "rnnwb/core/train/trainer.hpp"
#include "update_timeline.hpp"

namespace rnnwb::train {

class DataParallel final : public GradientReducer {
 public:
  /// `world` null: one process (a single-process communicator of its own). Throws
  /// std::invalid_argument naming N and R when R does not divide N (sequence tasks; the words
  /// task shares each batch's examples by packed area instead, in WordsLearner).
  DataParallel(dist::Communicator* world, const TrainConfig& config);

  bool single() const { return m_world->size() == 1; }
  /// Only rank 0 writes the run folder (config, metrics, log, checkpoints).
  bool writes() const { return m_world->rank() == 0; }
  int ranks() const { return m_world->size(); }
  const dist::StreamShare& share() const { return m_share; }
  dist::Communicator& world() { return *m_world; }

  /// The task of all N streams cut to this rank's share (the task itself with one rank).
  std::unique_ptr<Task> shareOf(std::unique_ptr<Task> whole) const;

  /// Sequence learners: `backend` reports its final gradients to this rank's GradientSum, so
  /// that the sum over the ranks can start during the backward pass (no-op with one rank).
  void attachTo(Backend& backend);
  /// Before the backward pass of an update: the learner then leaves its gradient buffer holding
  /// d(summed loss)/d(params), unchecked, and reduce() finishes the sum, checks and divides.
  /// False with one rank (the learner divides by its frames itself then).
  bool beginGradientSum(std::span<float> gradients);
  /// For the log: how the gradient sum meets the backward pass, and what it did so far.
  std::string sumDescription(const TrainConfig& config) const;
  std::string sumCounts() const;

  /// Collective: the batch's mean-loss gradient (or, after beginGradientSum, its summed-loss
  /// gradient) and figures made those of all ranks' batches together: the gradient of the loss
  /// summed over every rank's predicted frames, divided by their total (what one process of N
  /// streams computes), and the summed loss and frames; in the same meeting the ranks agree on
  /// a stop, which the next agreedStopSignal() returns.
  void reduce(std::span<float> gradients, BatchGradient& batch) override;
  /// Collective: a validation's summed loss and frames over the ranks.
  void sumLoss(double& loss, std::int64_t& predicted);
  /// The stop signal any rank received (0 if none), as every rank agrees on it: the one the
  /// latest reduce() summed, once; else collective (agreeOnStop).
  int agreedStopSignal();
  /// For StopCheck inside a validation: empty with one rank, else collective (agreeOnStop).
  StopAgreement stopAgreement();
  /// Collective, every `kHashEvery` steps: throws naming the ranks whose parameters differ.
  void checkSameParameters(std::span<const float> params, std::int64_t step);

  /// Collective: all N streams' state from every rank's share (for a checkpoint).
  StreamState wholeStreams(const CompiledPlan& plan, const StreamState& mine);
  /// This rank's share of a checkpoint's N streams.
  StreamState myStreams(const StreamState& whole) const;
  /// Collective / local: the same for stream-major tensors ([N, ...], RTRL's Ĵ).
  TensorMap wholeRows(const TensorMap& mine);
  TensorMap myRows(const TensorMap& whole) const;

  static constexpr std::int64_t kHashEvery = 100;

 private:
  /// The update's sum over the ranks, with its loss, frames and stop signals riding along.
  void sumWithFigures(BatchGradient& batch);

  std::unique_ptr<dist::Communicator> m_own;  // when no world was given
  dist::Communicator* m_world;
  int m_streams;
  bool m_examplesShared;  // the words task: no stream share, no overlapped sum
  dist::StreamShare m_share;
  std::unique_ptr<GradientSum> m_sum;  // with more than one rank
  bool m_backendReports = false;       // the attached backend reports final gradients
  // The figures summed with the gradient: loss sum, predicted frames (far below 2^53, so exact
  // in a double), then one stop slot per rank (dist::writeStopSlots).
  std::vector<double> m_figures;
  std::optional<int> m_summedStop;             // from the latest reduce(), until asked for
  std::unique_ptr<UpdateTimeline> m_timeline;  // RNNWB_UPDATE_TIMES
};

}  // namespace rnnwb::train
