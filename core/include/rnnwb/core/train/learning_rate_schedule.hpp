#pragma once
// The learning rate of a run: constant, halved each time a validation loss is worse than the one
// measured before it (as "No Padding Please" trains its networks). The caller resets the
// optimizer's state when onValidation() says the rate was halved.
#include <optional>

namespace rnnwb::train {

class LearningRateSchedule {
 public:
  LearningRateSchedule(double initialRate, bool halveWhenWorse)
      : m_rate(initialRate), m_halveWhenWorse(halveWhenWorse) {}

  double rate() const { return m_rate; }
  /// Records a validation loss; returns true when it halved the rate (the loss is worse than
  /// the previous validation loss and halving is on).
  bool onValidation(double validLoss);

  // Everything needed to continue exactly after a checkpoint.
  std::optional<double> previousValidLoss() const { return m_previous; }
  int halvings() const { return m_halvings; }
  void restore(double rate, std::optional<double> previousValidLoss, int halvings);

 private:
  double m_rate;
  bool m_halveWhenWorse;
  std::optional<double> m_previous;
  int m_halvings = 0;
};

}  // namespace rnnwb::train
