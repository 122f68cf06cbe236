#pragma once
// What the trainer does around every learner's updates, so that a run folder's log, metrics and
// learning-rate history mean the same for every task and learner: the clocks and sums of the report
// interval, the fields every metrics record has, what a validation loss does to the schedule, the
// log and the observer. Private to rnnwb_train.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "rnnwb/core/train/checkpoint.hpp"
#include "rnnwb/core/train/learning_rate_schedule.hpp"
#include "rnnwb/core/train/metrics.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/trainer.hpp"

namespace rnnwb::train {

/// "%g" of a value, for messages ("learning rate halved to 0.0005").
std::string shortNumber(double value);

class RunReporter {
 public:
  /// `position` and `schedule` belong to the trainer and outlive the reporter; `observer` may be
  /// null.
  RunReporter(TrainingPosition& position, LearningRateSchedule& schedule,
              TrainingObserver* observer);

  /// The run's log and metrics file (the metrics file is appended to).
  void openOutputs(const RunFolder& folder);
  /// To the log and the observer.
  void message(const std::string& text);
  /// To the log only (checkpoint lines).
  void log(const std::string& text);
  /// Starts the clocks of this session; wall time goes on from the position's.
  void startSession();

  /// One update: its loss summed over `predicted` frames (or examples), its gradient norm before
  /// clipping, and the frames (or examples) it consumed, for frames_per_s.
  void countUpdate(double lossSum, std::int64_t predicted, double gradNorm, std::int64_t consumed);
  /// The record of the interval now ending: step, frames, train_loss, grad_norm, lr, frames_per_s.
  MetricsRecord startRecord(std::int64_t frames) const;
  /// A mean validation loss into `record`. Throws NonFiniteError (naming the step) when it is not
  /// finite; when it is worse than the last one and the schedule halves the rate, resets the
  /// optimizer and says so.
  void acceptValidation(double meanLoss, MetricsRecord& record, Optimizer& optimizer);
  /// Stamps wall_s and wall_time, writes the record, tells the observer and starts a new interval.
  MetricsRecord finishRecord(MetricsRecord record, std::int64_t totalSteps);

  /// Training seconds over every session of the run, also kept in the position (checkpoints).
  double updateWallSeconds();
  /// Continues with another learning rate (a resume that asks for one).
  void setLearningRate(double rate);

 private:
  using Clock = std::chrono::steady_clock;
  TrainingPosition& m_position;
  LearningRateSchedule& m_schedule;
  TrainingObserver* m_observer;
  std::unique_ptr<RunLog> m_log;
  std::unique_ptr<MetricsWriter> m_metrics;
  Clock::time_point m_sessionStart = Clock::now(), m_intervalStart = Clock::now();
  double m_wallAtSessionStart = 0.0;
  std::int64_t m_intervalConsumed = 0;
};

}  // namespace rnnwb::train
