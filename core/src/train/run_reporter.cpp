#include "run_reporter.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace rnnwb::train {

std::string shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

RunReporter::RunReporter(TrainingPosition& position, LearningRateSchedule& schedule,
                         TrainingObserver* observer)
    : m_position(position), m_schedule(schedule), m_observer(observer) {}

void RunReporter::openOutputs(const RunFolder& folder) {
  m_log = std::make_unique<RunLog>(folder.logPath());
  m_metrics = std::make_unique<MetricsWriter>(folder.metricsPath());
}

void RunReporter::message(const std::string& text) {
  log(text);
  if (m_observer) m_observer->onMessage(text);
}

void RunReporter::log(const std::string& text) {
  if (m_log) m_log->write(text);
}

void RunReporter::startSession() {
  m_sessionStart = m_intervalStart = Clock::now();
  m_wallAtSessionStart = m_position.wallSeconds;
  m_intervalConsumed = 0;
}

void RunReporter::countUpdate(double lossSum, std::int64_t predicted, double gradNorm,
                              std::int64_t consumed) {
  ReportInterval& in = m_position.interval;
  in.lossSum += lossSum;
  in.predictedFrames += predicted;
  in.gradNormSum += gradNorm;
  in.updates += 1;
  m_intervalConsumed += consumed;
}

MetricsRecord RunReporter::startRecord(std::int64_t frames) const {
  const ReportInterval& in = m_position.interval;
  MetricsRecord r;
  r.step = m_position.step;
  r.frames = frames;
  r.trainLoss = in.predictedFrames > 0 ? in.lossSum / static_cast<double>(in.predictedFrames) : 0.0;
  r.gradNorm = in.updates > 0 ? in.gradNormSum / static_cast<double>(in.updates) : 0.0;
  r.lr = m_schedule.rate();
  const double seconds = std::chrono::duration<double>(Clock::now() - m_intervalStart).count();
  r.framesPerS = seconds > 0 ? static_cast<double>(m_intervalConsumed) / seconds : 0.0;
  return r;
}

void RunReporter::acceptValidation(double meanLoss, MetricsRecord& record, Optimizer& optimizer) {
  if (!std::isfinite(meanLoss))
    throw NonFiniteError(m_position.step, "the validation loss is " + std::to_string(meanLoss));
  record.validLoss = meanLoss;
  if (m_schedule.onValidation(meanLoss)) {
    optimizer.reset();
    message("step " + std::to_string(m_position.step) + ": validation loss got worse; " +
            "learning rate halved to " + shortNumber(m_schedule.rate()) +
            ", optimizer state reset");
  }
  m_position.learningRate = m_schedule.rate();
  m_position.previousValidLoss = m_schedule.previousValidLoss();
  m_position.halvings = m_schedule.halvings();
}

MetricsRecord RunReporter::finishRecord(MetricsRecord record, std::int64_t totalSteps) {
  record.wallS = updateWallSeconds();
  // The calendar time too, so that runs can be compared by when they ran (x as wall time).
  record.wallTime =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (m_metrics) m_metrics->append(record);  // only rank 0 of a data-parallel run writes
  if (m_observer) m_observer->onReport(record, totalSteps);
  m_position.interval = {};
  m_intervalStart = Clock::now();
  m_intervalConsumed = 0;
  return record;
}

double RunReporter::updateWallSeconds() {
  m_position.wallSeconds =
      m_wallAtSessionStart + std::chrono::duration<double>(Clock::now() - m_sessionStart).count();
  return m_position.wallSeconds;
}

void RunReporter::setLearningRate(double rate) {
  if (!(rate > 0.0) || !std::isfinite(rate))
    throw std::invalid_argument("learning rate must be > 0, got " + std::to_string(rate));
  m_schedule.restore(rate, m_schedule.previousValidLoss(), m_schedule.halvings());
  m_position.learningRate = rate;
}

}  // namespace rnnwb::train
