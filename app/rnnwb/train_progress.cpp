#include "train_progress.hpp"

#include "rnnwb/core/train/stop_signal.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace rnnwb::cli {
namespace {

using train::MetricsRecord;

/// "%.4f" of a value, with " (x.xxx bpc)" when the task reports bits per character.
std::string lossText(double nats, const std::optional<double>& bits) {
  char text[64];
  if (bits)
    std::snprintf(text, sizeof text, "%.4f (%.3f bpc)", nats, *bits);
  else
    std::snprintf(text, sizeof text, "%.4f", nats);
  return text;
}

/// "1h02m", "3m05s", "12s".
std::string durationText(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, s % 3600 / 60);
  else if (s >= 60)
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%lds", s);
  return text;
}

}  // namespace

ProgressPrinter::ProgressPrinter() : m_terminal(::isatty(STDERR_FILENO) != 0) {}
ProgressPrinter::~ProgressPrinter() { endBar(); }

void ProgressPrinter::onStep(std::int64_t step, std::int64_t total) {
  const Clock::time_point now = Clock::now();
  if (m_firstStep < 0) m_firstStep = step - 1, m_start = now;
  if (!m_terminal || (step != total && now - m_lastDraw < std::chrono::milliseconds(100))) return;
  m_lastDraw = now;
  const double elapsed = std::chrono::duration<double>(now - m_start).count();
  const double perStep =
      elapsed / static_cast<double>(std::max<std::int64_t>(1, step - m_firstStep));
  const int width = 30;
  const int filled = static_cast<int>(width * step / std::max<std::int64_t>(1, total));
  // "\033[K" clears what a longer previous line left behind.
  std::fprintf(stderr, "\r[%s%s] %lld/%lld  %s  eta %s\033[K", std::string(filled, '#').c_str(),
               std::string(width - filled, '.').c_str(), static_cast<long long>(step),
               static_cast<long long>(total), m_figures.c_str(),
               durationText(perStep * static_cast<double>(total - step)).c_str());
  m_barShown = true;
  train::stopOnOutputError(stderr);
}
void ProgressPrinter::onReport(const MetricsRecord& r, std::int64_t total) {
  if (r.validLoss) m_valid = "  valid " + lossText(*r.validLoss, r.validBpc);
  if (r.cer) m_valid += "  cer " + std::to_string(*r.cer).substr(0, 5);  // the words task
  if (r.wer) m_valid += "  wer " + std::to_string(*r.wer).substr(0, 5);
  char rate[48];
  std::snprintf(rate, sizeof rate, "  %.0f frames/s", r.framesPerS);
  m_figures = "loss " + lossText(r.trainLoss, r.trainBpc) + m_valid + rate;
  if (m_terminal) return;
  std::fprintf(stderr, "step %lld/%lld  train_loss %s%s  grad_norm %.3g  lr %.3g%s\n",
               static_cast<long long>(r.step), static_cast<long long>(total),
               lossText(r.trainLoss, r.trainBpc).c_str(),
               r.validLoss ? ("  valid_loss " + lossText(*r.validLoss, r.validBpc) +
                              (r.cer ? "  cer " + std::to_string(*r.cer).substr(0, 5) : "") +
                              (r.wer ? "  wer " + std::to_string(*r.wer).substr(0, 5) : ""))
                                 .c_str()
                           : "",
               r.gradNorm, r.lr, rate);
  train::stopOnOutputError(stderr);
}
void ProgressPrinter::onMessage(const std::string& message) {
  endBar();
  std::fprintf(stderr, "rnnwb train: %s\n", message.c_str());
  train::stopOnOutputError(stderr);
}

void ProgressPrinter::endBar() {
  if (m_barShown) std::fputc('\n', stderr);
  m_barShown = false;
}

}  // namespace rnnwb::cli
