#pragma once
// What `rnnwb train` prints while it trains: a progress bar on a terminal (redrawn at most ten
// times a second), plain lines otherwise, and the trainer's messages.
#include <chrono>
#include <string>

#include "rnnwb/core/train/trainer.hpp"

namespace rnnwb::cli {

class ProgressPrinter final : public train::TrainingObserver {
  using Clock = std::chrono::steady_clock;

 public:
  ProgressPrinter();
  ~ProgressPrinter() override;

  void onStep(std::int64_t step, std::int64_t total) override;
  void onReport(const train::MetricsRecord& record, std::int64_t total) override;
  void onMessage(const std::string& message) override;

 private:
  void endBar();

  bool m_terminal;
  bool m_barShown = false;
  std::string m_figures, m_valid;
  std::int64_t m_firstStep = -1;
  Clock::time_point m_start{}, m_lastDraw{};
};

}  // namespace rnnwb::cli
