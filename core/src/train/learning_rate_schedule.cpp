#include "rnnwb/core/train/learning_rate_schedule.hpp"

namespace rnnwb::train {

bool LearningRateSchedule::onValidation(double validLoss) {
  const bool worse = m_previous.has_value() && validLoss > *m_previous;
  m_previous = validLoss;
  if (!worse || !m_halveWhenWorse) return false;
  m_rate *= 0.5;
  ++m_halvings;
  return true;
}

void LearningRateSchedule::restore(double rate, std::optional<double> previousValidLoss,
                                   int halvings) {
  m_rate = rate;
  m_previous = previousValidLoss;
  m_halvings = halvings;
}

}  // namespace rnnwb::train
